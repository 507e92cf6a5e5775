//! Create, read, edit and delete issues; set their deadline; change their
//! labels. HTTP in and out; the rules are in `shared::issues`.

use lambda_http::http::StatusCode;
use serde_json::json;
use shared::{
    Result,
    http::{Ctx, Response},
    issues::{
        Error as IssueError, IssueRecord, ops,
        options::{
            CreateIssueOption, Draft, EditDeadlineOption, EditIssueOption, IssueLabelsOption,
        },
        rules,
        views::Issue,
    },
    labels::{Label, LabelRecord},
    repos::access::{RepoContext, Unit},
    time,
};

use crate::common::{issue_in_path, me};

async fn reply(
    cx: &Ctx,
    status: StatusCode,
    access: &RepoContext,
    i: &IssueRecord,
) -> Result<Response> {
    cx.reply(
        status,
        &Issue::one(&cx.db, &access.repo, i, &cx.config).await?,
    )
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let poster = rules::may_create(&access, me(cx)?, Unit::Issues)?;
    let draft = Draft::try_from(cx.json::<CreateIssueOption>()?)?;
    let me = &cx.signed_in()?.user;
    let opened = ops::open(&cx.db, &access, poster, me, draft, cx.config.display_tz).await?;
    let issue = Issue::new(&opened.issue, &access.repo, &opened.lookup, &cx.config);
    cx.reply(StatusCode::CREATED, &issue)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let (access, issue) = issue_in_path(cx).await?;
    reply(cx, StatusCode::OK, &access, &issue).await
}

/// `PATCH /issues/{index}`: the poster or a writer (else 403, empty body).
pub async fn edit(cx: &Ctx) -> Result<Response> {
    let (access, issue) = issue_in_path(cx).await?;
    let editor = rules::may_edit(&access.perm, &issue, &me(cx)?)?;
    let body = cx.json::<EditIssueOption>()?;
    let tz = cx.config.display_tz;
    let updated = ops::edit(&cx.db, &access, editor, issue, body.into(), tz).await?;
    reply(cx, StatusCode::CREATED, &access, &updated).await
}

/// `DELETE /issues/{index}`: repository admins and site admins.
pub async fn delete(cx: &Ctx) -> Result<Response> {
    let (access, issue) = issue_in_path(cx).await?;
    me(cx)?;
    ops::remove(&cx.db, &access, &issue).await?;
    cx.no_content()
}

/// `POST /issues/{index}/deadline`: writers only; null removes it.
pub async fn deadline(cx: &Ctx) -> Result<Response> {
    let (access, issue) = issue_in_path(cx).await?;
    me(cx)?;
    rules::must_write(&access.perm, &issue, IssueError::MayNotSetDeadline)?;
    let raw = cx.json::<EditDeadlineOption>()?.due_date;
    let updated = ops::set_deadline(&cx.db, issue, raw, cx.config.display_tz).await?;
    let rendered = (updated.due > 0).then(|| time::render(updated.due, cx.config.display_tz));
    cx.reply(StatusCode::CREATED, &json!({ "due_date": rendered }))
}

/// The issue in the path, for a writer of its kind.
async fn writable(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let (access, issue) = issue_in_path(cx).await?;
    me(cx)?;
    rules::must_write(&access.perm, &issue, IssueError::MayNotWrite)?;
    Ok((access, issue))
}

/// Labels as Gitea lists them.
fn label_list(cx: &Ctx, labels: &[LabelRecord]) -> Result<Response> {
    let body: Vec<Label> = labels.iter().map(|l| Label::new(l, &cx.config)).collect();
    cx.reply(StatusCode::OK, &body)
}

async fn change_labels(cx: &Ctx, replace: bool) -> Result<Response> {
    let (access, issue) = writable(cx).await?;
    let wanted = cx.json::<IssueLabelsOption>()?.labels;
    let now = ops::set_labels(&cx.db, &access, issue, &wanted, replace).await?;
    label_list(cx, &now)
}

/// `GET /issues/{index}/labels`: anyone who may read the issue.
pub async fn list_labels(cx: &Ctx) -> Result<Response> {
    let (access, issue) = issue_in_path(cx).await?;
    label_list(cx, &ops::labels_of(&cx.db, &access, &issue).await?)
}

/// `DELETE /issues/{index}/labels/{id}`: one label, by id or name.
pub async fn remove_label(cx: &Ctx) -> Result<Response> {
    let (access, issue) = writable(cx).await?;
    ops::remove_label(&cx.db, &access, issue, cx.param("id")).await?;
    cx.no_content()
}

/// `POST /issues/{index}/labels`: adds labels (by id or name).
pub async fn add_labels(cx: &Ctx) -> Result<Response> {
    change_labels(cx, false).await
}

/// `PUT /issues/{index}/labels`: replaces the labels.
pub async fn replace_labels(cx: &Ctx) -> Result<Response> {
    change_labels(cx, true).await
}

/// `DELETE /issues/{index}/labels`.
pub async fn clear_labels(cx: &Ctx) -> Result<Response> {
    let (_, issue) = writable(cx).await?;
    ops::clear_labels(&cx.db, issue).await?;
    cx.no_content()
}
