//! The two issue listings: one repository's issues
//! (`GET /repos/{owner}/{repo}/issues`) and the search across every
//! repository the caller may read (`GET /repos/issues/search`). The query
//! parameters parse into a [`Filter`] here (pure rules at the top, unit
//! tested); [`listing`] reads the table.

use std::collections::HashMap;

use super::{
    Error, IssueRecord, Result, index,
    listing::{self, Filter},
};
use crate::{
    accounts::{teams, users},
    auth::Caller,
    db::Db,
    http::paging::Page,
    labels::{self, Scope},
    milestones,
    repos::{
        self, RepoRecord,
        access::{Permission, RepoContext, Unit},
        scope,
    },
    time,
};

/// The query string's values by name (the first of each, as sent).
#[derive(Clone, Copy)]
pub struct Params<'a>(pub &'a [(String, String)]);

impl<'a> Params<'a> {
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in the order sent (repeated parameters).
    pub fn all(&self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Trimmed, `None` when blank.
    fn given(&self, name: &str) -> Option<&'a str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }
}

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

/// `since` / `before`: RFC 3339 or absent; anything else is refused.
pub fn instant(q: Params, name: &'static str) -> Result<Option<i64>> {
    q.given(name)
        .map(|v| time::parse_instant(v).map_err(|why| Error::Instant { field: name, why }))
        .transpose()
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

/// Gitea's boolean query values (strconv.ParseBool); anything else is false.
pub fn flag(raw: Option<&str>) -> bool {
    matches!(raw, Some("1" | "t" | "T" | "true" | "TRUE" | "True"))
}

/// The kinds (`false` issues, `true` pulls) a permission may read.
pub fn readable_kinds(p: &Permission) -> Vec<bool> {
    [(false, Unit::Issues), (true, Unit::Pulls)]
        .into_iter()
        .filter(|(_, u)| p.can_read(*u))
        .map(|(k, _)| k)
        .collect()
}

/// A repository listing's `type`: naming a kind the caller cannot read is
/// a 404, as is reading neither.
pub fn repo_kinds(raw: Option<&str>, p: &Permission) -> Result<Vec<bool>> {
    let kinds = match raw {
        Some("issues") if p.can_read(Unit::Issues) => vec![false],
        Some("pulls") if p.can_read(Unit::Pulls) => vec![true],
        Some("issues") | Some("pulls") => return Err(Error::Hidden),
        _ => readable_kinds(p),
    };
    if kinds.is_empty() {
        return Err(Error::Hidden);
    }
    Ok(kinds)
}

/// One page of a listing, with the repositories its issues belong to.
pub struct Listed {
    pub shown: Vec<IssueRecord>,
    pub total: u64,
    pub repos: HashMap<i64, RepoRecord>,
}

/// A user-name filter: the user must exist.
async fn user_filter(db: &Db, q: Params<'_>, name: &str) -> Result<Option<String>> {
    match q.given(name) {
        None => Ok(None),
        Some(login) => match users::get(db, login).await? {
            Some(u) => Ok(Some(crate::name::fold(&u.name))),
            None => Err(Error::NoSuchUser(login.to_string())),
        },
    }
}

/// `GET /repos/{owner}/{repo}/issues`: the seed's filters, newest first.
/// The names the query refers to (users, labels, milestones) are read in
/// one wave; their errors keep the order of the checks.
pub async fn repo_issues(db: &Db, ctx: &RepoContext, q: Params<'_>, page: Page) -> Result<Listed> {
    let kinds = repo_kinds(q.get("type"), &ctx.perm)?;
    let since = instant(q, "since")?;
    let before = instant(q, "before")?;
    let label_names = entries(q.get("labels"));
    let wanted = entries(q.get("milestones"));
    let label_ids = async {
        if label_names.is_empty() {
            return Ok(None);
        }
        let scope = Scope::Repo {
            id: ctx.repo.id,
            full_name: ctx.repo.full_name(),
        };
        labels::ids_named(db, &[scope], &label_names)
            .await
            .map(Some)
    };
    let known_milestones = async {
        match wanted.is_empty() {
            true => Ok(None),
            false => milestones::all(db, ctx.repo.id).await.map(Some),
        }
    };
    let (poster, assignee, mentioned, label_ids, known) = tokio::join!(
        user_filter(db, q, "created_by"),
        user_filter(db, q, "assigned_by"),
        user_filter(db, q, "mentioned_by"),
        label_ids,
        known_milestones,
    );
    let mut filter = Filter {
        kinds,
        states: states(q.get("state")),
        keyword: keyword(q.get("q")),
        since,
        before,
        poster: poster?,
        assignee: assignee?,
        mentioned: mentioned?,
        ..Filter::default()
    };
    if let Some(ids) = label_ids? {
        filter.labels = (!ids.is_empty()).then_some(ids);
    }
    let mut members = None;
    if let Some(known) = known? {
        // A title first, else a number.
        let ids: Vec<i64> = wanted
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
        members = Some(
            known
                .iter()
                .filter(|m| ids.contains(&m.id))
                .map(|m| m.num_issues.max(0) as u64)
                .sum(),
        );
        filter.milestones = (!ids.is_empty()).then_some(ids);
    }
    let (shown, total) = listing::list_repo(db, ctx.repo.id, &filter, members, page).await?;
    let repos = HashMap::from([(ctx.repo.id, ctx.repo.clone())]);
    Ok(Listed {
        shown,
        total,
        repos,
    })
}

/// `GET /repos/issues/search`: issues across every repository the caller
/// may read (narrowed by `owner` and `team`), newest first.
pub async fn search(db: &Db, caller: &Caller, q: Params<'_>, page: Page) -> Result<Listed> {
    let owner = match q.given("owner") {
        None => None,
        Some(name) => Some(
            users::get(db, name)
                .await?
                .ok_or_else(|| Error::NoSuchOwner(name.to_string()))?,
        ),
    };
    let team = match (q.given("team"), &owner) {
        (None, _) => None,
        (Some(_), None) => return Err(Error::TeamWithoutOwner),
        (Some(name), Some(org)) => Some(
            teams::list(db, &org.name)
                .await?
                .into_iter()
                .find(|t| t.name.eq_ignore_ascii_case(name))
                .filter(|_| org.is_org())
                .ok_or_else(|| Error::NoSuchTeam(name.to_string()))?,
        ),
    };
    let me = caller.principal().map(|p| crate::name::fold(&p.user.name));
    let mine = |name: &str| me.clone().filter(|_| flag(q.get(name)));
    let kinds = match q.get("type") {
        Some("issues") => vec![false],
        Some("pulls") => vec![true],
        _ => vec![false, true],
    };
    let mut filter = Filter {
        kinds: kinds.clone(),
        states: states(q.get("state")),
        keyword: keyword(q.get("q")),
        since: instant(q, "since")?,
        before: instant(q, "before")?,
        poster: mine("created"),
        assignee: mine("assigned"),
        mentioned: mine("mentioned"),
        review_requested: mine("review_requested"),
        reviewed: mine("reviewed"),
        ..Filter::default()
    };
    let label_names = entries(q.get("labels"));
    let milestone_names: Vec<String> = entries(q.get("milestones"))
        .iter()
        .map(|m| m.to_lowercase())
        .collect();
    let simple = team.is_none() && label_names.is_empty() && milestone_names.is_empty();
    if let Some(request) =
        indexed(&filter, owner.as_ref().map(|o| o.lower_name())).filter(|_| simple)
    {
        let found = index::read::search(db, caller, &request, &filter, page).await?;
        return Ok(Listed {
            shown: found.shown,
            total: found.total,
            repos: found.repos,
        });
    }

    let candidates = match (&owner, &team) {
        (_, Some(t)) => Some(scope::team_repos(db, t).await?),
        (Some(o), None) => Some(repos::list_by_owner(db, &o.name).await?),
        (None, None) => None,
    };
    let visible = scope::visible(db, caller, candidates).await?;

    // Names resolve to ids repository by repository (ids are global).
    if !label_names.is_empty() {
        let mut scopes = Vec::new();
        let mut orgs_done = std::collections::HashSet::new();
        for (repo, _) in &visible {
            scopes.push(Scope::Repo {
                id: repo.id,
                full_name: repo.full_name(),
            });
            if orgs_done.insert(crate::name::fold(&repo.owner)) {
                scopes.push(Scope::Org {
                    name: repo.owner.clone(),
                });
            }
        }
        let ids = labels::ids_named(db, &scopes, &label_names).await?;
        filter.labels = (!ids.is_empty()).then_some(ids);
    }
    if !milestone_names.is_empty() {
        let mut ids = Vec::new();
        for (repo, _) in &visible {
            ids.extend(
                milestones::all(db, repo.id)
                    .await?
                    .into_iter()
                    .filter(|m| milestone_names.contains(&m.title.to_lowercase()))
                    .map(|m| m.id),
            );
        }
        filter.milestones = (!ids.is_empty()).then_some(ids);
    }

    let targets: Vec<(i64, Vec<bool>)> = visible
        .iter()
        .map(|(r, p)| (r.id, readable_kinds(p)))
        .collect();
    let stats = if filter.is_plain() {
        let ids: Vec<i64> = targets.iter().map(|(id, _)| *id).collect();
        repos::stats_many(db, &ids).await?
    } else {
        HashMap::new()
    };
    let (shown, total) = listing::list_many(db, &targets, &stats, &filter, page).await?;
    let repos = visible.into_iter().map(|(r, _)| (r.id, r)).collect();
    Ok(Listed {
        shown,
        total,
        repos,
    })
}

/// The searches the index serves (see [`index`]): kind, state, owner, and
/// at most one of the caller's relations (not with an owner), newest
/// first. Text, label, milestone, time and review filters read every
/// visible repository's listings instead.
fn indexed(filter: &Filter, owner: Option<String>) -> Option<index::read::Request<'_>> {
    let relations = [
        (&filter.poster, index::Relation::Created),
        (&filter.assignee, index::Relation::Assigned),
        (&filter.mentioned, index::Relation::Mentioned),
    ];
    let mut given = relations
        .iter()
        .filter_map(|(who, rel)| who.as_ref().map(|w| (w.clone(), *rel)));
    let relation = given.next();
    let plain = filter.keyword.is_none()
        && filter.since.is_none()
        && filter.before.is_none()
        && filter.review_requested.is_none()
        && filter.reviewed.is_none()
        && filter.labels.is_none()
        && filter.milestones.is_none()
        && filter.order == listing::Order::Newest;
    if !plain || given.next().is_some() || (relation.is_some() && owner.is_some()) {
        return None;
    }
    Some(index::read::Request {
        kinds: &filter.kinds,
        states: &filter.states,
        owner,
        relation,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::teams::AccessMode;

    fn perm(issues: AccessMode, pulls: AccessMode) -> Permission {
        Permission {
            mode: AccessMode::Read,
            issues,
            pulls,
            blocked: false,
        }
    }

    #[test]
    fn query_values_parse_as_gitea_reads_them() {
        assert_eq!(states(None), [false]);
        assert_eq!(states(Some(" all ")), [false, true]);
        assert_eq!(states(Some("closed")), [true]);
        assert_eq!(states(Some("nope")), [false]);
        assert_eq!(keyword(Some("  Bug ")).as_deref(), Some("bug"));
        assert_eq!(keyword(Some("a\0b")), None);
        assert_eq!(entries(Some(" a, ,b ,")), ["a", "b"]);
        assert!(flag(Some("True")) && flag(Some("1")) && !flag(Some("yes")) && !flag(None));
    }

    #[test]
    fn instants_are_rfc3339_or_refused_by_name() {
        let pairs = [
            ("since".to_string(), " 2024-01-01T00:00:00Z ".to_string()),
            ("before".to_string(), "yesterday".to_string()),
        ];
        let q = Params(&pairs);
        assert_eq!(instant(q, "since").unwrap(), Some(1_704_067_200));
        assert!(matches!(
            instant(q, "before"),
            Err(Error::Instant {
                field: "before",
                ..
            })
        ));
        assert_eq!(instant(Params(&[]), "since").unwrap(), None);
    }

    #[test]
    fn repository_listings_show_only_readable_kinds() {
        use AccessMode::{None as No, Read};
        let both = perm(Read, Read);
        let issues_only = perm(Read, No);
        for (raw, p, want) in [
            (None, &both, Some(vec![false, true])),
            (Some("pulls"), &both, Some(vec![true])),
            (Some("pulls"), &issues_only, None),
            (Some("other"), &issues_only, Some(vec![false])),
            (None, &perm(No, No), None),
        ] {
            let got = repo_kinds(raw, p).ok();
            assert_eq!(got, want, "type={raw:?} perm={p:?}");
        }
    }
}
