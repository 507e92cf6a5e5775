//! The reaction operations, one per route, in Gitea's order of checks
//! (`routers/api/v1/repo/issue_reaction.go`): the target (404: missing,
//! unreadable, a comment of another repository), a locked issue for
//! non-writers (403), then for a POST blocks (403) and the content (403).

use super::super::{Error, IssueRecord, Result, comments, ops as issue_ops};
use super::{
    model::{self, Content, ReactionRecord, Target},
    store::{self, Added, Listed},
};
use crate::{
    accounts::{blocks, principal::Principal},
    db::Db,
    page::Page,
    repos::access::RepoContext,
    time,
};

/// What a reaction route names in its path.
#[derive(Clone, Copy, Debug)]
pub enum On {
    /// `/issues/{index}/reactions` (pull requests included).
    Issue(i64),
    /// `/issues/comments/{id}/reactions`.
    Comment(i64),
}

/// The target named, if the caller may read it (404 otherwise), with its
/// issue and the posters whose blocks count (the issue's, and the
/// comment's).
async fn resolve(db: &Db, ctx: &RepoContext, on: On) -> Result<(Target, IssueRecord, Vec<String>)> {
    match on {
        On::Issue(index) => {
            let issue = issue_ops::readable(db, ctx, index).await?;
            let posters = vec![issue.poster.clone()];
            Ok((Target::issue(ctx.repo.id, index), issue, posters))
        }
        On::Comment(id) => {
            let (comment, issue) = comments::ops::readable(db, ctx, id).await?;
            let target = Target::comment(ctx.repo.id, comment.index, comment.id);
            let posters = vec![issue.poster.clone(), comment.poster];
            Ok((target, issue, posters))
        }
    }
}

fn gone(on: On) -> fn() -> Error {
    match on {
        On::Issue(_) => || Error::Hidden,
        On::Comment(_) => || Error::NoSuchComment,
    }
}

/// Whether one of `posters` blocked `me`: read only for callers blocks can
/// stop (not site admins), one read per other poster, at once.
async fn blocked_by_poster(db: &Db, posters: &[String], me: &Principal) -> Result<bool> {
    if me.is_site_admin() {
        return Ok(false);
    }
    let login = crate::name::fold(&me.user.name);
    let mut others: Vec<&String> = posters.iter().filter(|p| **p != login).collect();
    others.sort_unstable();
    others.dedup();
    let reads = others.iter().map(|p| blocks::is_blocked(db, p, &login));
    let found = futures::future::try_join_all(reads).await?;
    Ok(found.into_iter().any(|b| b))
}

/// `GET .../reactions`: a page of the target's reactions, oldest first.
pub async fn list(db: &Db, ctx: &RepoContext, on: On, page: Page) -> Result<Listed> {
    let (target, _, _) = resolve(db, ctx, on).await?;
    store::page(db, &target, page).await
}

/// `POST .../reactions` with the body's `content` as sent: 201 for a new
/// reaction ([`Added::New`]), 200 with the one the caller already made.
pub async fn add(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    on: On,
    content: &str,
) -> Result<Added> {
    let (target, issue, posters) = resolve(db, ctx, on).await?;
    model::may_change(&ctx.perm, &issue)?;
    model::not_blocked(&ctx.perm, blocked_by_poster(db, &posters, me).await?)?;
    let content = Content::parse(content)?;
    let reaction = ReactionRecord::new(&me.user.name, content, time::now_micros());
    store::add(db, &target, reaction, gone(on)).await
}

/// `DELETE .../reactions`: removes the caller's reaction of that content,
/// if any. Removing one that does not exist, or a content outside the
/// allowed set (which cannot exist), changes nothing and is no error, as
/// in Gitea.
pub async fn remove(
    db: &Db,
    ctx: &RepoContext,
    me: &Principal,
    on: On,
    content: &str,
) -> Result<()> {
    let (target, issue, _) = resolve(db, ctx, on).await?;
    model::may_change(&ctx.perm, &issue)?;
    let Ok(content) = Content::parse(content) else {
        return Ok(());
    };
    let probe = ReactionRecord::new(&me.user.name, content, 0);
    store::remove(db, &target, &probe).await?;
    Ok(())
}
