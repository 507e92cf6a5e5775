//! Password hashing with Argon2id (PHC strings), the current OWASP choice.

use argon2::{
    Argon2,
    password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString},
};

pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>()).map_err(|e| e.to_string())?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// A hash of a password nobody has, with the parameters [`hash`] uses.
/// Checking a password against it costs what a real check costs, so a
/// sign-in for a user who does not exist (or has no password) takes as
/// long as a wrong password for one who does: timing tells nothing.
const STAND_IN: &str = "$argon2id$v=19$m=19456,t=2,p=1$+XbOJr1/lWKcoIbM+2NfCg$QRONYrm57yU7jW1zT7fLcm46X1KmyJLfpXK2bvSiXPU";

/// Checks `password` against `phc`, or against [`STAND_IN`] (always
/// false) when there is no stored hash.
pub fn verify_or_stand_in(password: &str, phc: Option<&str>) -> bool {
    match phc {
        Some(phc) => verify(password, phc),
        None => {
            verify(password, STAND_IN);
            false
        }
    }
}

pub fn verify(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|h| {
            Argon2::default()
                .verify_password(password.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stand_in_costs_what_a_real_hash_costs() {
        // Same algorithm and parameters as every stored hash.
        let params = |phc: &str| phc.rsplitn(3, '$').nth(2).unwrap_or("").to_string();
        assert_eq!(params(super::STAND_IN), params(&super::hash("x").unwrap()));
        assert!(!super::verify_or_stand_in("anything", None));
    }

    #[test]
    fn round_trip() {
        let h = super::hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(super::verify("correct horse", &h));
        assert!(!super::verify("wrong", &h));
        assert!(!super::verify("x", "not a hash"));
    }
}
