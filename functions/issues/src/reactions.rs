//! Reactions on issues (pull requests included) and comments: list, add,
//! remove, Gitea's routes and statuses. HTTP in and out; the rules are in
//! `shared::issues::reactions`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging, response},
    issues::reactions::{
        ops::{self, On},
        store::Added,
        views::{EditReactionOption, Reaction},
    },
};

use crate::common::index;

fn on_issue(cx: &Ctx) -> Result<On> {
    Ok(On::Issue(index(cx)?))
}

fn on_comment(cx: &Ctx) -> Result<On> {
    Ok(On::Comment(cx.id_param("id")?))
}

/// A page with `X-Total-Count` and `Link`, as every list.
async fn list(cx: &Ctx, on: On) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let page = cx.page();
    let listed = ops::list(&cx.db, &access, on, page).await?;
    let body = Reaction::many(&cx.db, &listed.shown, &cx.caller, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, page);
    paging::set_headers(&mut res, link, listed.total);
    Ok(res)
}

/// 201 with a new reaction, 200 with the caller's existing one. Gitea's
/// order: signed in (401), the body (422), the target (404), then locks,
/// blocks and the content (403).
async fn add(cx: &Ctx, on: On) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = cx.signed_in()?;
    let body = cx.json::<EditReactionOption>()?;
    let (status, reaction) = match ops::add(&cx.db, &access, me, on, &body.content).await? {
        Added::New(r) => (StatusCode::CREATED, r),
        Added::Existing(r) => (StatusCode::OK, r),
    };
    let view = Reaction::new(&reaction, &me.user, &cx.caller, &cx.config);
    cx.reply(status, &view)
}

/// 200 with an empty body, as Gitea answers, whether or not there was such
/// a reaction.
async fn remove(cx: &Ctx, on: On) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = cx.signed_in()?;
    let body = cx.json::<EditReactionOption>()?;
    ops::remove(&cx.db, &access, me, on, &body.content).await?;
    Ok(response::empty(StatusCode::OK))
}

/// `GET /issues/{index}/reactions`.
pub async fn list_issue(cx: &Ctx) -> Result<Response> {
    list(cx, on_issue(cx)?).await
}

/// `POST /issues/{index}/reactions`.
pub async fn add_issue(cx: &Ctx) -> Result<Response> {
    add(cx, on_issue(cx)?).await
}

/// `DELETE /issues/{index}/reactions`.
pub async fn remove_issue(cx: &Ctx) -> Result<Response> {
    remove(cx, on_issue(cx)?).await
}

/// `GET /issues/comments/{id}/reactions`.
pub async fn list_comment(cx: &Ctx) -> Result<Response> {
    list(cx, on_comment(cx)?).await
}

/// `POST /issues/comments/{id}/reactions`.
pub async fn add_comment(cx: &Ctx) -> Result<Response> {
    add(cx, on_comment(cx)?).await
}

/// `DELETE /issues/comments/{id}/reactions`.
pub async fn remove_comment(cx: &Ctx) -> Result<Response> {
    remove(cx, on_comment(cx)?).await
}
