//! A runner's claim: the oldest claimable deployment of its server. The
//! claim reads the oldest few entries of the server's queue
//! (`SRVQ#<server>`) and tries them in order, each with one transaction:
//! the deployment `queued` → `in_progress` (naming the runner), the entry
//! deleted (on condition it is there) and the application's run lock put
//! (on condition it is absent), with the `deployment_started` event. Of
//! runners racing for one entry exactly one transaction succeeds; an
//! application with a run in progress keeps its other deployments queued.
//!
//! A lock whose run has ended, or whose runner went silent, is cleared on
//! the way (the silent run is failed), so a dead runner does not stop its
//! application for good.

use chrono::Utc;
use serde_json::{Value, json};

use super::silence;
use crate::{
    Config,
    auth::Runner,
    db::{self, Change, Cond, Db, DbError, Item, Query, keys},
    deploy::{
        apps::{self, AppRecord},
        deployments::{self, DeploymentRecord},
        envs::{self, RunEnv},
        error::{Error, Result},
        lifecycle::{Move, Status, apply},
        model::{app::Source, fields, timestamp},
        team::Team,
    },
    outbox,
};

/// How many of the server's oldest entries one claim reads. An entry of
/// an application found busy is passed over without a try, so one busy
/// application's backlog costs a read, not a transaction per entry.
const TRIES: i32 = 20;

/// Transaction items of a claim, by position.
const LOCK: usize = 2;

/// The job of the oldest claimable deployment of the runner's server, now
/// the runner's; `None` when there is none.
pub async fn claim(
    db: &Db,
    config: &Config,
    runner: &Runner,
    team: &Team,
) -> Result<Option<Value>> {
    let oldest = Query::table(keys::server_queue_pk(&runner.server_uuid)).limit(TRIES);
    let page = db.query_page(oldest).await?;
    let mut busy: Vec<String> = Vec::new();
    for entry in page.items {
        let app = db::text(&entry, "application_uuid");
        // A server is one team's; an entry naming another is no one's.
        if db::text(&entry, "team") != team.name || busy.iter().any(|b| b == app) {
            continue;
        }
        match try_entry(db, config, team, runner, &entry).await? {
            Tried::Claimed(job) => return Ok(Some(*job)),
            Tried::Busy => busy.push(app.to_string()),
            Tried::Passed => {}
        }
    }
    Ok(None)
}

/// What one entry's try came to.
enum Tried {
    Claimed(Box<Value>),
    /// Its application has a run in progress.
    Busy,
    /// Taken by another runner, cancelled, or stale.
    Passed,
}

