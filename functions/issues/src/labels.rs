//! An issue's labels: add (`POST`), replace (`PUT`), clear (`DELETE`).
//! Labels are named by id or by name; writers only.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    http::{Ctx, Response},
    issues::{IssueRecord, edit, fields},
    labels::{self, Label},
    repos::access::{RepoContext, Unit},
};

use crate::common::{self, LabelRef};

#[derive(Deserialize)]
struct IssueLabelsOption {
    #[serde(default)]
    labels: Vec<LabelRef>,
}

async fn writable(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let (ctx, issue) = common::issue_in_path(cx).await?;
    common::me(cx)?;
    if !ctx.perm.can_write(Unit::for_pull(issue.is_pull)) {
        return Err(Error::Forbidden(
            "user should have a permission to write to a repo".into(),
        ));
    }
    Ok((ctx, issue))
}

async fn respond(cx: &Ctx, ctx: &RepoContext, issue: &IssueRecord) -> Result<Response> {
    let known = labels::usable_in(&cx.db, &ctx.repo, ctx.owner.is_org()).await?;
    let body: Vec<Label> = issue
        .labels
        .iter()
        .filter_map(|id| known.iter().find(|l| l.id == *id))
        .map(|l| Label::new(l, &cx.config))
        .collect();
    cx.reply(StatusCode::OK, &body)
}

async fn change(cx: &Ctx, replace: bool) -> Result<Response> {
    let (ctx, issue) = writable(cx).await?;
    let wanted = common::labels(cx, &ctx, &cx.json::<IssueLabelsOption>()?.labels).await?;
    let updated = edit::update(&cx.db, issue, None, |i| {
        if replace {
            i.labels = wanted.clone();
        } else {
            for id in &wanted {
                if !i.labels.contains(id) {
                    i.labels.push(*id);
                }
            }
        }
        fields::at_most("labels", i.labels.len(), fields::MAX_LABELS)
    })
    .await?;
    respond(cx, &ctx, &updated).await
}

pub async fn add(cx: &Ctx) -> Result<Response> {
    change(cx, false).await
}

pub async fn replace(cx: &Ctx) -> Result<Response> {
    change(cx, true).await
}

pub async fn clear(cx: &Ctx) -> Result<Response> {
    let (_, issue) = writable(cx).await?;
    edit::update(&cx.db, issue, None, |i| {
        i.labels.clear();
        Ok(())
    })
    .await?;
    cx.no_content()
}
