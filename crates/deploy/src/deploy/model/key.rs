//! A deploy key as a record, and the rules of its body: a PEM private
//! key without a passphrase, kept with its SHA-256 digest.

use base64::{Engine, engine::general_purpose::STANDARD, engine::general_purpose::STANDARD_NO_PAD};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{body::Body, new_uuid, timestamp};
use crate::deploy::error::Result;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KeyRecord {
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    /// The PEM text. Never serialised into a response.
    pub private_key: String,
    pub digest: String,
    pub created_at: String,
    pub updated_at: String,
}

pub fn parse_new(map: Map<String, Value>) -> Result<KeyRecord> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let description = b.string("description", false, 2000);
    let pem = b.string("private_key", true, 16_384);
    let pem = b.check("private_key", pem, |p| check_pem(p).map(|_| ()));
    b.finish()?;
    let (private_key, digest) = stored_form(&pem.unwrap_or_default());
    let now = timestamp();
    Ok(KeyRecord {
        uuid: new_uuid(),
        name: name.unwrap_or_default(),
        description,
        digest,
        private_key,
        created_at: now.clone(),
        updated_at: now,
    })
}

/// A checked PEM as stored (trimmed, one final newline) and its digest.
fn stored_form(pem: &str) -> (String, String) {
    let der = check_pem(pem).unwrap_or_default();
    (
        format!("{}\n", pem.trim()),
        format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(&der))),
    )
}

/// A key's PATCH, by Coolify's rules: `private_key` is required (the
/// key as it should be now), `name` and `description` optional, at most
/// 255 characters each.
#[derive(Debug)]
pub struct KeyEdit {
    pub name: Option<String>,
    pub description: Option<String>,
    /// The PEM as stored, and its digest.
    pub private_key: String,
    pub digest: String,
}

pub fn parse_edit(map: Map<String, Value>) -> Result<KeyEdit> {
    let mut b = Body::new(map);
    let name = b.string("name", false, 255);
    let description = b.string("description", false, 255);
    let pem = b.string("private_key", true, 16_384);
    let pem = b.check("private_key", pem, |p| check_pem(p).map(|_| ()));
    b.finish()?;
    let (private_key, digest) = stored_form(&pem.unwrap_or_default());
    Ok(KeyEdit {
        name,
        description,
        private_key,
        digest,
    })
}

/// A PEM block holding a private key: a `-----BEGIN … PRIVATE KEY-----`
/// line, base64 lines, the matching END line. Returns the decoded body.
fn check_pem(pem: &str) -> Result<Vec<u8>, String> {
    let bad = || {
        "The private key must be a PEM-encoded private key (-----BEGIN … PRIVATE KEY-----)."
            .to_string()
    };
    let mut lines = pem.trim().lines().map(str::trim);
    let begin = lines.next().ok_or_else(bad)?;
    let label = begin
        .strip_prefix("-----BEGIN ")
        .and_then(|l| l.strip_suffix("-----"))
        .filter(|l| l.ends_with("PRIVATE KEY"))
        .ok_or_else(bad)?;
    let rest: Vec<&str> = lines.collect();
    let (end, body) = rest.split_last().ok_or_else(bad)?;
    if *end != format!("-----END {label}-----") {
        return Err(bad());
    }
    // Encrypted PEMs carry headers (`Proc-Type: …`); those cannot be used
    // unattended.
    if body.iter().any(|l| l.contains(':')) {
        return Err("The private key must not be protected by a passphrase.".into());
    }
    let der = STANDARD.decode(body.concat()).map_err(|_| bad())?;
    if der.len() < 32 {
        return Err(bad());
    }
    Ok(der)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pem(label: &str, body: &str) -> String {
        format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----\n")
    }

    #[test]
    fn keys_are_pem_private_keys() {
        let der = STANDARD.encode([7u8; 64]);
        assert_eq!(
            check_pem(&pem("OPENSSH PRIVATE KEY", &der)).unwrap(),
            [7u8; 64]
        );
        assert!(check_pem(&pem("PUBLIC KEY", &der)).is_err());
        assert!(check_pem(&pem("RSA PRIVATE KEY", "c2hvcnQ=")).is_err());
        assert_eq!(
            check_pem(&pem(
                "RSA PRIVATE KEY",
                &format!("Proc-Type: 4,ENCRYPTED\n{der}")
            )),
            Err("The private key must not be protected by a passphrase.".into())
        );
    }

    #[test]
    fn a_key_edit_needs_the_key() {
        let der = STANDARD.encode([7u8; 64]);
        let body = |v: Value| v.as_object().cloned().unwrap_or_default();
        match parse_edit(body(json!({"name": "k"}))) {
            Err(crate::deploy::Error::Invalid(p)) => {
                assert_eq!(p["private_key"], ["This field is required."])
            }
            other => panic!("{other:?}"),
        }
        let edit = parse_edit(body(
            json!({"description": "d", "private_key": pem("OPENSSH PRIVATE KEY", &der)}),
        ))
        .unwrap();
        assert_eq!((edit.name, edit.description.as_deref()), (None, Some("d")));
        assert!(edit.digest.starts_with("SHA256:"));
    }

    #[test]
    fn a_key_records_its_digest_not_its_source_text() {
        let der = STANDARD.encode([7u8; 64]);
        let body =
            json!({"name": "k", "private_key": format!("  {}", pem("OPENSSH PRIVATE KEY", &der))});
        let key = parse_new(body.as_object().cloned().unwrap_or_default()).unwrap();
        assert!(key.digest.starts_with("SHA256:"));
        assert!(key.private_key.starts_with("-----BEGIN") && key.private_key.ends_with("-----\n"));
    }
}
