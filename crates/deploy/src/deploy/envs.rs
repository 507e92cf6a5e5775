//! An application's environment variables: create, update by key and
//! scope, bulk upsert, delete, and the values a run needs.
//!
//! Items, in the team's partition:
//! - `ENV#<app>#<env uuid>`: the record, and the value sealed
//!   (`sealed_value`; absent for `null`) with the item's key as context;
//! - `ENVKEY#<app>#<r|p>#<sha256 of key>`: one per key and scope (regular
//!   or preview), put on condition: the second create of a key is the 409;
//! - `ENVS#<app>`: how many variables and value bytes the application
//!   holds, kept within bounds by the condition of every write.
//!
//! Every write is one transaction that also requires the application, so
//! nothing is added to an application being deleted.

use std::collections::HashMap;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{
    db::{self, Cond, Db, DbError, Item, Query, Tx},
    deploy::{
        error::{Error, Object, Result},
        model::{
            self,
            env::{EnvRecord, EnvSpec, MAX_APP_BYTES, MAX_PER_APP},
        },
        store::{app_sk, item},
        team::Team,
    },
    seal::{self, Cipher},
};

/// A variable with its value when the caller may see it.
pub struct Shown {
    pub record: EnvRecord,
    /// `None`: hidden, or `null`.
    pub value: Option<String>,
}

/// What a run receives of a variable.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunEnv {
    pub key: String,
    pub value: String,
    pub is_buildtime: bool,
    pub is_runtime: bool,
    pub is_multiline: bool,
    pub is_literal: bool,
}

const KIND: &str = "env";

fn env_sk(app: &str, uuid: &str) -> String {
    format!("ENV#{app}#{uuid}")
}

fn guard_sk(app: &str, key: &str, preview: bool) -> String {
    let scope = if preview { 'p' } else { 'r' };
    format!(
        "ENVKEY#{app}#{scope}#{}",
        hex::encode(Sha256::digest(key.as_bytes()))
    )
}

fn tally_sk(app: &str) -> String {
    format!("ENVS#{app}")
}

/// Adds `count` variables and `bytes` value bytes to an application's
/// tally, and moves its version: every write of a variable goes through
/// here, so the version tells log masking its values changed.
fn tally(count: i64, bytes: i64) -> db::Change {
    db::Change::new()
        .add("count", db::n(count))
        .add("bytes", db::n(bytes))
        .add("version", db::n(1))
}

/// What moves whenever a variable of `app` is created, changed or
/// deleted: its tally's version and counts, read strongly consistent (one
/// small item). Counts are part of it for tallies a release before the
/// version wrote.
pub async fn stamp(db: &Db, team: &Team, app: &str) -> Result<String> {
    let Some(tally) = db.get(team.key(&tally_sk(app))).await? else {
        return Ok(String::new());
    };
    let n = |name: &str| match tally.get(name) {
        Some(db::Value::N(n)) => n.as_str(),
        _ => "-",
    };
    Ok(format!("{}/{}/{}", n("version"), n("count"), n("bytes")))
}

/// A stored variable: the record and its sealed value.
struct Stored {
    record: EnvRecord,
    sealed: Option<String>,
}

impl Stored {
    fn from_item(mut it: Item) -> Result<Stored> {
        let sealed = match it.remove("sealed_value") {
            Some(db::Value::S(s)) => Some(s),
            _ => None,
        };
        Ok(Stored {
            record: db::from_item(it)?,
            sealed,
        })
    }

    fn open(&self, team: &Team, cipher: &Cipher) -> Result<Option<String>> {
        let Some(sealed) = &self.sealed else {
            return Ok(None);
        };
        let key = team.key(&env_sk(&self.record.application_uuid, &self.record.uuid));
        let plain = cipher
            .open(&seal::context(&key), sealed)
            .map_err(|_| Error::Seal(seal::SealError::Unreadable))?;
        String::from_utf8(plain)
            .map(Some)
            .map_err(|_| Error::Seal(seal::SealError::Unreadable))
    }
}

