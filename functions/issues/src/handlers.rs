//! Create, read, edit and delete issues; set their deadline.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use serde_json::json;
use shared::{
    Error, Result,
    http::{Ctx, Response},
    issues::{self, IssueRecord, create::NewIssue, deps, edit, fields, views::Issue},
    repos::access::{RepoContext, Unit},
    time,
};

use crate::common::{self, LabelRef, present};

/// Gitea's `CreateIssueOption`.
#[derive(Deserialize)]
struct CreateIssueOption {
    title: String,
    #[serde(default)]
    body: Option<String>,
    #[serde(default, rename = "ref")]
    git_ref: Option<String>,
    #[serde(default)]
    assignee: Option<String>,
    #[serde(default)]
    assignees: Option<Vec<String>>,
    #[serde(default)]
    due_date: Option<String>,
    #[serde(default)]
    milestone: Option<i64>,
    #[serde(default)]
    labels: Option<Vec<i64>>,
    #[serde(default)]
    closed: Option<bool>,
}

/// Checks shared by issue and pull-request creation: signed in, not
/// archived, may read the kind (400), not blocked by the owner (403).
pub fn may_create(cx: &Ctx, ctx: &RepoContext, unit: Unit) -> Result<String> {
    let me = common::me(cx)?;
    common::not_archived(ctx)?;
    if !ctx.perm.can_read(unit) {
        return Err(Error::BadRequest(format!(
            "user does not have access to the {} of this repository",
            match unit {
                Unit::Issues => "issues",
                Unit::Pulls => "pull requests",
            }
        )));
    }
    if ctx.perm.blocked {
        return Err(Error::Forbidden("user is blocked".into()));
    }
    Ok(me)
}

/// The fields only writers may set; dropped (labels emptied) for others.
pub struct WriterFields {
    pub assignees: Vec<String>,
    pub milestone: i64,
    pub labels: Vec<i64>,
    pub due: i64,
}

/// What a create request asks for that only writers may set.
pub struct WriterInput {
    pub assignee: Option<String>,
    pub assignees: Option<Vec<String>>,
    pub milestone: Option<i64>,
    pub labels: Option<Vec<i64>>,
    pub due_date: Option<String>,
}

pub async fn writer_fields(
    cx: &Ctx,
    ctx: &RepoContext,
    unit: Unit,
    poster: &str,
    input: WriterInput,
) -> Result<WriterFields> {
    let WriterInput {
        assignee,
        assignees,
        milestone,
        labels,
        due_date: due,
    } = input;
    if !ctx.perm.can_write(unit) {
        return Ok(WriterFields {
            assignees: Vec::new(),
            milestone: 0,
            labels: Vec::new(),
            due: 0,
        });
    }
    let mut logins = assignees.unwrap_or_default();
    logins.extend(assignee.filter(|a| !a.trim().is_empty()));
    fields::at_most("assignees", logins.len(), fields::MAX_ASSIGNEES)?;
    let labels: Vec<LabelRef> = labels
        .unwrap_or_default()
        .into_iter()
        .map(LabelRef::Id)
        .collect();
    Ok(WriterFields {
        assignees: common::assignees(cx, ctx, logins, poster, unit).await?,
        milestone: common::milestone(cx, ctx, milestone.unwrap_or(0)).await?,
        labels: common::labels(cx, ctx, &labels).await?,
        due: match due {
            Some(d) => common::deadline(cx, "due_date", &d)?,
            None => 0,
        },
    })
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let poster = may_create(cx, &ctx, Unit::Issues)?;
    let body = cx.json::<CreateIssueOption>()?;
    let title = fields::title(&body.title)?;
    let text = fields::body("body", body.body.unwrap_or_default())?;
    let git_ref = fields::git_ref(body.git_ref.unwrap_or_default())?;
    let input = WriterInput {
        assignee: body.assignee,
        assignees: body.assignees,
        milestone: body.milestone,
        labels: body.labels,
        due_date: body.due_date,
    };
    let w = writer_fields(cx, &ctx, Unit::Issues, &poster, input).await?;
    let new = NewIssue {
        is_pull: false,
        title,
        body: text,
        git_ref,
        poster,
        assignees: w.assignees,
        labels: w.labels,
        milestone: w.milestone,
        due: w.due,
        closed: body.closed.unwrap_or(false),
        ..NewIssue::default()
    };
    let issue = issues::create::create(&cx.db, ctx.repo.id, new).await?;
    cx.reply(
        StatusCode::CREATED,
        &Issue::one(&cx.db, &ctx.repo, &issue, &cx.config).await?,
    )
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    cx.reply(
        StatusCode::OK,
        &Issue::one(&cx.db, &ctx.repo, &issue, &cx.config).await?,
    )
}

/// Gitea's `EditIssueOption`.
#[derive(Deserialize)]
struct EditIssueOption {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default, rename = "ref")]
    git_ref: Option<String>,
    #[serde(default)]
    assignee: Option<String>,
    #[serde(default)]
    assignees: Option<Vec<String>>,
    #[serde(default)]
    milestone: Option<i64>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default, deserialize_with = "present")]
    due_date: Option<Option<String>>,
    #[serde(default)]
    unset_due_date: Option<bool>,
}

/// The 412 for any state change of a merged pull request.
const MERGED: &str = "cannot change state of this pull request, it was already merged";

