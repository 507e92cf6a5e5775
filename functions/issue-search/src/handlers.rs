//! The two listings, HTTP in and out: filters, paging and headers are
//! Gitea's; the rules are in `shared::issues::search`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    issues::{
        search::{self, Listed, Params},
        views::Issue,
    },
};

/// A page of issues with `X-Total-Count` and `Link`, as both listings answer.
async fn respond(cx: &Ctx, listed: Listed, page: paging::Page) -> Result<Response> {
    let body = Issue::many(&cx.db, &listed.repos, &listed.shown, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, page);
    paging::set_headers(&mut res, link, listed.total);
    Ok(res)
}

/// `GET /repos/{owner}/{repo}/issues`.
pub async fn repo_issues(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let q = Params(cx.query.pairs());
    let listed = search::repo_issues(&cx.db, &ctx, q, page).await?;
    respond(cx, listed, page).await
}

/// `GET /repos/issues/search`.
pub async fn search(cx: &Ctx) -> Result<Response> {
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let q = Params(cx.query.pairs());
    let listed = search::search(&cx.db, &cx.caller, q, page).await?;
    respond(cx, listed, page).await
}
