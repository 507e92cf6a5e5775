//! Token secrets: 40 hex characters like Gitea's, stored only as SHA-256.

use sha2::{Digest, Sha256};

/// A fresh random secret (160 bits).
pub fn generate() -> String {
    hex::encode(rand::random::<[u8; 20]>())
}

/// What the table stores and looks tokens up by.
pub fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The last eight characters, shown in listings to tell tokens apart.
pub fn last_eight(secret: &str) -> String {
    secret[secret.len().saturating_sub(8)..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape() {
        let t = generate();
        assert_eq!(t.len(), 40);
        assert!(t.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(generate(), t);
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(last_eight(&t), &t[32..]);
    }
}
