//! Pull-request records (no git): create with branch names, read, merge,
//! review requests and reviews, so every tracker filter has data.

use lambda_http::http::StatusCode;
use serde::{Deserialize, Serialize};
use shared::{
    Error, Result,
    accounts::{users, views::User},
    http::{Ctx, Response},
    issues::{self, IssueRecord, create::NewIssue, edit, fields, views::PullRequest},
    repos::access::{RepoContext, Unit},
    time,
};

use crate::{common, handlers};

/// Gitea's `CreatePullRequestOption`.
#[derive(Deserialize)]
struct CreatePullRequestOption {
    title: String,
    head: String,
    base: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    assignee: Option<String>,
    #[serde(default)]
    assignees: Option<Vec<String>>,
    #[serde(default)]
    milestone: Option<i64>,
    #[serde(default)]
    labels: Option<Vec<i64>>,
    #[serde(default)]
    due_date: Option<String>,
}

/// A branch name: non-empty, no whitespace or control characters.
fn branch(field: &str, raw: &str) -> Result<String> {
    let b = raw.trim();
    if b.is_empty()
        || b.chars().count() > fields::MAX_REF_CHARS
        || b.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(Error::field(
            field,
            format!("must be a branch name (got {raw:?})"),
        ));
    }
    Ok(b.to_string())
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let poster = handlers::may_create(cx, &ctx, Unit::Pulls)?;
    let body = cx.json::<CreatePullRequestOption>()?;
    let (head, base) = (branch("head", &body.head)?, branch("base", &body.base)?);
    if head == base {
        return Err(Error::Unprocessable(
            "head and base must be different branches".into(),
        ));
    }
    let title = fields::title(&body.title)?;
    let text = fields::body("body", body.body.unwrap_or_default())?;
    let input = handlers::WriterInput {
        assignee: body.assignee,
        assignees: body.assignees,
        milestone: body.milestone,
        labels: body.labels,
        due_date: body.due_date,
    };
    let w = handlers::writer_fields(cx, &ctx, Unit::Pulls, &poster, input).await?;
    let new = NewIssue {
        is_pull: true,
        title,
        body: text,
        poster,
        assignees: w.assignees,
        labels: w.labels,
        milestone: w.milestone,
        due: w.due,
        head,
        base,
        ..NewIssue::default()
    };
    let pr = issues::create::create(&cx.db, ctx.repo.id, new).await?;
    cx.reply(
        StatusCode::CREATED,
        &PullRequest::one(&cx.db, &ctx.repo, &pr, &cx.config).await?,
    )
}

/// The pull request named by `{index}` (an issue number is a 404).
async fn pull_in_path(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let (ctx, pr) = common::issue_in_path(cx).await?;
    if !pr.is_pull {
        return Err(Error::NotFound(format!(
            "pull request does not exist [index: {}]",
            pr.index
        )));
    }
    Ok((ctx, pr))
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let (ctx, pr) = pull_in_path(cx).await?;
    cx.reply(
        StatusCode::OK,
        &PullRequest::one(&cx.db, &ctx.repo, &pr, &cx.config).await?,
    )
}

/// `POST /pulls/{index}/merge`: writers on pull requests. Marks it merged
/// and closed; merging twice, or a closed one, is 405 as in Gitea.
pub async fn merge(cx: &Ctx) -> Result<Response> {
    let (ctx, pr) = pull_in_path(cx).await?;
    common::me(cx)?;
    if !ctx.perm.can_write(Unit::Pulls) {
        return Err(Error::Forbidden(
            "user should have a permission to write to a repo".into(),
        ));
    }
    common::not_archived(&ctx)?;
    if pr.closed || pr.merged {
        return Err(Error::MethodNotAllowed(if pr.merged {
            "The PR is already merged".into()
        } else {
            "The PR is closed and cannot be merged".into()
        }));
    }
    edit::update(&cx.db, pr, None, |p| {
        if p.merged || p.closed {
            return Err(Error::MethodNotAllowed(
                "The PR is already merged or closed".into(),
            ));
        }
        p.merged = true;
        p.merged_at = time::now();
        p.closed = true;
        Ok(())
    })
    .await?;
    Ok(shared::http::response::empty(StatusCode::OK))
}

