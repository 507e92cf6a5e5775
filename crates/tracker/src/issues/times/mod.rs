//! Tracked time and stopwatches (Gitea's `issue_tracked_time.go` and
//! `issue_stopwatch.go`), on issues and pull requests alike.
//!
//! A tracked time is written once per listing that shows it (the issue's,
//! the issue's for its user, the repository's, the repository's for its
//! user, and the user's across repositories), each copy the whole record
//! and each listing's count moved in the same transaction, plus a copy
//! under its id (`docs/data-model.md`, "Tracked times"). So every listing
//! is one key range, `since`/`before` included, read strongly consistent.
//! A user holds at most [`MAX_PER_USER_ISSUE`] times on one issue, which
//! bounds a reset; what a deleted issue or repository leaves goes through
//! the stream ([`cleanup`]), and listings pass over times whose issue is
//! gone meanwhile.
//!
//! - model and rules: here (the record, who may track, list and delete;
//!   pure, unit-tested);
//! - operations: [`ops`] (one per route), [`stopwatch`];
//! - store: [`store`] (the transaction, pages, removals);
//! - views: [`views`] (Gitea's `TrackedTime`, `StopWatch`, `AddTimeOption`).

pub mod cleanup;
pub mod ops;
pub mod stopwatch;
pub mod store;
pub mod views;

use serde::{Deserialize, Serialize};

use super::{Error, IssueRecord, Result};
use crate::{
    accounts::{names::fold, principal::Principal},
    db::keys,
    repos::access::{RepoContext, Unit},
};

/// Most times one user keeps on one issue (a reset removes them in a few
/// transactions); past it, adding is refused (422) until some go.
pub const MAX_PER_USER_ISSUE: i64 = 100;

/// Longest time one entry may record: ten years, in seconds.
pub const MAX_SECONDS: i64 = 10 * 366 * 24 * 3600;

/// A tracked time, as every copy of it stores it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeRecord {
    pub id: i64,
    pub repo_id: i64,
    /// The issue's number, and its global id (Gitea's `issue_id`).
    pub index: i64,
    pub issue_id: i64,
    /// Lower-case login of whom the time is for, and as spelt.
    pub user: String,
    pub user_name: String,
    pub user_id: i64,
    /// Seconds.
    pub time: i64,
    /// Unix seconds: when the work was done (the body's `created`, else
    /// when it was recorded).
    pub created: i64,
}

impl TimeRecord {
    /// The listings the time is entered in (partition and tag each); the
    /// first two are the issue's, the first the one a reset reads.
    pub fn listings(&self) -> [(String, String); 5] {
        [
            keys::times_of_issue_user(self.repo_id, self.index, &self.user),
            keys::times_of_issue(self.repo_id, self.index),
            keys::times_of_repo(self.repo_id),
            keys::times_of_repo_user(self.repo_id, &self.user),
            keys::times_of_user(&self.user),
        ]
    }
}

/// Whom a time is for: the caller, or a user a repository admin names.
#[derive(Clone, Debug)]
pub struct Tracker {
    pub login: String,
    pub name: String,
    pub id: i64,
}

impl Tracker {
    pub fn of(p: &Principal) -> Self {
        Tracker {
            login: fold(&p.user.name),
            name: p.user.name.clone(),
            id: p.user.id,
        }
    }
}

/// The seconds of a new time: positive, at most [`MAX_SECONDS`].
pub fn seconds(raw: i64) -> Result<i64> {
    if (1..=MAX_SECONDS).contains(&raw) {
        Ok(raw)
    } else {
        Err(Error::Query {
            field: "time",
            why: format!("must be between 1 and {MAX_SECONDS} seconds (got {raw})"),
        })
    }
}

/// Gitea's `CanUseTimetracker`: the tracker is on (else 400), and when
/// only contributors may track, the caller writes the issue's kind, posted
/// it or is assigned to it (else 403).
pub fn may_track(ctx: &RepoContext, issue: &IssueRecord, me: &str) -> Result<()> {
    if !ctx.repo.enable_time_tracker {
        return Err(Error::TrackerOff);
    }
    let me = fold(me);
    let contributor = ctx.perm.can_write(Unit::for_pull(issue.is_pull))
        || issue.poster == me
        || issue.assignees.contains(&me);
    if ctx.repo.allow_only_contributors_to_track_time && !contributor {
        return Err(Error::MayNotTrack);
    }
    Ok(())
}

/// A stopwatch's checks (Gitea's `prepareIssueStopwatch`): a writer of
/// the issue's kind who may track; both refusals are a bare 403.
pub fn may_time(ctx: &RepoContext, issue: &IssueRecord, me: &str) -> Result<()> {
    if !ctx.perm.can_write(Unit::for_pull(issue.is_pull)) {
        return Err(Error::MayNotTrack);
    }
    may_track(ctx, issue, me).map_err(|_| Error::MayNotTrack)
}

/// Whose times a listing shows (Gitea's `cantSetUser`): site admins and
/// issue writers any user's or everyone's; others only their own, asked
/// for or not (asking for another's is 403).
pub fn whose(ctx: &RepoContext, me: &Principal, asked: Option<String>) -> Result<Option<String>> {
    let mine = fold(&me.user.name);
    let free = me.is_site_admin() || ctx.perm.can_write(Unit::Issues);
    match asked.map(|a| fold(&a)) {
        Some(a) if a == mine || free => Ok(Some(a)),
        Some(_) => Err(Error::QueryByUser),
        None if free => Ok(None),
        None => Ok(Some(mine)),
    }
}

/// Gitea's `DeleteTime`: the time's own user or a site admin.
pub fn may_delete(t: &TimeRecord, me: &Principal) -> Result<()> {
    if me.is_site_admin() || t.user == fold(&me.user.name) {
        Ok(())
    } else {
        Err(Error::NotYourTime)
    }
}

/// `since` / `before` (Unix seconds, both included), here on a time's
/// `created`: the comments' window.
pub use crate::issues::comments::listing::Window;

#[cfg(test)]
mod tests;
