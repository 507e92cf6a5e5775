//! Tracked times and stopwatches (Gitea's `issue_tracked_time.go` and
//! `issue_stopwatch.go`): HTTP in and out; the rules are in
//! `shared::issues::times`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging, response},
    issues::{
        params::Params,
        times::{
            ops::{self, NewTime},
            stopwatch,
            store::Listed,
            views::{self, AddTimeOption, TrackedTime},
        },
    },
    repos::RepoRecord,
};

use crate::common::index;

/// A page of times with `X-Total-Count` and `Link`, as every list.
async fn page(cx: &Ctx, listed: Listed, repo: Option<&RepoRecord>) -> Result<Response> {
    let body = TrackedTime::many(&cx.db, &listed.shown, repo, &cx.caller, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, cx.page());
    paging::set_headers(&mut res, link, listed.total);
    Ok(res)
}

/// `GET /issues/{index}/times`.
pub async fn list_issue(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = cx.signed_in()?;
    let (q, user) = (Params(cx.query.pairs()), cx.query.get("user"));
    let (_, listed) = ops::of_issue(&cx.db, &access, me, index(cx)?, user, q, cx.page()).await?;
    page(cx, listed, Some(&access.repo)).await
}

/// `POST /issues/{index}/times`: 200 with the time, as Gitea.
pub async fn add(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = cx.signed_in()?;
    let body = cx.json::<AddTimeOption>()?;
    let new = NewTime {
        time: body.time,
        created: body.created.as_deref(),
        user_name: body.user_name.as_deref(),
    };
    let (issue, t) = ops::add(&cx.db, &access, me, index(cx)?, new).await?;
    let view = TrackedTime::one(&cx.db, &access.repo, &issue, &t, &cx.config).await?;
    cx.reply(StatusCode::OK, &view)
}

/// `DELETE /issues/{index}/times`: the caller's times on the issue; 204.
pub async fn reset(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    ops::reset(&cx.db, &access, cx.signed_in()?, index(cx)?).await?;
    cx.no_content()
}

/// `DELETE /issues/{index}/times/{id}`: 204.
pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let (me, id) = (cx.signed_in()?, cx.id_param("id")?);
    ops::delete(&cx.db, &access, me, index(cx)?, id).await?;
    cx.no_content()
}

/// `GET /repos/{owner}/{repo}/times`.
pub async fn list_repo(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = cx.signed_in()?;
    let (q, user) = (Params(cx.query.pairs()), cx.query.get("user"));
    let listed = ops::of_repo(&cx.db, &access, me, user, q, cx.page()).await?;
    page(cx, listed, Some(&access.repo)).await
}

/// `GET /user/times`.
pub async fn list_mine(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    let listed = ops::of_user(&cx.db, me, Params(cx.query.pairs()), cx.page()).await?;
    page(cx, listed, None).await
}

/// `POST .../stopwatch/start`: 201 with no body, as Gitea.
pub async fn start(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    stopwatch::start(&cx.db, &access, cx.signed_in()?, index(cx)?).await?;
    Ok(response::empty(StatusCode::CREATED))
}

/// `POST .../stopwatch/stop`: 201 with no body; the time is tracked.
pub async fn stop(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    stopwatch::stop(&cx.db, &access, cx.signed_in()?, index(cx)?).await?;
    Ok(response::empty(StatusCode::CREATED))
}

/// `DELETE .../stopwatch/delete`: 204.
pub async fn cancel(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    stopwatch::delete(&cx.db, &access, cx.signed_in()?, index(cx)?).await?;
    cx.no_content()
}

/// `GET /user/stopwatches`: the running one, if any.
pub async fn stopwatches(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    let p = cx.page();
    let (shown, total) = views::stopwatches(&cx.db, me, &cx.caller, p, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &shown)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, total, p);
    paging::set_headers(&mut res, link, total);
    Ok(res)
}
