//! Dependencies: `/issues/{index}/dependencies` (what the issue is blocked
//! by) and `/issues/{index}/blocks` (what it blocks), with
//! `{owner, repo, index}` bodies naming the other issue, possibly in
//! another repository. Every permission failure is a 404, as in Gitea.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    http::{Ctx, Response, paging},
    issues::{self, IssueRecord, deps, views::Issue},
    repos::access::{self, RepoContext, Unit},
};

use crate::common;

/// Gitea's `IssueMeta`.
#[derive(Deserialize)]
struct IssueMeta {
    owner: String,
    repo: String,
    index: i64,
}

/// The path issue, in a repository with dependencies enabled.
async fn path_issue(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    if !ctx.repo.enable_issue_dependencies {
        return Err(Error::NotFound(
            "dependencies are disabled in this repository".into(),
        ));
    }
    Ok((ctx, issue))
}

/// The issue a body names, if the caller may read it (404 otherwise).
async fn other_issue(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let meta = cx.json::<IssueMeta>()?;
    let ctx = access::load(&cx.db, &cx.caller, &meta.owner, &meta.repo).await?;
    let issue = issues::find(&cx.db, ctx.repo.id, meta.index).await?;
    if !ctx.perm.can_read(Unit::for_pull(issue.is_pull)) {
        return Err(Error::not_found());
    }
    Ok((ctx, issue))
}

fn must_write(ctx: &RepoContext, issue: &IssueRecord) -> Result<()> {
    if ctx.perm.can_write(Unit::for_pull(issue.is_pull)) {
        Ok(())
    } else {
        Err(Error::not_found())
    }
}

/// Lists issues by (repository id, number), those the caller may read,
/// paged, with Gitea's headers.
async fn list(cx: &Ctx, ids: Vec<(i64, i64)>) -> Result<Response> {
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let listed = deps::readable_page(&cx.db, &cx.caller, &ids, page).await?;
    let body = Issue::many(&cx.db, &listed.repos, &listed.shown, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(
        &mut res,
        paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, page),
        listed.total,
    );
    Ok(res)
}

pub async fn list_blockers(cx: &Ctx) -> Result<Response> {
    let (_, issue) = path_issue(cx).await?;
    list(cx, deps::blockers(&cx.db, &issue).await?).await
}

pub async fn list_blocked(cx: &Ctx) -> Result<Response> {
    let (_, issue) = path_issue(cx).await?;
    list(cx, deps::blocked(&cx.db, &issue).await?).await
}

/// The two issues of a change, as (dependent, blocker), once the caller may
/// write the dependent and read the blocker.
async fn pair(
    cx: &Ctx,
    path_is_dependent: bool,
) -> Result<(RepoContext, IssueRecord, RepoContext, IssueRecord)> {
    let (pctx, pissue) = path_issue(cx).await?;
    common::me(cx)?;
    let (octx, oissue) = other_issue(cx).await?;
    if path_is_dependent {
        must_write(&pctx, &pissue)?;
        Ok((pctx, pissue, octx, oissue))
    } else {
        must_write(&octx, &oissue)?;
        Ok((octx, oissue, pctx, pissue))
    }
}

async fn respond(cx: &Ctx, ctx: &RepoContext, issue: &IssueRecord) -> Result<Response> {
    cx.reply(
        StatusCode::CREATED,
        &Issue::one(&cx.db, &ctx.repo, issue, &cx.config).await?,
    )
}

pub async fn add_blocker(cx: &Ctx) -> Result<Response> {
    let (dctx, dependent, _, blocker) = pair(cx, true).await?;
    deps::add(&cx.db, &dependent, &blocker).await?;
    respond(cx, &dctx, &dependent).await
}

pub async fn remove_blocker(cx: &Ctx) -> Result<Response> {
    let (dctx, dependent, _, blocker) = pair(cx, true).await?;
    deps::remove(&cx.db, &dependent, &blocker).await?;
    respond(cx, &dctx, &dependent).await
}

pub async fn add_blocked(cx: &Ctx) -> Result<Response> {
    let (dctx, dependent, _, blocker) = pair(cx, false).await?;
    deps::add(&cx.db, &dependent, &blocker).await?;
    respond(cx, &dctx, &dependent).await
}

pub async fn remove_blocked(cx: &Ctx) -> Result<Response> {
    let (dctx, dependent, _, blocker) = pair(cx, false).await?;
    deps::remove(&cx.db, &dependent, &blocker).await?;
    respond(cx, &dctx, &dependent).await
}