/// Tries to claim the deployment of one queue entry.
async fn try_entry(
    db: &Db,
    config: &Config,
    team: &Team,
    runner: &Runner,
    entry: &Item,
) -> Result<Tried> {
    let entry_key = keys::key(db::text(entry, "pk"), db::text(entry, "sk"));
    let uuid = db::text(entry, "deployment_uuid");
    // A second try once a stale lock is cleared.
    for _ in 0..2 {
        let (d, app) = futures::join!(
            deployments::get(db, team, uuid),
            apps::get(db, team, db::text(entry, "application_uuid")),
        );
        let d = match d? {
            Some(d) if d.state()? == Status::Queued => d,
            // Cancelled or claimed without its entry going (older code):
            // the entry is stale.
            _ => {
                drop_entry(db, entry_key).await?;
                return Ok(Tried::Passed);
            }
        };
        let app = match app {
            Ok(app) => app,
            // Its application was deleted: the delete cancels it.
            Err(Error::NotFound(_)) => {
                deployments::cancel_at(db, deployments::key_of(team, uuid)).await?;
                drop_entry(db, entry_key).await?;
                return Ok(Tried::Passed);
            }
            Err(e) => return Err(e),
        };
        // Opened before the claim: if they cannot be, nothing is claimed.
        let env = envs::for_run(db, team, &app.uuid, d.pull_request_id != 0).await?;
        let to = apply(Status::Queued, Move::Claim)?;
        let now = timestamp();
        let mut tx = db.tx();
        tx.change(
            deployments::key_of(team, uuid),
            Change::new()
                .set("status", db::s(to.as_str()))
                .set("runner_uuid", db::s(&runner.runner_uuid))
                .set("heartbeat_at", db::s(&now))
                .set("started_at", db::s(&now))
                .set("updated_at", db::s(&now)),
            Some(Cond::eq("status", db::s(Status::Queued.as_str()))),
        )?;
        tx.delete_existing(entry_key.clone())?;
        let mut lock = team.key(&keys::run_lock_sk(&app.uuid));
        lock.insert("kind".into(), db::s("run_lock"));
        lock.insert("deployment_uuid".into(), db::s(uuid));
        lock.insert("application_uuid".into(), db::s(&app.uuid));
        lock.insert("team".into(), db::s(&team.name));
        let filed = silence::filing(&team.name, &app.uuid, Utc::now(), config.runner_silence);
        lock.extend(filed);
        tx.put_if_absent(lock)?;
        let after = DeploymentRecord {
            status: to.as_str().into(),
            runner_uuid: Some(runner.runner_uuid.clone()),
            heartbeat_at: Some(now.clone()),
            started_at: Some(now.clone()),
            updated_at: now,
            ..d
        };
        tx.put(deployments::event(
            db,
            team,
            outbox::DEPLOYMENT_STARTED,
            &after,
        )?)?;
        match db.transact(tx).await {
            Ok(()) => return Ok(Tried::Claimed(Box::new(job(&after, &app, &env)))),
            Err(e) if e.failed_condition() == Some(LOCK) => {
                if !clear_stale_lock(db, config, team, &app.uuid).await? {
                    return Ok(Tried::Busy);
                }
            }
            // Another runner took it, or it was cancelled meanwhile.
            Err(DbError::Cancelled(_) | DbError::TransactionConflict) => return Ok(Tried::Passed),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(Tried::Passed)
}

/// Removes a queue entry that names nothing claimable.
async fn drop_entry(db: &Db, key: Item) -> Result<()> {
    let mut tx = db.tx();
    tx.delete(key)?;
    Ok(db.transact(tx).await?)
}

/// Clears the run lock of `app` if its run has ended or its runner went
/// silent (failing that run). Whether the lock is gone.
async fn clear_stale_lock(db: &Db, config: &Config, team: &Team, app: &str) -> Result<bool> {
    let lock_key = team.key(&keys::run_lock_sk(app));
    let Some(lock) = db.get(lock_key).await? else {
        return Ok(true);
    };
    let holder = db::text(&lock, "deployment_uuid").to_string();
    let held = match deployments::get(db, team, &holder).await? {
        Some(h) => super::settle_if_silent(db, config, team, h)
            .await?
            .is_held(),
        None => false,
    };
    if held {
        return Ok(false);
    }
    // Ended without letting go (written by older code, or a delete's
    // cancel): the lock names a run that is over.
    silence::drop_stale(db, team, app, &holder).await
}

/// What a runner needs to carry out `d`: the wire shape of
/// docs/deploy-runner.md. Fields that do not apply are `null`; the
/// Dockerfile and compose file are the stored, decoded text; `env` holds
/// the variables of the run's scope (a pull request's are the preview
/// ones), opened for this answer alone.
pub fn job(d: &DeploymentRecord, app: &AppRecord, env: &[RunEnv]) -> Value {
    let setting = |name: &str| -> Value {
        match app.settings.get(name) {
            Some(Value::String(s)) if s.is_empty() => Value::Null,
            Some(v) => v.clone(),
            None => match fields::unset(name) {
                Value::String(s) if s.is_empty() => Value::Null,
                v => v,
            },
        }
    };
    let only = |applies: bool, name: &str| if applies { setting(name) } else { Value::Null };
    let git = app.source.is_git();
    let image = app.source == Source::DockerImage;
    let domains: Vec<&str> = app
        .fqdn
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    json!({
        "deployment_uuid": d.deployment_uuid,
        "application_uuid": app.uuid,
        "application_name": app.name,
        "action": d.action.as_str(),
        "force_rebuild": d.force_rebuild,
        "build_pack": app.build_pack,
        "container_name": app.uuid,
        "git_repository": only(git, "git_repository"),
        "git_branch": only(git, "git_branch"),
        "git_commit_sha": if git { Value::from(d.commit.clone()) } else { Value::Null },
        "base_directory": only(git, "base_directory"),
        "dockerfile_location": only(git, "dockerfile_location"),
        "docker_registry_image_name": only(image, "docker_registry_image_name"),
        "docker_registry_image_tag": only(image, "docker_registry_image_tag"),
        "dockerfile": only(app.build_pack == "dockerfile", "dockerfile"),
        "docker_compose_raw": only(app.build_pack == "dockercompose", "docker_compose_raw"),
        "ports_exposes": setting("ports_exposes"),
        "ports_mappings": setting("ports_mappings"),
        "domains": domains,
        "env": env,
        "docker_cleanup": d.docker_cleanup,
        "heartbeat_seconds": super::HEARTBEAT_SECS,
        "timeout_seconds": super::TIMEOUT_SECS,
    })
}
