//! Deploy keys (Coolify's "private keys"): SSH private keys in PEM form
//! that servers and private repositories are reached with. The key text is
//! checked and stored sealed (`store::secret`), and never shown again;
//! responses carry a SHA-256 digest of it so clients can tell keys apart.

pub use crate::deploy::model::key::{KeyEdit, KeyRecord, parse_edit, parse_new};
use crate::{
    db::{self, Change, Cond, Db, Item, Returns, keys},
    deploy::{
        error::{Error, Object, Result},
        model,
        store::{self, item, quota, secret},
        team::Team,
    },
};

/// The attributes stored sealed.
pub const SECRETS: &[&str] = &["private_key"];

pub fn key_of(team: &Team, uuid: &str) -> Item {
    team.key(&sk(uuid))
}

pub fn sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::SSH_KEY_PREFIX)
}

pub async fn create(db: &Db, team: &Team, key: &KeyRecord) -> Result<()> {
    let mut it = item(team, &sk(&key.uuid), "ssh_key", key)?;
    secret::seal(db, team, &mut it, SECRETS).await?;
    let mut tx = db.tx();
    tx.put_if_absent(it)?;
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

/// The key's PEM text in the clear (for a runner that clones with it).
pub async fn pem(db: &Db, team: &Team, key: &KeyRecord) -> Result<String> {
    secret::open(
        db,
        team,
        &key_of(team, &key.uuid),
        SECRETS[0],
        &key.private_key,
    )
    .await
}

/// PATCH: the key's new text, sealed as a create seals it, and its name
/// and description when sent. Only these attributes are written.
pub async fn update(db: &Db, team: &Team, key: &KeyRecord, edit: KeyEdit) -> Result<()> {
    let k = key_of(team, &key.uuid);
    let mut sealed = k.clone();
    sealed.insert(SECRETS[0].into(), db::s(&edit.private_key));
    secret::seal(db, team, &mut sealed, SECRETS).await?;
    let pem = sealed
        .remove(SECRETS[0])
        .ok_or(Error::Internal("a sealed key went missing"))?;
    let mut change = Change::new()
        .set(SECRETS[0], pem)
        .set("digest", db::s(&edit.digest))
        .set("updated_at", db::s(model::timestamp()));
    if let Some(n) = &edit.name {
        change = change.set("name", db::s(n));
    }
    if let Some(d) = &edit.description {
        change = change.set("description", db::s(d));
    }
    match db
        .change(k, change, Some(Cond::exists()), Returns::Nothing)
        .await
    {
        Ok(_) => Ok(()),
        Err(db::DbError::ConditionFailed) => Err(Error::NotFound(Object::PrivateKey)),
        Err(e) => Err(e.into()),
    }
}