/// Gitea's `PullReview` (the fields a record without code can fill).
#[derive(Serialize)]
struct PullReview {
    id: i64,
    user: User,
    state: String,
    body: String,
    commit_id: String,
    stale: bool,
    official: bool,
    dismissed: bool,
    html_url: String,
    pull_request_url: String,
    submitted_at: String,
    updated_at: String,
}

async fn review_json(
    cx: &Ctx,
    ctx: &RepoContext,
    pr: &IssueRecord,
    login: &str,
    state: &str,
    body: String,
) -> Result<PullReview> {
    let user = users::get(&cx.db, login)
        .await?
        .ok_or_else(Error::not_found)?;
    let url = cx
        .config
        .url(&format!("{}/pulls/{}", ctx.repo.full_name(), pr.index));
    let now = time::render(time::now(), cx.config.display_tz);
    Ok(PullReview {
        id: cx.db.next_id("review").await?,
        user: User::embedded(&user, &cx.config),
        state: state.into(),
        body,
        commit_id: String::new(),
        stale: false,
        official: ctx.perm.can_write(Unit::Pulls),
        dismissed: false,
        html_url: url.clone(),
        pull_request_url: url,
        submitted_at: now.clone(),
        updated_at: now,
    })
}

#[derive(Deserialize)]
struct PullReviewRequestOptions {
    #[serde(default)]
    reviewers: Vec<String>,
}

/// `POST /pulls/{index}/requested_reviewers`: the poster or a writer asks
/// users (who must be able to read pull requests) for a review.
pub async fn request_reviewers(cx: &Ctx) -> Result<Response> {
    let (ctx, pr) = pull_in_path(cx).await?;
    let me = common::me(cx)?;
    if pr.poster != me && !ctx.perm.can_write(Unit::Pulls) {
        return Err(Error::Forbidden(
            "only the poster or a writer may request reviews".into(),
        ));
    }
    let reviewers = cx.json::<PullReviewRequestOptions>()?.reviewers;
    fields::at_most("reviewers", reviewers.len(), fields::MAX_REVIEW_REQUESTS)?;
    let wanted = common::assignees(cx, &ctx, reviewers, &pr.poster, Unit::Pulls).await?;
    let updated = edit::update(&cx.db, pr, None, |p| {
        for r in &wanted {
            if !p.review_requested.contains(r) {
                p.review_requested.push(r.clone());
            }
        }
        fields::at_most(
            "reviewers",
            p.review_requested.len(),
            fields::MAX_REVIEW_REQUESTS,
        )
    })
    .await?;
    let mut out = Vec::new();
    for r in &wanted {
        out.push(review_json(cx, &ctx, &updated, r, "REQUEST_REVIEW", String::new()).await?);
    }
    cx.reply(StatusCode::CREATED, &out)
}

#[derive(Deserialize)]
struct CreatePullReviewOptions {
    event: String,
    #[serde(default)]
    body: Option<String>,
}

/// `POST /pulls/{index}/reviews`: APPROVED, REQUEST_CHANGES or COMMENT.
/// The reviewer leaves the requested list and joins the reviewed one.
pub async fn review(cx: &Ctx) -> Result<Response> {
    let (ctx, pr) = pull_in_path(cx).await?;
    let me = common::me(cx)?;
    let mut body = cx.json::<CreatePullReviewOptions>()?;
    body.body = body.body.map(|b| fields::body("body", b)).transpose()?;
    let event = body.event.trim().to_uppercase();
    if !matches!(event.as_str(), "APPROVED" | "REQUEST_CHANGES" | "COMMENT") {
        return Err(Error::field(
            "event",
            format!(
                "must be APPROVED, REQUEST_CHANGES or COMMENT (got {:?})",
                body.event
            ),
        ));
    }
    if event != "COMMENT" && pr.poster == me {
        return Err(Error::Unprocessable(
            "the poster cannot approve or request changes on their own pull request".into(),
        ));
    }
    if ctx.perm.blocked {
        return Err(Error::Forbidden("user is blocked".into()));
    }
    let updated = edit::update(&cx.db, pr, None, |p| {
        p.review_requested.retain(|r| r != &me);
        if !p.reviewed.contains(&me) {
            p.reviewed.push(me.clone());
        }
        fields::at_most("reviewers", p.reviewed.len(), fields::MAX_REVIEWERS)
    })
    .await?;
    let review = review_json(
        cx,
        &ctx,
        &updated,
        &me,
        &event,
        body.body.unwrap_or_default(),
    )
    .await?;
    cx.reply(StatusCode::OK, &review)
}
