//! List, read, create, edit and delete milestones.

use lambda_http::http::StatusCode;
use serde::{Deserialize, Deserializer};
use shared::{
    Error, Result,
    accounts::names::bounded,
    http::{Ctx, Response, paging},
    milestones::{self, Edit, Milestone, MilestoneRecord, NewMilestone},
    time,
};

/// Distinguishes an absent field (`None`) from an explicit `null`
/// (`Some(None)`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// `due_on`: a deadline (end of the given day), or null/zero for none.
fn deadline(cx: &Ctx, raw: Option<&str>) -> Result<Option<i64>> {
    match raw {
        None => Ok(None),
        Some(r) => time::end_of_day(r, cx.config.display_tz).map_err(|e| Error::field("due_on", e)),
    }
}

#[derive(Deserialize)]
struct CreateMilestoneOption {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    due_on: Option<String>,
    #[serde(default)]
    state: Option<String>,
}

#[derive(Deserialize)]
struct EditMilestoneOption {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default, deserialize_with = "present")]
    due_on: Option<Option<String>>,
}

/// `state`: open (default, and any unknown value), closed, all.
fn state_filter(raw: Option<&str>) -> Option<bool> {
    match raw {
        Some("closed") => Some(true),
        Some("all") => None,
        _ => Some(false),
    }
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let closed = state_filter(cx.query.get("state"));
    let needle = cx
        .query
        .get("name")
        .map(|n| n.trim().to_lowercase())
        .filter(|n| !n.is_empty());
    let mut all: Vec<MilestoneRecord> = milestones::list(&cx.db, ctx.repo.id)
        .await?
        .into_iter()
        .filter(|m| closed.is_none_or(|c| m.closed == c))
        .filter(|m| {
            needle
                .as_ref()
                .is_none_or(|n| m.title.to_lowercase().contains(n))
        })
        .collect();
    // Gitea's order: deadline first (none before any), then name.
    all.sort_by(|a, b| a.due.cmp(&b.due).then_with(|| a.title.cmp(&b.title)));
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let body: Vec<Milestone> = milestones::with_descriptions(&cx.db, page.slice(&all))
        .await?
        .iter()
        .map(|m| Milestone::new(m, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let m = milestones::find(&cx.db, ctx.repo.id, cx.param("id")).await?;
    cx.reply(StatusCode::OK, &Milestone::new(&m, &cx.config))
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let body = cx.json::<CreateMilestoneOption>()?;
    let new = NewMilestone {
        title: milestones::parse_title(body.title.as_deref().unwrap_or(""))?,
        description: bounded("description", body.description, 65535)?,
        closed: body.state.as_deref() == Some("closed"),
        due: deadline(cx, body.due_on.as_deref())?,
    };
    let m = milestones::create(&cx.db, ctx.repo.id, new).await?;
    cx.reply(StatusCode::CREATED, &Milestone::new(&m, &cx.config))
}

pub async fn edit(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let body = cx.json::<EditMilestoneOption>()?;
    let m = milestones::find(&cx.db, ctx.repo.id, cx.param("id")).await?;
    let edit = Edit {
        title: match body
            .title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
        {
            Some(t) => Some(milestones::parse_title(t)?),
            None => None,
        },
        description: match body.description {
            Some(d) => Some(bounded("description", Some(d), 65535)?),
            None => None,
        },
        closed: body.state.map(|s| s == "closed"),
        due: match body.due_on {
            None => None,
            Some(raw) => Some(deadline(cx, raw.as_deref())?),
        },
    };
    let m = milestones::edit(&cx.db, &m, edit).await?;
    cx.reply(StatusCode::OK, &Milestone::new(&m, &cx.config))
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let m = milestones::find(&cx.db, ctx.repo.id, cx.param("id")).await?;
    // The seed: deleting a milestone removes it from its issues.
    shared::issues::detach_milestone(&cx.db, ctx.repo.id, m.id).await?;
    milestones::delete(&cx.db, &m).await?;
    cx.no_content()
}
