//! Stopwatches (Gitea's `issue_stopwatch.go`): at most one runs per user,
//! an item under the user. Starting one while another runs stops the
//! other first (its time is tracked), in the same transaction as the
//! start; stopping tracks the time since the start; deleting drops it.
//! Each write is conditioned on the stopwatch it read, so two concurrent
//! stops track the time once.

use serde::{Deserialize, Serialize};

use super::super::{Error, IssueRecord, Result, ops as issue_ops};
use super::{
    Tracker, may_time, ops,
    store::{self, ADD_ITEMS},
};
use crate::{
    accounts::principal::Principal,
    db::{self, Cond, Db, DbError, keys},
    repos::access::RepoContext,
    time,
};

/// A running stopwatch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopwatch {
    pub repo_id: i64,
    pub index: i64,
    pub issue_id: i64,
    /// Unix seconds it started at.
    pub created: i64,
}

impl Stopwatch {
    fn on(&self, issue: &IssueRecord) -> bool {
        self.repo_id == issue.repo_id && self.index == issue.index
    }

    /// The condition that it is still the one read.
    fn unchanged(&self) -> Cond {
        Cond::eq("created", db::n(self.created))
            .and(Cond::eq("repo_id", db::n(self.repo_id)))
            .and(Cond::eq("index", db::n(self.index)))
    }
}

/// The caller's running stopwatch, if any (strongly consistent).
pub async fn running(db: &Db, user: &str) -> Result<Option<Stopwatch>> {
    Ok(db.get_as(keys::stopwatch(user)).await?)
}

/// The issue in the path and the checks every stopwatch route makes.
async fn prepare(db: &Db, ctx: &RepoContext, me: &Principal, index: i64) -> Result<IssueRecord> {
    let issue = issue_ops::readable(db, ctx, index).await?;
    may_time(ctx, &issue, &me.user.name)?;
    Ok(issue)
}

/// The time a stopwatch tracks when it stops now.
async fn elapsed(db: &Db, sw: &Stopwatch, who: &Tracker) -> Result<super::TimeRecord> {
    let now = time::now();
    let issue = IssueRecord {
        id: sw.issue_id,
        repo_id: sw.repo_id,
        index: sw.index,
        ..IssueRecord::default()
    };
    ops::record(db, &issue, who, (now - sw.created).max(0), now).await
}

/// `POST .../stopwatch/start`: 409 when one runs on this issue already.
pub async fn start(db: &Db, ctx: &RepoContext, me: &Principal, index: i64) -> Result<()> {
    let issue = prepare(db, ctx, me, index).await?;
    let who = Tracker::of(me);
    for attempt in 0..8 {
        let current = running(db, &who.login).await?;
        let sw = Stopwatch {
            repo_id: issue.repo_id,
            index: issue.index,
            issue_id: issue.id,
            created: time::now(),
        };
        let mut item = db::to_item(&sw)?;
        item.extend(keys::stopwatch(&who.login));
        let mut tx = db.tx();
        let stopped = match &current {
            Some(c) if c.on(&issue) => return Err(Error::StopwatchRunning),
            Some(c) => {
                let t = elapsed(db, c, &who).await?;
                store::add_to(&mut tx, &t)?;
                tx.put_when(item.clone(), c.unchanged())?;
                Some(t)
            }
            None => {
                tx.put_if_absent(item.clone())?;
                None
            }
        };
        match (db.transact(tx).await, stopped) {
            (Ok(()), _) => return Ok(()),
            // The other stopwatch's issue is gone: drop that stopwatch.
            (Err(e), Some(_)) if e.failed_condition() == Some(0) => {
                let c = current.as_ref().map(Stopwatch::unchanged);
                match db.put_when(item, c.unwrap_or_else(Cond::absent)).await {
                    Ok(()) => return Ok(()),
                    Err(DbError::ConditionFailed) => store::pause(attempt).await,
                    Err(e) => return Err(e.into()),
                }
            }
            (Err(e), Some(t)) if e.failed_condition() == Some(1) => {
                return Err(store::added_error(e, &t));
            }
            (Err(e), _) if e.failed_condition().is_some() => store::pause(attempt).await,
            (Err(DbError::TransactionConflict), _) => store::pause(attempt).await,
            (Err(e), _) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}

/// `POST .../stopwatch/stop`: tracks the time since the start (409 when
/// none runs on this issue).
pub async fn stop(db: &Db, ctx: &RepoContext, me: &Principal, index: i64) -> Result<()> {
    let issue = prepare(db, ctx, me, index).await?;
    let who = Tracker::of(me);
    for attempt in 0..8 {
        let Some(sw) = running(db, &who.login).await?.filter(|s| s.on(&issue)) else {
            return Err(Error::NoStopwatch);
        };
        let t = elapsed(db, &sw, &who).await?;
        let mut tx = db.tx();
        store::add_to(&mut tx, &t)?;
        tx.delete_when(keys::stopwatch(&who.login), sw.unchanged())?;
        match db.transact(tx).await {
            Ok(()) => return Ok(()),
            // Stopped, deleted or started again meanwhile: read it again.
            Err(e) if e.failed_condition() == Some(ADD_ITEMS) => store::pause(attempt).await,
            Err(DbError::TransactionConflict) => store::pause(attempt).await,
            Err(e) => return Err(store::added_error(e, &t)),
        }
    }
    Err(Error::Busy)
}

/// `DELETE .../stopwatch/delete`: drops it, tracking nothing (409 when
/// none runs on this issue).
pub async fn delete(db: &Db, ctx: &RepoContext, me: &Principal, index: i64) -> Result<()> {
    let issue = prepare(db, ctx, me, index).await?;
    let login = Tracker::of(me).login;
    let Some(sw) = running(db, &login).await?.filter(|s| s.on(&issue)) else {
        return Err(Error::NoStopwatch);
    };
    let mut tx = db.tx();
    tx.delete_when(keys::stopwatch(&login), sw.unchanged())?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_condition().is_some() => Err(Error::NoStopwatch),
        Err(e) => Err(e.into()),
    }
}