/// The item of `record` with `value` sealed under `cipher`.
fn to_item(team: &Team, record: &EnvRecord, value: Option<&str>, cipher: &Cipher) -> Result<Item> {
    let sk = env_sk(&record.application_uuid, &record.uuid);
    let mut it = item(team, &sk, KIND, record)?;
    if let Some(v) = value {
        let context = seal::context(&team.key(&sk));
        it.insert(
            "sealed_value".into(),
            db::s(cipher.seal(&context, v.as_bytes())),
        );
    }
    Ok(it)
}

async fn cipher(db: &Db, team: &Team) -> Result<std::sync::Arc<Cipher>> {
    Ok(team.cipher(db).await?)
}

/// Every variable of `app`, regular ones first, each in creation order.
async fn stored(db: &Db, team: &Team, app: &str) -> Result<Vec<Stored>> {
    let variables =
        Query::table(db::keys::deploy_team_pk(&team.name)).prefix(format!("ENV#{app}#"));
    let mut all = db
        .query_all(variables)
        .await?
        .into_iter()
        .map(Stored::from_item)
        .collect::<Result<Vec<_>>>()?;
    all.sort_by(|a, b| {
        (a.record.is_preview, &a.record.created_at, &a.record.uuid).cmp(&(
            b.record.is_preview,
            &b.record.created_at,
            &b.record.uuid,
        ))
    });
    Ok(all)
}

/// Whether a caller sees a value: `read:sensitive` (or `root`), and never
/// a shown-once one.
fn visible(team: &Team, record: &EnvRecord) -> bool {
    team.sensitive && !record.is_shown_once
}

async fn show(db: &Db, team: &Team, all: Vec<Stored>) -> Result<Vec<Shown>> {
    let cipher = if all.iter().any(|s| visible(team, &s.record)) {
        Some(cipher(db, team).await?)
    } else {
        None
    };
    all.into_iter()
        .map(|s| {
            let value = match &cipher {
                Some(c) if visible(team, &s.record) => s.open(team, c)?,
                _ => None,
            };
            Ok(Shown {
                record: s.record,
                value,
            })
        })
        .collect()
}

pub async fn list(db: &Db, team: &Team, app: &str) -> Result<Vec<Shown>> {
    let all = stored(db, team, app).await?;
    show(db, team, all).await
}

/// One change of a variable, as a transaction writes it.
enum Change {
    Create(EnvRecord, Option<String>),
    Update {
        old: EnvRecord,
        new: EnvRecord,
        value: Option<String>,
    },
}

impl Change {
    fn items(&self) -> usize {
        match self {
            Change::Create(..) => 2,
            Change::Update { .. } => 1,
        }
    }

    fn delta(&self) -> (i64, i64) {
        match self {
            Change::Create(r, _) => (1, r.value_bytes as i64),
            Change::Update { old, new, .. } => (0, new.value_bytes as i64 - old.value_bytes as i64),
        }
    }

    fn record(&self) -> (&EnvRecord, Option<&str>) {
        match self {
            Change::Create(r, v) => (r, v.as_deref()),
            Change::Update { new, value, .. } => (new, value.as_deref()),
        }
    }
}