/// A requested state change, checked against the seed's state table.
pub async fn check_state(
    cx: &Ctx,
    ctx: &RepoContext,
    issue: &IssueRecord,
    state: &str,
) -> Result<bool> {
    let closed = match state {
        "open" => false,
        "closed" => true,
        other => return Err(Error::PreconditionFailed(format!("unknown state: {other}"))),
    };
    if issue.is_pull && issue.merged {
        return Err(Error::PreconditionFailed(MERGED.into()));
    }
    if closed
        && !issue.closed
        && ctx.repo.enable_issue_dependencies
        && deps::has_open_blockers(&cx.db, issue).await?
    {
        return Err(Error::PreconditionFailed(
            "cannot close this issue or pull request because it still has open dependencies".into(),
        ));
    }
    Ok(closed)
}

/// `PATCH /issues/{index}`: the poster or a writer (else 403, empty body).
pub async fn edit(cx: &Ctx) -> Result<Response> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    let me = common::me(cx)?;
    let unit = Unit::for_pull(issue.is_pull);
    let can_write = ctx.perm.can_write(unit);
    if issue.poster != me && !can_write {
        return Err(Error::ForbiddenEmpty);
    }
    let mut body = cx.json::<EditIssueOption>()?;
    // Gitea refuses edits of the title or body by a user the owner blocked,
    // unless they administer the repository.
    if ctx.perm.blocked && !ctx.perm.is_admin() && (body.title.is_some() || body.body.is_some()) {
        return Err(Error::Forbidden("user is blocked".into()));
    }
    body.body = body.body.map(|b| fields::body("body", b)).transpose()?;
    body.git_ref = body.git_ref.map(fields::git_ref).transpose()?;

    let due = match (can_write, &body.due_date, body.unset_due_date) {
        (false, _, _) | (true, None, None) => None,
        (true, _, Some(true)) => Some(0),
        (true, Some(Some(d)), _) => Some(common::deadline(cx, "due_date", d)?),
        (true, _, _) => return Err(Error::BadRequest("The due_date cannot be empty".into())),
    };
    let assignees = match (can_write, body.assignees, body.assignee) {
        (true, list @ Some(_), one) | (true, list @ None, one @ Some(_)) => {
            let mut logins = list.unwrap_or_default();
            logins.extend(one.filter(|a| !a.trim().is_empty()));
            fields::at_most("assignees", logins.len(), fields::MAX_ASSIGNEES)?;
            Some(common::assignees(cx, &ctx, logins, &issue.poster, unit).await?)
        }
        _ => None,
    };
    let milestone = match (can_write, body.milestone) {
        (true, Some(m)) if m != issue.milestone => Some(common::milestone(cx, &ctx, m).await?),
        _ => None,
    };
    let closed = match &body.state {
        Some(s) => Some(check_state(cx, &ctx, &issue, s).await?),
        None => None,
    };
    let new_title = match body
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(t) => Some(fields::title(t)?),
        None => None,
    };
    let loaded_version = body.body.as_ref().map(|_| issue.content_version);
    let updated = edit::update(&cx.db, issue, loaded_version, |i| {
        if i.is_pull && i.merged && closed.is_some_and(|c| c != i.closed) {
            return Err(Error::PreconditionFailed(MERGED.into()));
        }
        if let Some(t) = &new_title {
            i.title = t.clone();
        }
        if let Some(b) = &body.body {
            i.body = b.clone();
        }
        if let Some(r) = &body.git_ref {
            i.git_ref = r.clone();
        }
        if let Some(d) = due {
            i.due = d;
        }
        if let Some(a) = &assignees {
            i.assignees = a.clone();
        }
        if let Some(m) = milestone {
            i.milestone = m;
        }
        if let Some(c) = closed {
            i.closed = c;
        }
        Ok(())
    })
    .await?;
    cx.reply(
        StatusCode::CREATED,
        &Issue::one(&cx.db, &ctx.repo, &updated, &cx.config).await?,
    )
}

/// `DELETE /issues/{index}`: repository admins and site admins.
pub async fn delete(cx: &Ctx) -> Result<Response> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    common::me(cx)?;
    if !ctx.perm.is_admin() {
        return Err(Error::Forbidden(
            "user should be an owner or a collaborator with admin write of a repository".into(),
        ));
    }
    issues::delete(&cx.db, &issue).await?;
    cx.no_content()
}

#[derive(Deserialize)]
struct EditDeadlineOption {
    #[serde(default)]
    due_date: Option<String>,
}

/// `POST /issues/{index}/deadline`: writers only; null removes it.
pub async fn deadline(cx: &Ctx) -> Result<Response> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    common::me(cx)?;
    if !ctx.perm.can_write(Unit::for_pull(issue.is_pull)) {
        return Err(Error::Forbidden("Not repo writer".into()));
    }
    let body = cx.json::<EditDeadlineOption>()?;
    let due = match body.due_date {
        Some(d) => common::deadline(cx, "due_date", &d)?,
        None => 0,
    };
    let updated = edit::update(&cx.db, issue, None, |i| {
        i.due = due;
        Ok(())
    })
    .await?;
    let rendered = (updated.due > 0).then(|| time::render(updated.due, cx.config.display_tz));
    cx.reply(StatusCode::CREATED, &json!({ "due_date": rendered }))
}
