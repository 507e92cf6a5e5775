//! AES-256-GCM over one value. The sealed form is text, so it stores as a
//! DynamoDB string and reads in a dump: `s1:` and the base64 of a random
//! 96-bit nonce followed by the ciphertext and its tag. The caller's
//! context (an item's key) is authenticated, not stored: a sealed value
//! copied onto another item does not open there.

use base64::{Engine, engine::general_purpose::STANDARD};
use ring::{
    aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey},
    rand::{SecureRandom, SystemRandom},
};

const PREFIX: &str = "s1:";

/// A 256-bit key, ready to seal and open.
pub struct Cipher(LessSafeKey);

/// A value that does not open: damaged, sealed under another key, or moved
/// to another item.
#[derive(Debug, thiserror::Error)]
#[error("a sealed value does not open under this key and context")]
pub struct Unreadable;

impl Cipher {
    pub fn new(key: &[u8; 32]) -> Cipher {
        // A 32-byte key is always a valid AES-256 key.
        Cipher(LessSafeKey::new(
            UnboundKey::new(&AES_256_GCM, key).expect("AES-256 key length"),
        ))
    }

    pub fn seal(&self, context: &str, plain: &[u8]) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        random(&mut nonce);
        let mut out = plain.to_vec();
        self.0
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context.as_bytes()),
                &mut out,
            )
            .expect("AES-GCM seals any value under 64 GiB");
        let mut all = nonce.to_vec();
        all.extend_from_slice(&out);
        format!("{PREFIX}{}", STANDARD.encode(all))
    }

    pub fn open(&self, context: &str, sealed: &str) -> Result<Vec<u8>, Unreadable> {
        let raw = sealed
            .strip_prefix(PREFIX)
            .and_then(|b| STANDARD.decode(b).ok())
            .ok_or(Unreadable)?;
        if raw.len() < NONCE_LEN {
            return Err(Unreadable);
        }
        let (nonce, body) = raw.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| Unreadable)?;
        let mut body = body.to_vec();
        let plain = self
            .0
            .open_in_place(nonce, Aad::from(context.as_bytes()), &mut body)
            .map_err(|_| Unreadable)?;
        Ok(plain.to_vec())
    }
}

/// Whether a stored string is a sealed value (rather than one written in
/// the clear by an older release).
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(PREFIX)
}

/// Bytes from the operating system's generator.
pub fn random(out: &mut [u8]) {
    SystemRandom::new()
        .fill(out)
        .expect("the system's random generator works");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_only_with_its_key_and_context() {
        let a = Cipher::new(&[1; 32]);
        let sealed = a.seal("DEPLOY#t|ENV#1", b"hunter2");
        assert!(is_sealed(&sealed));
        assert!(!sealed.contains("hunter2"));
        assert_eq!(a.open("DEPLOY#t|ENV#1", &sealed).unwrap(), b"hunter2");
        // Another item, another key, a flipped bit, or plain text: no.
        assert!(a.open("DEPLOY#t|ENV#2", &sealed).is_err());
        assert!(
            Cipher::new(&[2; 32])
                .open("DEPLOY#t|ENV#1", &sealed)
                .is_err()
        );
        let mut bytes = sealed.clone().into_bytes();
        let last = bytes.len() - 2;
        bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
        assert!(
            a.open("DEPLOY#t|ENV#1", &String::from_utf8(bytes).unwrap())
                .is_err()
        );
        assert!(a.open("DEPLOY#t|ENV#1", "hunter2").is_err());
        assert!(a.open("DEPLOY#t|ENV#1", "s1:").is_err());
    }

    #[test]
    fn nonces_differ_and_empty_values_seal() {
        let a = Cipher::new(&[3; 32]);
        assert_ne!(a.seal("c", b"same"), a.seal("c", b"same"));
        assert_eq!(a.open("c", &a.seal("c", b"")).unwrap(), b"");
    }
}
