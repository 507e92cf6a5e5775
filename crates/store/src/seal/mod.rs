//! Secrets at rest, by envelope encryption: environment variable values,
//! deploy-key PEMs and provider-app secrets are stored sealed.
//!
//! Each deploy team has one data key (AES-256), created on first use and
//! stored wrapped by the master key ([`master`]: KMS on AWS, a key file
//! locally) in the team's partition (`SEALKEY`). Values are sealed under
//! it with AES-256-GCM ([`cipher`]), with the item's key as associated
//! data. A warm function keeps unwrapped data keys for a few minutes, so
//! KMS is called about once per team per instance, not once per value.

mod cipher;
mod master;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};

pub use cipher::{Cipher, Unreadable, is_sealed};
pub use master::Master;

use base::{Config, config::SecretsKey};

use crate::db::{self, Db, DbError, keys};

/// How long an unwrapped data key is kept, and how many are.
const KEEP: Duration = Duration::from_secs(300);
const KEPT: usize = 64;

const KEY_SK: &str = "SEALKEY";

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("no secrets key is configured (SECRETS_KMS_KEY_ID or SECRETS_KEY_FILE)")]
    NotConfigured,
    #[error("KMS: {0}")]
    Kms(String),
    #[error("a stored secret or data key does not open under this master key")]
    Unreadable,
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The stored, wrapped data key of a team.
#[derive(Serialize, Deserialize)]
struct KeyItem {
    wrapped: String,
    /// `kms` or `local`: which master wrapped it.
    master: String,
    created_at: String,
}

/// Seals and opens values for teams; one per process.
pub struct Sealer {
    master: Option<Master>,
    kept: Mutex<HashMap<String, (Instant, Arc<Cipher>)>>,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("master", &self.master.as_ref().map(Master::kind))
            .finish()
    }
}

impl Sealer {
    pub fn new(master: Option<Master>) -> Sealer {
        Sealer {
            master,
            kept: Mutex::default(),
        }
    }

    /// The process's sealer. A key file that cannot be read leaves it
    /// without a master key: requests that need one fail (and log why),
    /// the rest work.
    pub fn from_config(config: &Config, sdk: Option<&aws_config::SdkConfig>) -> Sealer {
        let master = match &config.secrets_key {
            None => None,
            Some(SecretsKey::Kms(id)) => sdk.map(|sdk| Master::Kms {
                client: aws_sdk_kms::Client::new(sdk),
                key_id: id.clone(),
            }),
            Some(SecretsKey::File(path)) => {
                match std::fs::read_to_string(path)
                    .map_err(|e| e.to_string())
                    .and_then(|t| Master::local(&t))
                {
                    Ok(m) => Some(m),
                    Err(e) => {
                        tracing::error!(path, error = %e, "SECRETS_KEY_FILE is unreadable");
                        None
                    }
                }
            }
        };
        Sealer::new(master)
    }

    /// The team's cipher: kept, or read (and unwrapped), or made.
    pub async fn team(&self, db: &Db, team: &str) -> Result<Arc<Cipher>, SealError> {
        let master = self.master.as_ref().ok_or(SealError::NotConfigured)?;
        if let Some(c) = self.kept(team) {
            return Ok(c);
        }
        let key = keys::deploy(team, KEY_SK);
        let plain = match db.get_as::<KeyItem>(key.clone()).await? {
            Some(stored) => Self::unwrap(master, team, &stored).await?,
            None => {
                let fresh = master.generate(team).await?;
                let mut item = key.clone();
                item.extend(db::to_item(&KeyItem {
                    wrapped: fresh.wrapped,
                    master: master.kind().into(),
                    created_at: chrono::Utc::now().to_rfc3339(),
                })?);
                let put = db
                    .put(|p| {
                        p.set_item(Some(item))
                            .condition_expression("attribute_not_exists(pk)")
                    })
                    .await;
                match put {
                    Ok(()) => fresh.plain,
                    // Another request made the team's key first: use it.
                    Err(DbError::ConditionFailed) => {
                        let stored = db
                            .get_as::<KeyItem>(key)
                            .await?
                            .ok_or(SealError::Unreadable)?;
                        Self::unwrap(master, team, &stored).await?
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        };
        let cipher = Arc::new(Cipher::new(&plain));
        self.keep(team, cipher.clone());
        Ok(cipher)
    }

    async fn unwrap(master: &Master, team: &str, stored: &KeyItem) -> Result<[u8; 32], SealError> {
        if stored.master != master.kind() {
            return Err(SealError::Unreadable);
        }
        master.unwrap(team, &stored.wrapped).await
    }

    fn kept(&self, team: &str) -> Option<Arc<Cipher>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.get(team)
            .filter(|(at, _)| at.elapsed() < KEEP)
            .map(|(_, c)| c.clone())
    }

    fn keep(&self, team: &str, cipher: Arc<Cipher>) {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() >= KEPT {
            kept.retain(|_, (at, _)| at.elapsed() < KEEP);
            if kept.len() >= KEPT {
                kept.clear();
            }
        }
        kept.insert(team.to_string(), (Instant::now(), cipher));
    }
}

/// The associated data of a value stored in an item: the item's key.
pub fn context(key: &db::Item) -> String {
    let part = |name: &str| {
        key.get(name)
            .and_then(|v| v.as_s().ok())
            .map(String::as_str)
    };
    format!("{}|{}", part("pk").unwrap_or(""), part("sk").unwrap_or(""))
}
