//! Runner credentials: an operator makes one for a server (the secret is
//! shown once; only its SHA-256 is stored, as `RUNNER#<sha256>`, which
//! `auth::identify_runner` reads on every runner call) and may revoke it.
//! Each server lists its runners in the team's partition
//! (`RUNNERS#<server>#<runner>`, holding the hash to revoke by), at most
//! [`MAX_PER_SERVER`], counted in the create's transaction.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::{
    auth::{RUNNER_TOKEN_PREFIX, Runner, token},
    db::{self, Change, Cond, Db, keys},
    deploy::{
        error::{Error, Object, Result},
        model::{self, input::Problems, timestamp},
        store::{self, item},
        team::Team,
    },
};

pub const MAX_PER_SERVER: usize = 20;
const MAX_NAME: usize = 255;

/// How stale `last_seen_at` may grow before a poll writes it again (a
/// write on every poll would double an idle runner's cost).
const SEEN_EVERY_SECS: i64 = 60;

/// A runner as its server lists it.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Listed {
    uuid: String,
    name: String,
    created_at: String,
    token_hash: String,
}

/// The `name` of a new runner (the only field).
pub fn parse_new(body: Map<String, Value>) -> Result<String> {
    let mut problems = Problems::default();
    for k in body.keys().filter(|k| *k != "name") {
        problems.add(k, "This field is not allowed.");
    }
    let name = match body.get("name") {
        None | Some(Value::Null) => {
            problems.add("name", "The name field is required.");
            String::new()
        }
        Some(Value::String(s)) if s.trim().is_empty() => {
            problems.add("name", "The name field is required.");
            String::new()
        }
        Some(Value::String(s)) if s.chars().count() > MAX_NAME => {
            problems.add(
                "name",
                format!("The name field must not be greater than {MAX_NAME} characters."),
            );
            String::new()
        }
        Some(Value::String(s)) => s.trim().to_string(),
        Some(_) => {
            problems.add("name", "The name field must be a string.");
            String::new()
        }
    };
    problems.into_result()?;
    Ok(name)
}

/// Makes a runner credential for `server`; the answer holds the secret,
/// shown this once.
pub async fn create(db: &Db, team: &Team, server: &str, name: String) -> Result<Value> {
    let secret = format!(
        "{RUNNER_TOKEN_PREFIX}{}",
        hex::encode(rand::random::<[u8; 32]>())
    );
    let hash = token::hash(&secret);
    let runner = Runner {
        runner_uuid: model::new_uuid(),
        server_uuid: server.to_string(),
        team: team.name.clone(),
        name,
        created_at: timestamp(),
        last_seen_at: None,
        token_hash: hash.clone(),
    };
    let listed = Listed {
        uuid: runner.runner_uuid.clone(),
        name: runner.name.clone(),
        created_at: runner.created_at.clone(),
        token_hash: hash.clone(),
    };
    let mut tx = db.tx();
    tx.require(team.key(&keys::server_sk(server)))?;
    tx.change(
        team.key(&keys::server_runner_count_sk(server)),
        Change::new().add("n", db::n(1)),
        Some(Cond::below("n", db::n(MAX_PER_SERVER))),
    )?;
    let mut credential = db::to_item(&runner)?;
    credential.extend(keys::runner_token(&hash));
    tx.put_if_absent(credential)?;
    tx.put_if_absent(item(
        team,
        &keys::server_runner_sk(server, &runner.runner_uuid),
        "runner",
        &listed,
    )?)?;
    match db.transact(tx).await {
        Ok(()) => Ok(json!({
            "uuid": runner.runner_uuid,
            "name": runner.name,
            "token": secret,
            "created_at": runner.created_at,
        })),
        Err(e) => match e.failed_condition() {
            Some(0) => Err(Error::NotFound(Object::Server)),
            Some(1) => Err(Error::TooManyRunners(MAX_PER_SERVER)),
            _ => Err(e.into()),
        },
    }
}

/// The server's runners, oldest first, with when each was last seen.
pub async fn list(db: &Db, team: &Team, server: &str) -> Result<Vec<Value>> {
    let mut listed: Vec<Listed> =
        store::list(db, team, &keys::server_runners_prefix(server), "runner").await?;
    listed.sort_by(|a, b| a.created_at.cmp(&b.created_at));
    let found = db
        .batch_get(
            listed
                .iter()
                .map(|l| keys::runner_token(&l.token_hash))
                .collect(),
        )
        .await?;
    let seen = |l: &Listed| {
        found
            .iter()
            .find(|i| db::text(i, "runner_uuid") == l.uuid)
            .map(|i| db::text(i, "last_seen_at").to_string())
            .filter(|s| !s.is_empty())
    };
    Ok(listed
        .iter()
        .map(|l| {
            json!({
                "uuid": l.uuid,
                "name": l.name,
                "created_at": l.created_at,
                "last_seen_at": seen(l),
            })
        })
        .collect())
}

