//! `GET /repos/{owner}/{repo}/issues`: the seed's filters, newest first,
//! with `X-Total-Count` and `Link`.

use std::collections::HashMap;

use lambda_http::http::StatusCode;
use shared::{
    Error, Result,
    accounts::users,
    http::{Ctx, Response, paging},
    issues::{
        listing::{self, Filter},
        views::Issue,
    },
    labels::{self, Scope},
    milestones,
    repos::{self, access::Unit},
    time,
};

/// `state`: open (default, and unknown values), closed, or all.
pub fn states(raw: Option<&str>) -> Vec<bool> {
    match raw.map(str::trim) {
        Some("closed") => vec![true],
        Some("all") => vec![false, true],
        _ => vec![false],
    }
}

/// `q`: trimmed, lower-cased; a NUL makes it empty (no filter).
pub fn keyword(raw: Option<&str>) -> Option<String> {
    raw.map(str::trim)
        .filter(|q| !q.is_empty() && !q.contains('\0'))
        .map(str::to_lowercase)
}

/// `since` / `before`: RFC 3339 or absent; anything else is a 422.
pub fn instant(cx: &Ctx, name: &str) -> Result<Option<i64>> {
    match cx.query.get(name).map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => time::parse_instant(v)
            .map(Some)
            .map_err(|e| Error::field(name, e)),
    }
}

/// Comma-separated list entries, trimmed, empty ones dropped.
pub fn entries(raw: Option<&str>) -> Vec<String> {
    raw.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// A user-name filter: the user must exist (404 otherwise).
async fn user_filter(cx: &Ctx, name: &str) -> Result<Option<String>> {
    match cx.query.get(name).map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(login) => match users::get(&cx.db, login).await? {
            Some(u) => Ok(Some(u.name.to_lowercase())),
            None => Err(Error::NotFound(format!(
                "user does not exist [name: {login}]"
            ))),
        },
    }
}

pub async fn repo_issues(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let (issues_ok, pulls_ok) = (
        ctx.perm.can_read(Unit::Issues),
        ctx.perm.can_read(Unit::Pulls),
    );
    let kinds = match cx.query.get("type") {
        Some("issues") if issues_ok => vec![false],
        Some("pulls") if pulls_ok => vec![true],
        Some("issues") | Some("pulls") => return Err(Error::not_found()),
        _ => [(false, issues_ok), (true, pulls_ok)]
            .iter()
            .filter(|(_, ok)| *ok)
            .map(|(k, _)| *k)
            .collect(),
    };
    if kinds.is_empty() {
        return Err(Error::not_found());
    }
    let mut filter = Filter {
        kinds,
        states: states(cx.query.get("state")),
        keyword: keyword(cx.query.get("q")),
        since: instant(cx, "since")?,
        before: instant(cx, "before")?,
        poster: user_filter(cx, "created_by").await?,
        assignee: user_filter(cx, "assigned_by").await?,
        mentioned: user_filter(cx, "mentioned_by").await?,
        ..Filter::default()
    };
    let wanted_labels = entries(cx.query.get("labels"));
    if !wanted_labels.is_empty() {
        let known = labels::list(
            &cx.db,
            &Scope::Repo {
                id: ctx.repo.id,
                full_name: ctx.repo.full_name(),
            },
        )
        .await?;
        let ids: Vec<i64> = known
            .iter()
            .filter(|l| wanted_labels.contains(&l.name))
            .map(|l| l.id)
            .collect();
        filter.labels = (!ids.is_empty()).then_some(ids);
    }
    let wanted_milestones = entries(cx.query.get("milestones"));
    if !wanted_milestones.is_empty() {
        let known = milestones::list(&cx.db, ctx.repo.id).await?;
        let ids: Vec<i64> = wanted_milestones
            .iter()
            .filter_map(|w| {
                known
                    .iter()
                    .find(|m| &m.title == w)
                    .or_else(|| {
                        w.parse::<i64>()
                            .ok()
                            .and_then(|id| known.iter().find(|m| m.id == id))
                    })
                    .map(|m| m.id)
            })
            .collect();
        filter.milestones = (!ids.is_empty()).then_some(ids);
    }
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let stats = repos::stats(&cx.db, ctx.repo.id).await?;
    let (shown, total) = listing::list_repo(&cx.db, ctx.repo.id, &stats, &filter, page).await?;
    let repos = HashMap::from([(ctx.repo.id, ctx.repo.clone())]);
    respond(cx, &repos, &shown, total, page).await
}

/// A page of issues with `X-Total-Count` and `Link`, as both listings answer.
pub async fn respond(
    cx: &Ctx,
    repos: &HashMap<i64, repos::RepoRecord>,
    shown: &[shared::issues::IssueRecord],
    total: u64,
    page: paging::Page,
) -> Result<Response> {
    let body = Issue::many(&cx.db, repos, shown, &cx.config).await?;
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, total, page);
    paging::set_headers(&mut res, link, total);
    Ok(res)
}
