//! Deploy keys (Coolify's "private keys"): SSH private keys in PEM form
//! that servers and private repositories are reached with. The key text is
//! checked and stored, and never shown again; responses carry a SHA-256
//! digest of it so clients can tell keys apart.

use base64::{Engine, engine::general_purpose::STANDARD, engine::general_purpose::STANDARD_NO_PAD};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::{
    db::{Db, Item, keys},
    deploy::{
        error::{Error, Object, Result},
        model::{self, body::Body, timestamp},
        store::{self, item, quota},
        team::Team,
    },
};

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

pub fn key_of(team: &Team, uuid: &str) -> Item {
    team.key(&sk(uuid))
}

pub fn sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::SSH_KEY_PREFIX)
}

pub fn parse_new(map: Map<String, Value>) -> Result<KeyRecord> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let description = b.string("description", false, 2000);
    let pem = b.string("private_key", true, 16_384);
    let pem = b.check("private_key", pem, |p| check_pem(p).map(|_| ()));
    b.finish()?;
    let pem = pem.unwrap_or_default();
    let der = check_pem(&pem).unwrap_or_default();
    let now = timestamp();
    Ok(KeyRecord {
        uuid: model::new_uuid(),
        name: name.unwrap_or_default(),
        description,
        digest: format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(&der))),
        private_key: format!("{}\n", pem.trim()),
        created_at: now.clone(),
        updated_at: now,
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

pub async fn create(db: &Db, team: &Team, key: &KeyRecord) -> Result<()> {
    let mut tx = db.tx();
    tx.put_if_absent(item(team, &sk(&key.uuid), "ssh_key", key)?)?;
    let counted = quota::add(&mut tx, team, quota::Kind::Keys)?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_condition() == Some(counted) => {
            Err(Error::QuotaFull(quota::Kind::Keys.object()))
        }
        Err(e) => Err(e.into()),
    }
}

pub async fn get(db: &Db, team: &Team, uuid: &str) -> Result<Option<KeyRecord>> {
    match model::parse_uuid(uuid) {
        Some(u) => store::get(db, team, &sk(&u)).await,
        None => Ok(None),
    }
}

/// One of the team's keys, or the 404.
pub async fn find(db: &Db, team: &Team, uuid: &str) -> Result<KeyRecord> {
    get(db, team, uuid)
        .await?
        .ok_or(Error::NotFound(Object::PrivateKey))
}

pub async fn list(db: &Db, team: &Team) -> Result<Vec<KeyRecord>> {
    let mut all: Vec<KeyRecord> = store::list(db, team, keys::SSH_KEY_PREFIX, "ssh_key").await?;
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(all)
}

pub async fn delete(db: &Db, team: &Team, uuid: &str) -> Result<()> {
    store::delete_resource(db, team, &sk(uuid), quota::Kind::Keys, Object::PrivateKey).await
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
    fn a_key_records_its_digest_not_its_source_text() {
        let der = STANDARD.encode([7u8; 64]);
        let body =
            json!({"name": "k", "private_key": format!("  {}", pem("OPENSSH PRIVATE KEY", &der))});
        let key = parse_new(body.as_object().cloned().unwrap_or_default()).unwrap();
        assert!(key.digest.starts_with("SHA256:"));
        assert!(key.private_key.starts_with("-----BEGIN") && key.private_key.ends_with("-----\n"));
    }
}
