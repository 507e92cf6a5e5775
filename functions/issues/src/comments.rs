//! Issue comments: list, create, read, edit and delete, Gitea's routes and
//! statuses. HTTP in and out; the rules are in `shared::issues::comments`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    issues::{
        comments::{
            listing::Listed,
            model, ops,
            views::{Comment, CreateIssueCommentOption, EditIssueCommentOption},
        },
        ops as issue_ops,
        params::Params,
        rules,
    },
    repos::access::RepoContext,
};

use crate::common::{index, me};

/// A page of comments with `X-Total-Count` and `Link`, as every list.
async fn page(
    cx: &Ctx,
    access: &RepoContext,
    listed: Listed,
    page: paging::Page,
) -> Result<Response> {
    let body = Comment::many(&cx.db, &access.repo, &listed.shown, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, listed.total, page);
    paging::set_headers(&mut res, link, listed.total);
    Ok(res)
}

/// `GET /issues/{index}/comments`: oldest first, `since`/`before` on the
/// update time, paged.
pub async fn list(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let window = ops::window(Params(cx.query.pairs()))?;
    let issue = issue_ops::readable(&cx.db, &access, index(cx)?).await?;
    let p = cx.page();
    let listed = ops::of_issue(&cx.db, &issue, window, p).await?;
    page(cx, &access, listed, p).await
}

/// `GET /issues/comments`: every comment on the kinds the caller may read.
pub async fn list_repo(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let window = ops::window(Params(cx.query.pairs()))?;
    let p = cx.page();
    let listed = ops::of_repo(&cx.db, &access, window, p).await?;
    page(cx, &access, listed, p).await
}

/// `POST /issues/{index}/comments`: 201 with the comment. Gitea's order:
/// signed in (401), repository not archived (423), a body (422), the
/// issue (404), then locks and blocks (403).
pub async fn create(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = me(cx)?;
    rules::not_archived(&access)?;
    let body = model::body(cx.json::<CreateIssueCommentOption>()?.body)?;
    let issue = issue_ops::readable(&cx.db, &access, index(cx)?).await?;
    let comment = ops::create(&cx.db, &access, issue, me, body).await?;
    let view = Comment::one(&cx.db, &access.repo, &comment, &cx.config).await?;
    cx.reply(StatusCode::CREATED, &view)
}

/// `GET /issues/comments/{id}`.
pub async fn get(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let (comment, _) = ops::readable(&cx.db, &access, cx.id_param("id")?).await?;
    let view = Comment::one(&cx.db, &access.repo, &comment, &cx.config).await?;
    cx.reply(StatusCode::OK, &view)
}

/// `PATCH /issues/comments/{id}`: the author or a repository admin (else
/// 403 with an empty body, as Gitea); 200 with the comment.
pub async fn edit(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    rules::not_archived(&access)?;
    let me = me(cx)?;
    let body = model::body(cx.json::<EditIssueCommentOption>()?.body)?;
    let found = ops::readable(&cx.db, &access, cx.id_param("id")?).await?;
    let comment = ops::edit(&cx.db, &access, found, &me, body).await?;
    let view = Comment::one(&cx.db, &access.repo, &comment, &cx.config).await?;
    cx.reply(StatusCode::OK, &view)
}

/// `DELETE /issues/comments/{id}`: the author or a repository admin; 204.
pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let me = me(cx)?;
    rules::not_archived(&access)?;
    let (comment, _) = ops::readable(&cx.db, &access, cx.id_param("id")?).await?;
    ops::delete(&cx.db, &access, &comment, &me).await?;
    cx.no_content()
}