/// The server's runner heard from last: its name and when (`None` when
/// none ever called). A runner's `last_seen_at` moves at most once a
/// minute.
pub async fn last_heard(db: &Db, team: &Team, server: &str) -> Result<Option<(String, String)>> {
    let listed = list(db, team, server).await?;
    Ok(listed
        .iter()
        .filter_map(|r| Some((r["name"].as_str()?, r["last_seen_at"].as_str()?)))
        .max_by(|a, b| a.1.cmp(b.1))
        .map(|(name, at)| (name.to_string(), at.to_string())))
}

/// How long a polling runner may go unheard and still count as alive: its
/// `last_seen_at` moves at most once a minute, and an idle runner claims at
/// least every 30 s.
const ALIVE_SECS: i64 = 3 * 60;

/// Reads a validate's optional body: coolify-cli sends `{"install":
/// bool}` (Coolify installs Docker over SSH; a runner's server has it
/// already, so it changes nothing here). Anything else is refused.
pub fn parse_validate(body: Option<Map<String, Value>>) -> Result<()> {
    let mut problems = Problems::default();
    for (k, v) in body.iter().flatten() {
        match (k.as_str(), v) {
            ("install", Value::Bool(_)) => {}
            ("install", _) => problems.add(k, "The install field must be true or false."),
            _ => problems.add(k, "This field is not allowed."),
        }
    }
    problems.into_result()
}

/// Coolify's validation of a server, answered from what its runners
/// report: this API never connects to a server itself. `is_reachable` is
/// whether one of them called within the last three minutes.
pub async fn validate(db: &Db, team: &Team, server: &str) -> Result<Value> {
    let heard = last_heard(db, team, server).await?;
    let age = heard.as_ref().and_then(|(_, at)| {
        let at = DateTime::parse_from_rfc3339(at).ok()?;
        Some(Utc::now().signed_duration_since(at).num_seconds())
    });
    let reachable = age.is_some_and(|a| a <= ALIVE_SECS);
    let message = match (&heard, reachable) {
        (Some((name, at)), true) => {
            format!("Server is reachable: its runner {name} called at {at}.")
        }
        (Some((name, at)), false) => format!(
            "Server is not reachable: its runner {name} last called at {at}; start a runner on it (docs/deploy-runner.md)."
        ),
        (None, _) => "No runner of this server has been heard from: start one on it with a credential from POST /api/v1/servers/{uuid}/runners (docs/deploy-runner.md).".replace("{uuid}", server),
    };
    Ok(json!({
        "message": message,
        "is_reachable": reachable,
        "runner_last_seen_at": heard.map(|(_, at)| at),
    }))
}

/// Revokes a runner: its next call is refused.
pub async fn revoke(db: &Db, team: &Team, server: &str, runner: &str) -> Result<()> {
    let uuid = model::parse_uuid(runner).ok_or(Error::NotFound(Object::Runner))?;
    let sk = keys::server_runner_sk(server, &uuid);
    let listed: Listed = store::get(db, team, &sk)
        .await?
        .ok_or(Error::NotFound(Object::Runner))?;
    let mut tx = db.tx();
    tx.delete_existing(team.key(&sk))?;
    tx.delete(keys::runner_token(&listed.token_hash))?;
    tx.change(
        team.key(&keys::server_runner_count_sk(server)),
        Change::new().add("n", db::n(-1)),
        None,
    )?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_condition() == Some(0) => Err(Error::NotFound(Object::Runner)),
        Err(e) => Err(e.into()),
    }
}

/// Revokes every runner of a deleted server: their credentials, listing
/// items and count (at most [`MAX_PER_SERVER`] of them).
pub async fn revoke_all(db: &Db, team: &Team, server: &str) -> Result<()> {
    let listed: Vec<Listed> =
        store::list(db, team, &keys::server_runners_prefix(server), "runner").await?;
    let mut gone = vec![team.key(&keys::server_runner_count_sk(server))];
    for l in &listed {
        gone.push(team.key(&keys::server_runner_sk(server, &l.uuid)));
        gone.push(keys::runner_token(&l.token_hash));
    }
    Ok(db.batch_delete(gone).await?)
}

/// Records that `runner` polled, at most once a minute.
pub async fn seen(db: &Db, runner: &Runner) -> Result<()> {
    let now = Utc::now();
    let fresh = runner
        .last_seen_at
        .as_deref()
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .is_some_and(|t| now.signed_duration_since(t).num_seconds() < SEEN_EVERY_SECS);
    if fresh {
        return Ok(());
    }
    let mut tx = db.tx();
    tx.change(
        keys::runner_token(&runner.token_hash),
        Change::new().set("last_seen_at", db::s(timestamp())),
        Some(Cond::exists()),
    )?;
    match db.transact(tx).await {
        // Revoked meanwhile: its next call is refused anyway.
        Ok(()) | Err(db::DbError::Cancelled(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}
