//! The listings, HTTP in and out: filters, paging and headers are
//! Gitea's; the rules are in `shared::issues::search` and
//! `shared::issues::pull_list`.

use lambda_http::http::StatusCode;
use serde::Serialize;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    issues::{
        pull_list,
        search::{self, Listed, Params},
        views::{Issue, PullRequest},
    },
};

/// A page with `X-Total-Count` and `Link`, as every listing answers
/// (`Link` pointing at pages of the first `linked` results).
fn paged(
    cx: &Ctx,
    body: &impl Serialize,
    (total, linked): (u64, u64),
    page: paging::Page,
) -> Result<Response> {
    let mut res = cx.reply(StatusCode::OK, body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, linked, page);
    paging::set_headers(&mut res, link, total);
    Ok(res)
}

/// A page of issues.
async fn respond(cx: &Ctx, listed: Listed, page: paging::Page, linked: u64) -> Result<Response> {
    let body = Issue::many(&cx.db, &listed.repos, &listed.shown, &cx.config).await?;
    paged(cx, &body, (listed.total, linked), page)
}

/// `GET /repos/{owner}/{repo}/issues`.
pub async fn repo_issues(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let page = cx.page();
    let q = Params(cx.query.pairs());
    let listed = search::repo_issues(&cx.db, &cx.caller, &access, q, page).await?;
    let total = listed.total;
    respond(cx, listed, page, total).await
}

/// `GET /repos/{owner}/{repo}/pulls`: Gitea's `PullRequest` objects.
pub async fn repo_pulls(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let page = cx.page();
    let q = Params(cx.query.pairs());
    let listed = pull_list::repo_pulls(&cx.db, &cx.caller, &access, q, page).await?;
    let body = PullRequest::in_repo(&cx.db, &access, &cx.caller, &listed.shown, &cx.config).await?;
    paged(cx, &body, (listed.total, listed.total), page)
}

/// `GET /repos/issues/search`.
pub async fn search(cx: &Ctx) -> Result<Response> {
    let page = cx.page();
    let q = Params(cx.query.pairs());
    let listed = search::search(&cx.db, &cx.caller, q, page).await?;
    let linked = search::within_window(listed.total, page);
    respond(cx, listed, page, linked).await
}
