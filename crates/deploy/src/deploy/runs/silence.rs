//! Runs whose runner went silent fail on their own, without a reader
//! writing (reads do not write). While a run is in progress its
//! application holds a run lock (`RUNNING#<app>`), filed by due time in
//! gsi1 (`RUNDUE`): the run's last sign of life plus the silence. A
//! scheduled run of the stream function (every minute on AWS, every second
//! under the local pump) reads what is due, a bounded number, and for each
//! lock fails a silent run, files a live one again at its next due time,
//! or drops a lock whose run is over. A runner's own calls and a claim
//! meeting the lock still settle a silent run at once (they write anyway).

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::{
    Config,
    db::{self, Change, Cond, Db, Item, Query, Range, Returns, keys, table},
    deploy::{deployments, error::Result, team::Team},
    seal::Sealer,
    time,
};

/// Where run locks are filed by due time (gsi1).
pub const DUE_PK: &str = "RUNDUE";

/// Locks handled per run of the sweeper: a run costs at most this many
/// reads and writes, whatever the number of runs (the rest waits a
/// minute).
pub const MOST: i32 = 50;

/// What one sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Swept {
    pub due: usize,
    /// Runs failed as silent.
    pub failed: usize,
    /// Live runs filed again.
    pub refiled: usize,
    /// Locks of runs already over, dropped.
    pub dropped: usize,
}

/// The lock's filing: due when the silence after `last` (the run's last
/// sign of life) has passed, with a second's margin so a run found alive
/// at its due time is not read again at once.
pub fn filing(
    team: &str,
    app: &str,
    last: DateTime<Utc>,
    silence: Duration,
) -> Vec<(String, db::Value)> {
    let due = last.timestamp_millis() + silence.as_millis() as i64 + 1000;
    let index = table::INDEXES[0];
    vec![
        (index.pk.to_string(), db::s(DUE_PK)),
        (
            index.sk.to_string(),
            db::s(format!("{due:013}#{team}#{app}")),
        ),
    ]
}

/// Handles the run locks due by now.
pub async fn sweep(db: &Db, config: &Config, sealer: &Arc<Sealer>) -> Result<Swept> {
    let index = table::INDEXES[0];
    let upto = format!("{:013}#~", time::now_ms());
    let due = Query::index(index, DUE_PK)
        .range(Range::AtMost(upto))
        .limit(MOST);
    let mut out = Swept::default();
    let mut first_error = None;
    for lock in db.query_page(due).await?.items {
        out.due += 1;
        let team = Team::of_runner(db::text(&lock, "team"), sealer.clone());
        // One lock that fails stays due and is tried again next run; the
        // locks filed after it still get their turn now.
        match settle(db, config, &team, &lock).await {
            Ok(Settled::Failed) => out.failed += 1,
            Ok(Settled::Refiled) => out.refiled += 1,
            Ok(Settled::Dropped) => out.dropped += 1,
            Ok(Settled::Moved) => {}
            Err(e) => {
                tracing::warn!(error = %e, lock = db::text(&lock, "sk"), "a run lock could not be settled; it stays due");
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

enum Settled {
    Failed,
    Refiled,
    Dropped,
    /// Changed since it was read: the next sweep sees it as it is.
    Moved,
}

async fn settle(db: &Db, config: &Config, team: &Team, lock: &Item) -> Result<Settled> {
    let holder = db::text(lock, "deployment_uuid");
    let app = db::text(lock, "application_uuid");
    let Some(d) = deployments::get(db, team, holder).await? else {
        return Ok(drop_stale(db, team, app, holder).await?.into());
    };
    if !d.is_held() {
        return Ok(drop_stale(db, team, app, holder).await?.into());
    }
    if super::is_silent(&d, config.runner_silence, Utc::now()) {
        let after = super::settle_if_silent(db, config, team, d).await?;
        return Ok(match after.is_held() {
            true => Settled::Moved,
            false => Settled::Failed,
        });
    }
    let Some(last) = super::last_sign_of_life(&d) else {
        return Ok(Settled::Moved);
    };
    let mut change = Change::new();
    for (name, value) in filing(&team.name, app, last, config.runner_silence) {
        change = change.set(&name, value);
    }
    let was = db::text(lock, table::INDEXES[0].sk);
    match db
        .change(
            team.key(&keys::run_lock_sk(app)),
            change,
            Some(Cond::eq(table::INDEXES[0].sk, db::s(was))),
            Returns::Nothing,
        )
        .await
    {
        Ok(_) => Ok(Settled::Refiled),
        Err(db::DbError::ConditionFailed) => Ok(Settled::Moved),
        Err(e) => Err(e.into()),
    }
}

impl From<bool> for Settled {
    fn from(dropped: bool) -> Self {
        if dropped {
            Settled::Dropped
        } else {
            Settled::Moved
        }
    }
}

/// Deletes the run lock of `app` if it still names `holder`, a run that
/// is over (or gone). Whether the lock is gone.
pub async fn drop_stale(db: &Db, team: &Team, app: &str, holder: &str) -> Result<bool> {
    let mut tx = db.tx();
    tx.delete_when(
        team.key(&keys::run_lock_sk(app)),
        Cond::absent().or(Cond::eq("deployment_uuid", db::s(holder))),
    )?;
    match db.transact(tx).await {
        Ok(()) => Ok(true),
        Err(e) if e.failed_condition().is_some() => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_is_due_a_second_after_the_silence_that_follows_the_last_sign_of_life() {
        let last = DateTime::parse_from_rfc3339("2026-11-28T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let filed = filing("acme", "app-1", last, Duration::from_secs(90));
        let due = last.timestamp_millis() + 91_000;
        assert_eq!(filed[0], ("gsi1pk".to_string(), db::s(DUE_PK)));
        assert_eq!(
            filed[1],
            ("gsi1sk".to_string(), db::s(format!("{due:013}#acme#app-1")))
        );
        // Due times sort as numbers: they are 13 digits until the year 2286.
        assert_eq!(format!("{due:013}").len(), 13);
    }
}
