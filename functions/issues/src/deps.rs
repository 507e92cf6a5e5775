//! Dependencies: `/issues/{index}/dependencies` (what the issue is blocked
//! by) and `/issues/{index}/blocks` (what it blocks), with
//! `{owner, repo, index}` bodies naming the other issue, possibly in
//! another repository. Every permission failure is a 404, as in Gitea.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    issues::{IssueRecord, deps, ops, options::IssueMeta, rules, views::Issue},
    repos::access::RepoContext,
};

use crate::common::{issue_in_path, me};

/// The path issue, in a repository with dependencies enabled.
async fn path_issue(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let (access, issue) = issue_in_path(cx).await?;
    rules::dependencies_enabled(&access)?;
    Ok((access, issue))
}

/// The issues `blockers` (or blocked) of the path's that the caller may
/// read, paged, with Gitea's headers.
async fn list(cx: &Ctx, blockers: bool) -> Result<Response> {
    let (_, issue) = path_issue(cx).await?;
    let ids = if blockers {
        deps::blockers(&cx.db, &issue).await?
    } else {
        deps::blocked(&cx.db, &issue).await?
    };
    let page = cx.page();
    let listed = deps::readable_page(&cx.db, &cx.caller, &ids, page).await?;
    let body = Issue::many(&cx.db, &listed.repos, &listed.shown, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, page);
    paging::set_headers(&mut res, link, listed.total);
    Ok(res)
}

/// Adds or removes a dependency; answers with the dependent issue.
async fn change(cx: &Ctx, path_is_dependent: bool, add: bool) -> Result<Response> {
    let path = path_issue(cx).await?;
    me(cx)?;
    let other = cx.json::<IssueMeta>()?;
    let (access, dependent) =
        ops::link(&cx.db, &cx.caller, path, other, path_is_dependent, add).await?;
    cx.reply(
        StatusCode::CREATED,
        &Issue::one(&cx.db, &access.repo, &dependent, &cx.config).await?,
    )
}

pub async fn list_blockers(cx: &Ctx) -> Result<Response> {
    list(cx, true).await
}

pub async fn list_blocked(cx: &Ctx) -> Result<Response> {
    list(cx, false).await
}

pub async fn add_blocker(cx: &Ctx) -> Result<Response> {
    change(cx, true, true).await
}

pub async fn remove_blocker(cx: &Ctx) -> Result<Response> {
    change(cx, true, false).await
}

pub async fn add_blocked(cx: &Ctx) -> Result<Response> {
    change(cx, false, true).await
}

pub async fn remove_blocked(cx: &Ctx) -> Result<Response> {
    change(cx, false, false).await
}
