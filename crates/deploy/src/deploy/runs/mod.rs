//! Deployments as their runner moves them: claim (`claim`), heartbeat,
//! logs (`logs`) and end, and the failing of a run whose runner went
//! silent. A runner acts only on its server's deployments; another
//! server's are not found. Every move is one transaction conditional on
//! the state it was decided from, which also releases the application's
//! run lock (`RUNNING#<app>`) when the runner lets go.

pub mod claim;
pub mod logs;
pub mod mask;
pub mod silence;

use chrono::{DateTime, Utc};

use crate::{
    Config,
    auth::Runner,
    db::{self, Change, Cond, Db, Returns, Tx, keys},
    deploy::{
        deployments::{self, DeploymentRecord},
        error::{Error, Object, Result},
        lifecycle::{self, Move, Status},
        model::timestamp,
        team::Team,
    },
    outbox,
};

/// How often a runner is told to heartbeat, and the longest a run may
/// take (the runner enforces it).
pub const HEARTBEAT_SECS: u64 = 30;
pub const TIMEOUT_SECS: u64 = 3600;

/// Whether `d` is held by a runner whose last sign of life is older than
/// `silence` at `now`.
pub fn is_silent(d: &DeploymentRecord, silence: std::time::Duration, now: DateTime<Utc>) -> bool {
    if !d.is_held() {
        return false;
    }
    match (last_sign_of_life(d), chrono::Duration::from_std(silence)) {
        (Some(last), Ok(silence)) => now.signed_duration_since(last) > silence,
        // A held run without a readable time cannot be judged alive.
        _ => true,
    }
}