/// Writes `changes` in one transaction: the application must exist, new
/// keys must be free, updated values unchanged since read, and the tally
/// stays within bounds.
async fn write(db: &Db, team: &Team, app: &str, changes: &[Change], cipher: &Cipher) -> Result<()> {
    let (count, bytes) = changes
        .iter()
        .map(Change::delta)
        .fold((0, 0), |(c, b), (dc, db)| (c + dc, b + db));
    if bytes > MAX_APP_BYTES as i64 || count > MAX_PER_APP as i64 {
        return Err(Error::EnvLimits);
    }
    let mut tx: Tx = db.tx();
    tx.require(team.key(&app_sk(app)))?;
    for change in changes {
        let (record, value) = change.record();
        let it = to_item(team, record, value, cipher)?;
        match change {
            Change::Create(..) => {
                tx.put_if_absent(it)?;
                let mut guard = item(
                    team,
                    &guard_sk(app, &record.key, record.is_preview),
                    "envkey",
                    &serde_json::json!({"env_uuid": record.uuid}),
                )?;
                guard.insert("application_uuid".into(), db::s(app));
                tx.put_if_absent(guard)?;
            }
            Change::Update { old, .. } => {
                tx.put_when(
                    it,
                    Cond::exists().and(Cond::eq("updated_at", db::s(&old.updated_at))),
                )?;
            }
        }
    }
    let room = Cond::le("count", db::n(MAX_PER_APP as i64 - count))
        .and(Cond::le("bytes", db::n(MAX_APP_BYTES as i64 - bytes)));
    tx.change(
        team.key(&tally_sk(app)),
        tally(count, bytes),
        Some(Cond::absent().or(room)),
    )?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) => Err(match e.failed_condition() {
            Some(0) => Error::NotFound(Object::Application),
            Some(i) if i == 1 + changes.iter().map(Change::items).sum::<usize>() => {
                Error::EnvLimits
            }
            Some(i) => {
                // Which change's item failed: a taken key, or a value
                // another request changed meanwhile.
                let mut at = 1;
                let mut err = Error::Changed(Object::EnvironmentVariable);
                for c in changes {
                    if (at..at + c.items()).contains(&i) {
                        if let Change::Create(..) = c {
                            err = Error::EnvExists;
                        }
                        break;
                    }
                    at += c.items();
                }
                err
            }
            None => e.into(),
        }),
    }
}

/// Coolify's create: 409 when the key exists in that scope.
pub async fn create(db: &Db, team: &Team, app: &str, spec: EnvSpec) -> Result<EnvRecord> {
    let record = EnvRecord::create(model::new_uuid(), app, &spec, &model::timestamp());
    let cipher = cipher(db, team).await?;
    write(
        db,
        team,
        app,
        &[Change::Create(record.clone(), spec.value)],
        &cipher,
    )
    .await?;
    Ok(record)
}

/// The variable of `key` in its scope, if any.
async fn by_key(
    db: &Db,
    team: &Team,
    app: &str,
    key: &str,
    preview: bool,
) -> Result<Option<Stored>> {
    let Some(guard) = db.get(team.key(&guard_sk(app, key, preview))).await? else {
        return Ok(None);
    };
    let Some(uuid) = guard.get("env_uuid").and_then(|v| v.as_s().ok()) else {
        return Ok(None);
    };
    db.get(team.key(&env_sk(app, uuid)))
        .await?
        .map(Stored::from_item)
        .transpose()
}

/// Coolify's update: matched on key and preview scope (404 when there is
/// none). A concurrent update of the same variable is retried.
pub async fn update(db: &Db, team: &Team, app: &str, spec: EnvSpec) -> Result<Shown> {
    let cipher = cipher(db, team).await?;
    for _ in 0..3 {
        let old = by_key(db, team, app, &spec.key, spec.is_preview)
            .await?
            .ok_or(Error::NotFound(Object::EnvironmentVariable))?;
        let new = old.record.update(&spec, &model::timestamp());
        let change = Change::Update {
            old: old.record,
            new: new.clone(),
            value: spec.value.clone(),
        };
        match write(db, team, app, &[change], &cipher).await {
            Err(Error::Changed(_)) => continue,
            Err(e) => return Err(e),
            Ok(()) => {
                let value = if visible(team, &new) {
                    spec.value.clone()
                } else {
                    None
                };
                return Ok(Shown { record: new, value });
            }
        }
    }
    Err(Error::Changed(Object::EnvironmentVariable))
}

