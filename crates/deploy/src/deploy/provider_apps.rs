//! Git-provider apps (Coolify's GitHub apps): the installation a private
//! repository is cloned through. Its client and webhook secrets are stored
//! sealed (`store::secret`) and never shown. It refers to a deploy key, counted on the key.

pub use crate::deploy::model::provider_app::{ProviderAppRecord, parse_new};
use crate::{
    db::{Db, Item, keys},
    deploy::{
        error::{Error, Result},
        model, ssh_keys,
        store::{self, item, quota, secret},
        team::Team,
    },
};

/// The attributes stored sealed.
pub const SECRETS: &[&str] = &["client_secret", "webhook_secret"];

pub fn key_of(team: &Team, uuid: &str) -> Item {
    team.key(&sk(uuid))
}

fn sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::PROVIDER_APP_PREFIX)
}

pub async fn create(db: &Db, team: &Team, app: &ProviderAppRecord) -> Result<()> {
    let mut it = item(team, &sk(&app.uuid), "provider_app", app)?;
    secret::seal(db, team, &mut it, SECRETS).await?;
    let mut tx = db.tx();
    tx.put_if_absent(it)?;
    store::add_ref(&mut tx, ssh_keys::key_of(team, &app.private_key_uuid))?;
    let counted = quota::add(&mut tx, team, quota::Kind::ProviderApps)?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_condition() == Some(1) => {
            Err(Error::field("private_key_uuid", "Private Key not found."))
        }
        Err(e) if e.failed_condition() == Some(counted) => {
            Err(Error::QuotaFull(quota::Kind::ProviderApps.object()))
        }
        Err(e) => Err(e.into()),
    }
}

pub async fn get(db: &Db, team: &Team, uuid: &str) -> Result<Option<ProviderAppRecord>> {
    match model::parse_uuid(uuid) {
        Some(u) => store::get(db, team, &sk(&u)).await,
        None => Ok(None),
    }
}

pub async fn list(db: &Db, team: &Team) -> Result<Vec<ProviderAppRecord>> {
    let mut all: Vec<ProviderAppRecord> =
        store::list(db, team, keys::PROVIDER_APP_PREFIX, "provider_app").await?;
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(all)
}