/// When `d`'s runner last said it was alive: its last heartbeat, or the
/// claim.
pub fn last_sign_of_life(d: &DeploymentRecord) -> Option<DateTime<Utc>> {
    d.heartbeat_at
        .as_deref()
        .or(d.started_at.as_deref())
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// A user's cancel: a queued deployment leaves its server's queue; a
/// running one stays its runner's, which sees the cancel at its next
/// heartbeat and stops it. One that has ended is Coolify's 400 naming its
/// status.
pub async fn cancel(db: &Db, config: &Config, team: &Team, uuid: &str) -> Result<DeploymentRecord> {
    for _ in 0..3 {
        let d = deployments::find(db, team, uuid).await?;
        let d = settle_if_silent(db, config, team, d).await?;
        let from = d.state()?;
        let to = lifecycle::apply(from, Move::Cancel).map_err(|_| Error::NotCancellable {
            status: from.as_str(),
        })?;
        let mut tx = db.tx();
        let now = timestamp();
        tx.change(
            deployments::key_of(team, &d.deployment_uuid),
            deployments::leaving_queue(to, &now),
            Some(Cond::eq("status", db::s(from.as_str()))),
        )?;
        if from == Status::Queued {
            tx.delete(d.queue_entry())?;
        }
        let after = DeploymentRecord {
            status: to.as_str().into(),
            updated_at: now,
            ..d
        };
        tx.put(deployments::event(
            db,
            team,
            outbox::DEPLOYMENT_CANCELLED,
            &after,
        )?)?;
        match db.transact(tx).await {
            Ok(()) => return Ok(after),
            // Moved meanwhile (claimed, ended): judge it again.
            Err(e) if e.failed_condition() == Some(0) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy("the deployment keeps changing; retry"))
}

/// `d` as it stands once a silent runner's run is failed.
pub async fn settle_if_silent(
    db: &Db,
    config: &Config,
    team: &Team,
    d: DeploymentRecord,
) -> Result<DeploymentRecord> {
    if !is_silent(&d, config.runner_silence, Utc::now()) {
        return Ok(d);
    }
    let why = format!(
        "The runner sent no heartbeat for over {} seconds; the deployment failed.",
        config.runner_silence.as_secs()
    );
    let after = let_go(db, team, &d, Move::Fail, Some(&why)).await?;
    match after {
        Some(after) => Ok(after),
        // Moved meanwhile: read what it became.
        None => deployments::find(db, team, &d.deployment_uuid).await,
    }
}

/// The runner lets go of `d` (an end, or found silent): `m` moves a
/// running deployment (a cancelled one stays cancelled), the run lock
/// goes, an optional last log line says why, and the change is an event.
/// `None` when `d` changed since it was read.
async fn let_go(
    db: &Db,
    team: &Team,
    d: &DeploymentRecord,
    m: Move,
    note: Option<&str>,
) -> Result<Option<DeploymentRecord>> {
    let from = d.state()?;
    let to = match from {
        Status::Cancelled => Status::Cancelled,
        _ => lifecycle::apply(from, m)?,
    };
    let now = timestamp();
    let mut tx = db.tx();
    let seen = d.heartbeat_at.clone().unwrap_or_default();
    let (lines, bytes) = match note {
        Some(n) => (d.log_lines + 1, d.log_bytes + logs::size_of(n)),
        None => (d.log_lines, d.log_bytes),
    };
    let unchanged = Cond::eq("status", db::s(from.as_str()))
        .and(Cond::eq(
            "runner_uuid",
            db::s(d.runner_uuid.as_deref().unwrap_or_default()),
        ))
        .and(Cond::lacks("ended_at"))
        .and(Cond::unset_or_eq("heartbeat_at", db::s(&seen)))
        .and(Cond::unset_or_eq("log_lines", db::n(d.log_lines)));
    tx.change(
        deployments::key_of(team, &d.deployment_uuid),
        deployments::leaving_queue(to, &now)
            .set("ended_at", db::s(&now))
            .set("log_lines", db::n(lines))
            .set("log_bytes", db::n(bytes)),
        Some(unchanged),
    )?;
    release_lock(&mut tx, team, d)?;
    if let Some(n) = note {
        tx.put(logs::line_item(
            &d.deployment_uuid,
            d.log_lines,
            n,
            "stderr",
            false,
        ))?;
    }
    let after = DeploymentRecord {
        status: to.as_str().into(),
        updated_at: now.clone(),
        ended_at: Some(now),
        log_lines: lines,
        log_bytes: bytes,
        ..d.clone()
    };
    let what = match to {
        Status::Finished => outbox::DEPLOYMENT_FINISHED,
        Status::Cancelled => outbox::DEPLOYMENT_CANCELLED,
        _ => outbox::DEPLOYMENT_FAILED,
    };
    // A cancelled run's event was put by the cancel.
    if to != Status::Cancelled {
        tx.put(deployments::event(db, team, what, &after)?)?;
    }
    match db.transact(tx).await {
        Ok(()) => Ok(Some(after)),
        Err(e) if e.failed_condition() == Some(0) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Deletes the run lock of `d`'s application if it names `d`.
fn release_lock(tx: &mut Tx, team: &Team, d: &DeploymentRecord) -> Result<()> {
    tx.delete_when(
        team.key(&keys::run_lock_sk(&d.application_uuid)),
        Cond::absent().or(Cond::eq("deployment_uuid", db::s(&d.deployment_uuid))),
    )?;
    Ok(())
}

/// One of the runner's server's deployments, which must still be this
/// runner's to run; another server's is not found.
pub async fn held(
    db: &Db,
    config: &Config,
    team: &Team,
    runner: &Runner,
    uuid: &str,
) -> Result<DeploymentRecord> {
    let d = deployments::get(db, team, uuid)
        .await?
        .filter(|d| d.server_uuid == runner.server_uuid)
        .ok_or(Error::NotFound(Object::Deployment))?;
    let d = settle_if_silent(db, config, team, d).await?;
    if d.runner_uuid.as_deref() != Some(runner.runner_uuid.as_str()) || !d.is_held() {
        return Err(Error::NotRunning { status: d.status });
    }
    Ok(d)
}

/// A heartbeat: the run is alive. Answers whether a cancel was asked for.
pub async fn heartbeat(
    db: &Db,
    config: &Config,
    team: &Team,
    runner: &Runner,
    uuid: &str,
) -> Result<bool> {
    let d = held(db, config, team, runner, uuid).await?;
    let beat = db
        .change(
            deployments::key_of(team, &d.deployment_uuid),
            Change::new().set("heartbeat_at", db::s(timestamp())),
            Some(Cond::eq("runner_uuid", db::s(&runner.runner_uuid)).and(Cond::lacks("ended_at"))),
            Returns::Nothing,
        )
        .await;
    match beat {
        Ok(_) => Ok(d.state()? == Status::Cancelled),
        Err(db::DbError::ConditionFailed) => {
            let now = deployments::find(db, team, uuid).await?;
            Err(Error::NotRunning { status: now.status })
        }
        Err(e) => Err(e.into()),
    }
}

/// How a runner says a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Finished,
    Failed,
}

/// The `{status: finished or failed, error?}` of an end.
pub fn parse_end(
    body: &serde_json::Map<String, serde_json::Value>,
) -> Result<(Outcome, Option<String>)> {
    use serde_json::Value;
    let mut problems = crate::deploy::model::input::Problems::default();
    for k in body
        .keys()
        .filter(|k| !["status", "error"].contains(&k.as_str()))
    {
        problems.add(k, "This field is not allowed.");
    }
    let outcome = match body.get("status").and_then(Value::as_str) {
        Some("finished") => Some(Outcome::Finished),
        Some("failed") => Some(Outcome::Failed),
        _ => {
            problems.add("status", "The status must be finished or failed.");
            None
        }
    };
    let error = match body.get("error") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            problems.add("error", "The error field must be a string.");
            None
        }
    };
    problems.into_result()?;
    outcome.map(|o| (o, error)).ok_or(Error::Internal(
        "an end without its status passed its checks",
    ))
}

/// The end of a run: finished or failed (a cancelled one stays
/// cancelled); the answer is the final status.
pub async fn end(
    db: &Db,
    config: &Config,
    team: &Team,
    runner: &Runner,
    uuid: &str,
    outcome: Outcome,
    error: Option<&str>,
) -> Result<DeploymentRecord> {
    for _ in 0..3 {
        let d = held(db, config, team, runner, uuid).await?;
        let m = match outcome {
            Outcome::Finished => Move::Finish,
            Outcome::Failed => Move::Fail,
        };
        let needles = mask::for_run(db, team, &d.application_uuid, d.pull_request_id != 0).await?;
        let note =
            error.map(|e| logs::clip(&mask::mask(&format!("Deployment failed: {e}"), &needles)));
        let room = d.log_lines < logs::MAX_LINES;
        if let Some(after) = let_go(db, team, &d, m, note.as_deref().filter(|_| room)).await? {
            return Ok(after);
        }
    }
    Err(Error::Busy("the deployment keeps changing; retry"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::deployments::Action;

    fn held_since(heartbeat: Option<&str>, started: Option<&str>) -> DeploymentRecord {
        DeploymentRecord {
            deployment_uuid: "d".into(),
            application_uuid: "a".into(),
            application_name: String::new(),
            server_uuid: "s".into(),
            destination_uuid: "x".into(),
            status: "in_progress".into(),
            commit: String::new(),
            force_rebuild: false,
            is_api: true,
            pull_request_id: 0,
            rollback: false,
            restart_only: false,
            deployment_url: String::new(),
            created_at: String::new(),
            updated_at: String::new(),
            action: Action::Deploy,
            docker_cleanup: None,
            runner_uuid: Some("r".into()),
            heartbeat_at: heartbeat.map(Into::into),
            started_at: started.map(Into::into),
            ended_at: None,
            log_lines: 0,
            log_bytes: 0,
        }
    }

    #[test]
    fn ends_say_finished_or_failed() {
        let body = |v: serde_json::Value| v.as_object().unwrap().clone();
        assert_eq!(
            parse_end(&body(
                serde_json::json!({"status": "failed", "error": "exit 1"})
            ))
            .unwrap(),
            (Outcome::Failed, Some("exit 1".into()))
        );
        assert_eq!(
            parse_end(&body(serde_json::json!({"status": "finished"}))).unwrap(),
            (Outcome::Finished, None)
        );
        for (v, field) in [
            (serde_json::json!({"status": "done"}), "status"),
            (serde_json::json!({}), "status"),
            (serde_json::json!({"status": "failed", "error": 1}), "error"),
            (serde_json::json!({"status": "failed", "x": 1}), "x"),
        ] {
            match parse_end(&body(v.clone())) {
                Err(Error::Invalid(f)) => assert!(f.contains_key(field), "{v}"),
                other => panic!("{v}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_run_is_silent_after_its_last_sign_of_life_plus_the_silence() {
        let now: DateTime<Utc> = "2026-01-01T00:02:00Z".parse().unwrap();
        let silence = std::time::Duration::from_secs(90);
        let rows = [
            (Some("2026-01-01T00:01:00.000000Z"), None, false),
            (Some("2026-01-01T00:00:29.000000Z"), None, true),
            (None, Some("2026-01-01T00:01:30.000000Z"), false),
            (None, Some("2026-01-01T00:00:00.000000Z"), true),
            (None, None, true),
        ];
        for (beat, started, silent) in rows {
            let d = held_since(beat, started);
            assert_eq!(is_silent(&d, silence, now), silent, "{beat:?} {started:?}");
        }
        let ended = DeploymentRecord {
            ended_at: Some("2026-01-01T00:00:00Z".into()),
            ..held_since(None, None)
        };
        assert!(!is_silent(&ended, silence, now), "an ended run is not held");
        let queued = DeploymentRecord {
            runner_uuid: None,
            ..held_since(None, None)
        };
        assert!(
            !is_silent(&queued, silence, now),
            "a queued run is not held"
        );
    }
}