/// Coolify's bulk: each entry updates the variable of its key and scope,
/// or creates it. Entries naming the same key and scope: the last wins.
/// Written in transactions of up to 90 items, in order; each is atomic.
pub async fn bulk(db: &Db, team: &Team, app: &str, specs: Vec<EnvSpec>) -> Result<Vec<Shown>> {
    let mut last: HashMap<(String, bool), usize> = HashMap::new();
    for (i, s) in specs.iter().enumerate() {
        last.insert((s.key.clone(), s.is_preview), i);
    }
    let specs: Vec<EnvSpec> = specs
        .into_iter()
        .enumerate()
        .filter(|(i, s)| last[&(s.key.clone(), s.is_preview)] == *i)
        .map(|(_, s)| s)
        .collect();
    let existing: HashMap<(String, bool), EnvRecord> = stored(db, team, app)
        .await?
        .into_iter()
        .map(|s| ((s.record.key.clone(), s.record.is_preview), s.record))
        .collect();
    let now = model::timestamp();
    let changes: Vec<Change> = specs
        .iter()
        .map(
            |spec| match existing.get(&(spec.key.clone(), spec.is_preview)) {
                Some(old) => Change::Update {
                    old: old.clone(),
                    new: old.update(spec, &now),
                    value: spec.value.clone(),
                },
                None => Change::Create(
                    EnvRecord::create(model::new_uuid(), app, spec, &now),
                    spec.value.clone(),
                ),
            },
        )
        .collect();
    let cipher = cipher(db, team).await?;
    let mut chunk: Vec<Change> = Vec::new();
    let mut shown = Vec::new();
    let limit = db.transaction_limit().saturating_sub(2).min(90);
    for change in changes {
        if chunk.iter().map(Change::items).sum::<usize>() + change.items() > limit {
            write(db, team, app, &chunk, &cipher).await?;
            shown.extend(chunk.drain(..).map(|c| result(team, c)));
        }
        chunk.push(change);
    }
    write(db, team, app, &chunk, &cipher).await?;
    shown.extend(chunk.into_iter().map(|c| result(team, c)));
    Ok(shown)
}

fn result(team: &Team, change: Change) -> Shown {
    let (record, value) = match change {
        Change::Create(r, v) => (r, v),
        Change::Update { new, value, .. } => (new, value),
    };
    let value = if visible(team, &record) { value } else { None };
    Shown { record, value }
}

/// Coolify's delete by the variable's uuid (404 when it is not this
/// application's).
pub async fn delete(db: &Db, team: &Team, app: &str, env: &str) -> Result<()> {
    let not_found = || Error::NotFound(Object::EnvironmentVariable);
    let uuid = model::parse_uuid(env).ok_or_else(not_found)?;
    let stored = db
        .get(team.key(&env_sk(app, &uuid)))
        .await?
        .map(Stored::from_item)
        .transpose()?
        .ok_or_else(not_found)?;
    let r = &stored.record;
    let mut tx = db.tx();
    tx.delete_existing(team.key(&env_sk(app, &uuid)))?;
    tx.delete(team.key(&guard_sk(app, &r.key, r.is_preview)))?;
    tx.change(
        team.key(&tally_sk(app)),
        tally(-1, -(r.value_bytes as i64)),
        None,
    )?;
    match db.transact(tx).await {
        Err(e) if e.failed_condition() == Some(0) => Err(not_found()),
        other => Ok(other?),
    }
}

/// The values a run of `app` gets: the preview scope's for a pull
/// request's deployment, the regular ones otherwise.
pub async fn for_run(db: &Db, team: &Team, app: &str, preview: bool) -> Result<Vec<RunEnv>> {
    let all: Vec<Stored> = stored(db, team, app)
        .await?
        .into_iter()
        .filter(|s| s.record.is_preview == preview)
        .collect();
    if all.is_empty() {
        return Ok(Vec::new());
    }
    let cipher = cipher(db, team).await?;
    all.into_iter()
        .map(|s| {
            let value = s.open(team, &cipher)?.unwrap_or_default();
            let r = s.record;
            Ok(RunEnv {
                key: r.key,
                value,
                is_buildtime: r.is_buildtime,
                is_runtime: r.is_runtime,
                is_multiline: r.is_multiline,
                is_literal: r.is_literal,
            })
        })
        .collect()
}

/// Removes every variable of a deleted application (after its delete
/// committed: any number, not bounded by a transaction). Idempotent, so
/// `check-data` can finish what an interrupted run left.
pub async fn remove_all(db: &Db, team: &Team, app: &str) -> Result<(), DbError> {
    let pk = db::keys::deploy_team_pk(&team.name);
    for prefix in [format!("ENV#{app}#"), format!("ENVKEY#{app}#")] {
        let found = Query::table(&pk)
            .prefix(prefix)
            .consistency(db::Consistency::Eventual);
        db.delete_found(found).await?;
    }
    db.batch_delete(vec![team.key(&tally_sk(app))]).await
}
