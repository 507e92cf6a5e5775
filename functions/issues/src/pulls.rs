//! Pull-request records (no git): create with branch names, read, merge,
//! review requests and reviews. HTTP in and out; the rules are in
//! `shared::issues`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response},
    issues::IssueRecord,
    issues::{
        ops,
        options::{
            CreatePullRequestOption, CreatePullReviewOptions, Draft, EditPullRequestOption,
            PullReviewRequestOptions,
        },
        rules,
        views::PullRequest,
    },
    repos::{
        access::{RepoContext, Unit},
        views::Repository,
    },
};

use crate::common::{me, pull_in_path};

pub async fn create(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let poster = rules::may_create(&access, me(cx)?, Unit::Pulls)?;
    let draft = Draft::try_from(cx.json::<CreatePullRequestOption>()?)?;
    let me = &cx.signed_in()?.user;
    let opened = ops::open(&cx.db, &access, poster, me, draft, cx.config.display_tz).await?;
    let repo = Repository::rendered(&cx.db, &access, &cx.caller, &cx.config).await?;
    let pr = PullRequest::new(
        &opened.issue,
        &access.repo,
        &repo,
        &opened.lookup,
        &cx.config,
    );
    cx.reply(StatusCode::CREATED, &pr)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let (access, pr) = pull_in_path(cx).await?;
    render(cx, StatusCode::OK, &access, pr).await
}

/// `PATCH /pulls/{index}`: the poster or a writer on pull requests (else
/// 403, empty body, as Gitea); answers 201, as Gitea does.
pub async fn edit(cx: &Ctx) -> Result<Response> {
    let (access, pr) = pull_in_path(cx).await?;
    let editor = rules::may_edit(&access.perm, &pr, &me(cx)?)?;
    let body = cx.json::<EditPullRequestOption>()?;
    let tz = cx.config.display_tz;
    let updated = ops::edit(&cx.db, &access, editor, pr, body.into(), tz).await?;
    render(cx, StatusCode::CREATED, &access, updated).await
}

async fn render(
    cx: &Ctx,
    status: StatusCode,
    access: &RepoContext,
    pr: IssueRecord,
) -> Result<Response> {
    let prs = PullRequest::in_repo(&cx.db, access, &cx.caller, &[pr], &cx.config).await?;
    cx.reply(status, &prs[0])
}

/// `POST /pulls/{index}/merge`: writers on pull requests; merging twice, or
/// a closed one, is 405 as in Gitea.
pub async fn merge(cx: &Ctx) -> Result<Response> {
    let (access, pr) = pull_in_path(cx).await?;
    me(cx)?;
    ops::merge(&cx.db, &access, pr).await?;
    Ok(shared::http::response::empty(StatusCode::OK))
}

/// `GET /pulls/{index}/merge`: 204 when merged, else 404, as Gitea.
pub async fn is_merged(cx: &Ctx) -> Result<Response> {
    let (_, pr) = pull_in_path(cx).await?;
    if pr.merged {
        cx.no_content()
    } else {
        Err(shared::Error::not_found())
    }
}

/// `POST /pulls/{index}/requested_reviewers`: the poster or a writer.
pub async fn request_reviewers(cx: &Ctx) -> Result<Response> {
    let (access, pr) = pull_in_path(cx).await?;
    rules::may_request_reviews(&access.perm, &pr, &me(cx)?)?;
    let reviewers = cx.json::<PullReviewRequestOptions>()?.reviewers;
    let out = ops::request_reviewers(&cx.db, &access, pr, reviewers, &cx.config).await?;
    cx.reply(StatusCode::CREATED, &out)
}

/// `POST /pulls/{index}/reviews`: APPROVED, REQUEST_CHANGES or COMMENT.
pub async fn review(cx: &Ctx) -> Result<Response> {
    let (access, pr) = pull_in_path(cx).await?;
    let me = me(cx)?;
    let body = cx.json::<CreatePullReviewOptions>()?;
    let review = ops::review(&cx.db, &access, pr, me, body, &cx.config).await?;
    cx.reply(StatusCode::OK, &review)
}
