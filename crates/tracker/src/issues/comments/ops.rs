//! The comment operations, one per route: each takes the repository as the
//! caller may see it, loads what its rules need, applies them ([`model`])
//! and reads or writes through [`listing`] and [`store`].

use super::super::{
    Error, IssueRecord, Result, mentions,
    params::{self, Params},
    rules,
};
use super::{
    listing::{self, Listed, Window},
    model::{self, CommentRecord},
    store::{self, NewComment},
};
use crate::{
    accounts::{blocks, users::UserRecord},
    db::{self, Db, keys},
    page::Page,
    repos::{
        self,
        access::{RepoContext, Unit},
    },
};

/// Comment `id` of the repository, with its issue, if the caller may read
/// the issue's kind; 404 otherwise (also for an id of another repository,
/// or of a deleted issue's comment).
pub async fn readable(db: &Db, ctx: &RepoContext, id: i64) -> Result<(CommentRecord, IssueRecord)> {
    let comment = store::get(db, ctx.repo.id, id)
        .await?
        .ok_or(Error::NoSuchComment)?;
    let issue = super::super::get(db, ctx.repo.id, comment.index)
        .await?
        .filter(|i| ctx.perm.can_read(Unit::for_pull(i.is_pull)))
        .ok_or(Error::NoSuchComment)?;
    Ok((comment, issue))
}

/// Whether `issue`'s poster blocked `me` (never for repository admins,
/// whom blocks do not stop).
async fn blocked_by_poster(
    db: &Db,
    ctx: &RepoContext,
    issue: &IssueRecord,
    me: &str,
) -> Result<bool> {
    if ctx.perm.is_admin() || issue.poster == me {
        return Ok(false);
    }
    Ok(blocks::is_blocked(db, &issue.poster, me).await?)
}

/// The users among the names `text` mentions (organisations and unknown
/// names are not recorded), in order: one batched read.
async fn mentioned_users(db: &Db, text: &str) -> Result<Vec<String>> {
    let names = mentions(text);
    if names.is_empty() {
        return Ok(names);
    }
    let wanted = names.iter().map(|n| keys::owner(n)).collect();
    let mut users = std::collections::HashSet::new();
    for item in db.batch_get(wanted).await? {
        let u: UserRecord = db::from_item(item)?;
        if !u.is_org() {
            users.insert(crate::name::fold(&u.name));
        }
    }
    Ok(names.into_iter().filter(|n| users.contains(n)).collect())
}

/// `POST /issues/{index}/comments`, once the repository is known not
/// archived and `issue` readable: locked issues and blocks apply.
pub async fn create(
    db: &Db,
    ctx: &RepoContext,
    issue: IssueRecord,
    me: String,
    body: String,
) -> Result<CommentRecord> {
    let blocked = blocked_by_poster(db, ctx, &issue, &me).await?;
    model::may_comment(&ctx.perm, &issue, blocked)?;
    let new = NewComment {
        mentions: mentioned_users(db, &body).await?,
        unlocked_only: !ctx.perm.can_write(Unit::for_pull(issue.is_pull)),
        poster: me,
        body,
    };
    store::create(db, issue, new).await
}

/// `PATCH /issues/comments/{id}` with a checked body ([`model::body`]):
/// the author or a repository admin, not blocked; the same body changes
/// nothing.
pub async fn edit(
    db: &Db,
    ctx: &RepoContext,
    (comment, issue): (CommentRecord, IssueRecord),
    me: &str,
    body: String,
) -> Result<CommentRecord> {
    model::may_change(&ctx.perm, &comment, me)?;
    model::not_blocked(&ctx.perm, blocked_by_poster(db, ctx, &issue, me).await?)?;
    if body == comment.body {
        return Ok(comment);
    }
    let mentions = mentioned_users(db, &body).await?;
    store::edit(db, comment, issue, body, mentions).await
}

/// `DELETE /issues/comments/{id}`: the author or a repository admin.
pub async fn delete(db: &Db, ctx: &RepoContext, comment: &CommentRecord, me: &str) -> Result<()> {
    model::may_change(&ctx.perm, comment, me)?;
    store::delete(db, comment).await
}

/// `since` and `before` of a listing's query (RFC 3339; else 422).
pub fn window(q: Params) -> Result<Window> {
    Ok(Window {
        since: params::instant(q, "since")?,
        before: params::instant(q, "before")?,
    })
}

/// `GET /issues/{index}/comments`.
pub async fn of_issue(db: &Db, issue: &IssueRecord, window: Window, page: Page) -> Result<Listed> {
    listing::of_issue(db, issue, window, page).await
}

/// `GET /issues/comments`: the comments on the kinds the caller may read
/// (404 when neither).
pub async fn of_repo(db: &Db, ctx: &RepoContext, window: Window, page: Page) -> Result<Listed> {
    let kinds = rules::readable_kinds(&ctx.perm);
    if kinds.is_empty() {
        return Err(Error::Hidden);
    }
    let stats = repos::stats(db, ctx.repo.id).await?;
    listing::of_repo(db, ctx.repo.id, &stats, &kinds, window, page).await
}
