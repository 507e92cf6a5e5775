//! The tracked-time operations, one per route, in Gitea's order of
//! checks (`routers/api/v1/repo/issue_tracked_time.go`).

use super::super::{Error, IssueRecord, Result, ops as issue_ops, params};
use super::{
    TimeRecord, Tracker, Window, may_delete, may_track, seconds,
    store::{self, Listed},
    whose,
};
use crate::{
    accounts::{names::fold, principal::Principal, users},
    db::{Db, keys},
    page::Page,
    repos::access::{RepoContext, Unit},
    time,
};

/// `since` and `before` of a listing's query (RFC 3339; else 422).
pub fn window(q: params::Params) -> Result<Window> {
    Ok(Window {
        since: params::instant(q, "since")?,
        before: params::instant(q, "before")?,
    })
}

/// The `user` a listing names, if it exists (404 otherwise).
async fn named_user(db: &Db, asked: Option<&str>) -> Result<Option<String>> {
    let Some(name) = asked.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(None);
    };
    match users::get(db, name).await? {
        Some(u) if !u.is_org() => Ok(Some(u.name)),
        _ => Err(Error::NoSuchUser(name.to_string())),
    }
}

/// `GET /issues/{index}/times`: the tracker must be on (404 otherwise),
/// then the issue, the user named, the window, and whose times the caller
/// may see.
pub async fn of_issue(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    index: i64,
    asked: Option<&str>,
    q: params::Params<'_>,
    page: Page,
) -> Result<(IssueRecord, Listed)> {
    if !ctx.repo.enable_time_tracker {
        return Err(Error::TrackerHidden);
    }
    let issue = issue_ops::readable(db, ctx, index).await?;
    let asked = named_user(db, asked).await?;
    let window = window(q)?;
    let listing = match whose(ctx, me, asked)? {
        Some(user) => keys::times_of_issue_user(ctx.repo.id, index, &user),
        None => keys::times_of_issue(ctx.repo.id, index),
    };
    Ok((issue, store::page(db, &listing, window, page).await?))
}

/// `GET /repos/{owner}/{repo}/times`: the tracker must be on (400) and
/// issues enabled (404), then as an issue's listing.
pub async fn of_repo(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    asked: Option<&str>,
    q: params::Params<'_>,
    page: Page,
) -> Result<Listed> {
    if !ctx.perm.can_read(Unit::Issues) {
        return Err(Error::NoSuchIssue {
            repo_id: ctx.repo.id,
            index: 0,
        });
    }
    if !ctx.repo.enable_time_tracker {
        return Err(Error::TrackerOff);
    }
    let asked = named_user(db, asked).await?;
    let window = window(q)?;
    let listing = match whose(ctx, me, asked)? {
        Some(user) => keys::times_of_repo_user(ctx.repo.id, &user),
        None => keys::times_of_repo(ctx.repo.id),
    };
    store::page(db, &listing, window, page).await
}

/// `GET /user/times`: the caller's times in every repository.
pub async fn of_user(db: &Db, me: &Principal, q: params::Params<'_>, page: Page) -> Result<Listed> {
    let window = window(q)?;
    let listing = keys::times_of_user(&me.user.name);
    store::page(db, &listing, window, page).await
}

/// What `POST /issues/{index}/times` asks, as sent.
pub struct NewTime<'a> {
    pub time: i64,
    pub created: Option<&'a str>,
    pub user_name: Option<&'a str>,
}

/// Whom a new time is for: the caller, unless a repository admin (or a
/// site admin) names another user; a name from anyone else is ignored, as
/// in Gitea. A named user must exist (422).
async fn tracker_for(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    named: Option<&str>,
) -> Result<Tracker> {
    let mine = Tracker::of(me);
    let Some(name) = named.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(mine);
    };
    let other = fold(name) != mine.login;
    if !(me.is_site_admin() || (ctx.perm.is_admin() && other)) {
        return Ok(mine);
    }
    match users::get(db, name).await? {
        Some(u) if !u.is_org() => Ok(Tracker {
            login: fold(&u.name),
            name: u.name,
            id: u.id,
        }),
        _ => Err(Error::Query {
            field: "user_name",
            why: format!("user does not exist [name: {name}]"),
        }),
    }
}

/// `created` as sent: RFC 3339 from 1970 on; absent or empty means now.
fn created(raw: Option<&str>) -> Result<i64> {
    let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) else {
        return Ok(time::now());
    };
    let bad = |why: String| Error::Instant {
        field: "created",
        why,
    };
    let at = time::parse_instant(raw).map_err(bad)?;
    if at < 0 {
        return Err(bad(format!("{raw:?} is before 1970")));
    }
    Ok(at)
}

/// `POST /issues/{index}/times`: the body (422), the issue (404), who may
/// track (400 off, 403), whom it is for; then one transaction.
pub async fn add(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    index: i64,
    new: NewTime<'_>,
) -> Result<(IssueRecord, TimeRecord)> {
    let amount = seconds(new.time)?;
    let created = created(new.created)?;
    let issue = issue_ops::readable(db, ctx, index).await?;
    may_track(ctx, &issue, &me.user.name)?;
    let who = tracker_for(db, ctx, me, new.user_name).await?;
    let t = record(db, &issue, &who, amount, created).await?;
    store::add(db, &t).await?;
    Ok((issue, t))
}

/// A new time of `who` on `issue`, with a fresh id.
pub(super) async fn record(
    db: &Db,
    issue: &IssueRecord,
    who: &Tracker,
    amount: i64,
    created: i64,
) -> Result<TimeRecord> {
    Ok(TimeRecord {
        id: db.next_id("time").await?,
        repo_id: issue.repo_id,
        index: issue.index,
        issue_id: issue.id,
        user: who.login.clone(),
        user_name: who.name.clone(),
        user_id: who.id,
        time: amount,
        created,
    })
}

/// `DELETE /issues/{index}/times`: every time of the caller on the issue
/// (at most the per-user cap); 404 when there was none.
pub async fn reset(db: &Db, ctx: &RepoContext, me: &Principal, index: i64) -> Result<()> {
    let issue = issue_ops::readable(db, ctx, index).await?;
    may_track(ctx, &issue, &me.user.name)?;
    let (pk, tag) = keys::times_of_issue_user(ctx.repo.id, index, &me.user.name);
    if store::remove_listed(db, &pk, &keys::time_entries(&tag)).await? {
        Ok(())
    } else {
        Err(Error::NoTimes)
    }
}

/// `DELETE /issues/{index}/times/{id}`: the issue (404), who may track
/// (400, 403), the time on that issue (404), its user or a site admin
/// (403).
pub async fn delete(db: &Db, ctx: &RepoContext, me: &Principal, index: i64, id: i64) -> Result<()> {
    let issue = issue_ops::readable(db, ctx, index).await?;
    may_track(ctx, &issue, &me.user.name)?;
    for attempt in 0..8 {
        let t = store::get(db, ctx.repo.id, id).await?;
        let Some(t) = t.filter(|t| t.index == index) else {
            return Err(Error::NoSuchTime(id));
        };
        may_delete(&t, me)?;
        if store::remove(db, std::slice::from_ref(&t)).await? {
            return Ok(());
        }
        store::pause(attempt).await;
    }
    Err(Error::Busy)
}
