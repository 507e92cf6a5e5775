//! `GET /repos/issues/search`: issues across every repository the caller
//! may read, with the seed's filters, newest first, paged with Gitea's
//! headers.

use std::collections::{HashMap, HashSet};

use shared::{
    Error, Result,
    accounts::{teams, users},
    http::{Ctx, Response, paging},
    issues::listing::{self, Filter},
    labels::{self, Scope},
    milestones,
    repos::{self, access::Unit, scope},
};

use crate::list::{entries, instant, keyword, respond, states};

/// Gitea's boolean query values (strconv.ParseBool); anything else is false.
fn flag(cx: &Ctx, name: &str) -> bool {
    matches!(
        cx.query.get(name),
        Some("1" | "t" | "T" | "true" | "TRUE" | "True")
    )
}

pub async fn search(cx: &Ctx) -> Result<Response> {
    let owner = match cx
        .query
        .get("owner")
        .map(str::trim)
        .filter(|o| !o.is_empty())
    {
        None => None,
        Some(name) => Some(users::get(&cx.db, name).await?.ok_or_else(|| {
            Error::BadRequest(format!("user does not exist [uid: 0, name: {name}]"))
        })?),
    };
    let team = match (
        cx.query
            .get("team")
            .map(str::trim)
            .filter(|t| !t.is_empty()),
        &owner,
    ) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(Error::BadRequest(
                "owner organisation is required for filtering on team".into(),
            ));
        }
        (Some(name), Some(org)) => Some(
            teams::list(&cx.db, &org.name)
                .await?
                .into_iter()
                .find(|t| t.name.eq_ignore_ascii_case(name))
                .filter(|_| org.is_org())
                .ok_or_else(|| Error::BadRequest(format!("team does not exist [name: {name}]")))?,
        ),
    };
    let candidates = match (&owner, &team) {
        (_, Some(t)) => Some(scope::team_repos(&cx.db, t).await?),
        (Some(o), None) => Some(repos::list_by_owner(&cx.db, &o.name).await?),
        (None, None) => None,
    };
    let visible = scope::visible(&cx.db, &cx.caller, candidates).await?;

    let me = cx.caller.principal().map(|p| p.user.name.to_lowercase());
    let mine = |name: &str| me.clone().filter(|_| flag(cx, name));
    let mut filter = Filter {
        kinds: match cx.query.get("type") {
            Some("issues") => vec![false],
            Some("pulls") => vec![true],
            _ => vec![false, true],
        },
        states: states(cx.query.get("state")),
        keyword: keyword(cx.query.get("q")),
        since: instant(cx, "since")?,
        before: instant(cx, "before")?,
        poster: mine("created"),
        assignee: mine("assigned"),
        mentioned: mine("mentioned"),
        review_requested: mine("review_requested"),
        reviewed: mine("reviewed"),
        ..Filter::default()
    };

    // Names resolve to ids repository by repository (ids are global).
    let label_names = entries(cx.query.get("labels"));
    if !label_names.is_empty() {
        let mut ids = HashSet::new();
        let mut orgs_done = HashSet::new();
        for (repo, _) in &visible {
            let mut scopes = vec![Scope::Repo {
                id: repo.id,
                full_name: repo.full_name(),
            }];
            if orgs_done.insert(repo.owner.to_lowercase()) {
                scopes.push(Scope::Org {
                    name: repo.owner.clone(),
                });
            }
            for s in scopes {
                ids.extend(
                    labels::list(&cx.db, &s)
                        .await?
                        .into_iter()
                        .filter(|l| label_names.contains(&l.name))
                        .map(|l| l.id),
                );
            }
        }
        filter.labels = (!ids.is_empty()).then(|| ids.into_iter().collect());
    }
    let milestone_names: Vec<String> = entries(cx.query.get("milestones"))
        .iter()
        .map(|m| m.to_lowercase())
        .collect();
    if !milestone_names.is_empty() {
        let mut ids = Vec::new();
        for (repo, _) in &visible {
            let found = milestones::list(&cx.db, repo.id).await?;
            ids.extend(
                found
                    .into_iter()
                    .filter(|m| milestone_names.contains(&m.title.to_lowercase()))
                    .map(|m| m.id),
            );
        }
        filter.milestones = (!ids.is_empty()).then_some(ids);
    }

    let targets: Vec<(i64, Vec<bool>)> = visible
        .iter()
        .map(|(r, p)| {
            let kinds = [
                (false, p.can_read(Unit::Issues)),
                (true, p.can_read(Unit::Pulls)),
            ];
            (
                r.id,
                kinds
                    .iter()
                    .filter(|(_, ok)| *ok)
                    .map(|(k, _)| *k)
                    .collect(),
            )
        })
        .collect();
    let ids: Vec<i64> = targets.iter().map(|(id, _)| *id).collect();
    let stats = if filter.is_plain() {
        repos::stats_many(&cx.db, &ids).await?
    } else {
        HashMap::new()
    };
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let (shown, total) = listing::list_many(&cx.db, &targets, &stats, &filter, page).await?;
    let by_id: HashMap<i64, repos::RepoRecord> =
        visible.into_iter().map(|(r, _)| (r.id, r)).collect();
    respond(cx, &by_id, &shown, total, page).await
}
