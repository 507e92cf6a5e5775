//! `GET /repos/{owner}/{repo}/pulls`: Gitea's query parameters for a
//! repository's pull requests, parsed strictly into a [`Filter`] (pure,
//! unit-tested at the bottom), then read through [`listing`].
//!
//! What each filter costs (see `docs/data-model.md`): none, or `sort`
//! `newest`/`oldest` (and the comment and priority sorts, which tie here):
//! one page of the index per state, total from the counters. `milestone`:
//! the smaller of the milestone's members and the pull requests in the
//! asked states, read in full. `labels`, `poster`, `base_branch` and the
//! update and close sorts: the pull requests in the asked states, read in
//! full. The shown page is then read by key.

use super::{
    Error, Result,
    index::{
        lists::Relation,
        query::{AnyOf, Checks, Order},
    },
    search::{self, Listed, Params, repo_kinds},
};
use crate::{auth::Caller, db::Db, labels, milestones, page::Page, repos::access::RepoContext};

/// `state`: open (also when absent or blank, as Gitea documents it),
/// closed or all; anything else is refused.
pub fn states(raw: Option<&str>) -> Result<Vec<bool>> {
    match raw.map(str::trim).unwrap_or("") {
        "" | "open" => Ok(vec![false]),
        "closed" => Ok(vec![true]),
        "all" => Ok(vec![false, true]),
        other => Err(Error::Query {
            field: "state",
            why: format!("must be open, closed or all (got {other:?})"),
        }),
    }
}

/// The `sort` values Gitea documents for this list (plus its default,
/// `newest`). Priorities do not exist here, so they tie and the order
/// falls back to Gitea's tie-break, newest first.
const SORTS: [(&str, Order); 8] = [
    ("newest", Order::Newest),
    ("oldest", Order::Oldest),
    ("recentupdate", Order::RecentUpdate),
    ("leastupdate", Order::LeastUpdate),
    ("recentclose", Order::RecentClose),
    ("mostcomment", Order::MostComment),
    ("leastcomment", Order::LeastComment),
    ("priority", Order::Newest),
];

/// `sort`: one of [`SORTS`] (newest when absent or blank).
pub fn order(raw: Option<&str>) -> Result<Order> {
    let raw = raw.map(str::trim).unwrap_or("");
    if raw.is_empty() {
        return Ok(Order::Newest);
    }
    SORTS
        .iter()
        .find(|(name, _)| *name == raw)
        .map(|(_, o)| *o)
        .ok_or_else(|| Error::Query {
            field: "sort",
            why: format!(
                "must be one of {} (got {raw:?})",
                SORTS.map(|(n, _)| n).join(", ")
            ),
        })
}

/// `labels`: label ids, repeated (`labels=1&labels=2`, as Gitea's
/// clients send them) or comma-separated; any of them.
pub fn label_ids<'a>(values: impl Iterator<Item = &'a str>) -> Result<Vec<i64>> {
    let mut ids = Vec::new();
    for part in values.flat_map(|v| v.split(',')).map(str::trim) {
        if part.is_empty() {
            continue;
        }
        let id = part.parse::<i64>().map_err(|_| Error::Query {
            field: "labels",
            why: format!("must be label ids (got {part:?})"),
        })?;
        if !ids.contains(&id) {
            ids.push(id);
        }
        // As many as a search may name: each is a listing read at once.
        if ids.len() > super::search::MAX_NAMES {
            return Err(Error::Query {
                field: "labels",
                why: format!("at most {} label ids", super::search::MAX_NAMES),
            });
        }
    }
    Ok(ids)
}

/// `milestone`: a milestone id; 0 or below (or blank) means no filter, as
/// in Gitea.
pub fn milestone_id(raw: Option<&str>) -> Result<Option<i64>> {
    let raw = raw.map(str::trim).unwrap_or("");
    if raw.is_empty() {
        return Ok(None);
    }
    let id = raw.parse::<i64>().map_err(|_| Error::Query {
        field: "milestone",
        why: format!("must be a milestone id (got {raw:?})"),
    })?;
    Ok((id > 0).then_some(id))
}

/// `GET /repos/{owner}/{repo}/pulls`: the pull requests of a repository
/// whose pull requests the caller may read (404 otherwise).
pub async fn repo_pulls(
    db: &Db,
    caller: &Caller,
    ctx: &RepoContext,
    q: Params<'_>,
    page: Page,
) -> Result<Listed> {
    let mut checks = Checks {
        kinds: repo_kinds(Some("pulls"), &ctx.perm)?,
        states: states(q.get("state"))?,
        base: q
            .get("base_branch")
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(str::to_string),
        ..Checks::default()
    };
    let order = order(q.get("sort"))?;
    let wanted_labels = label_ids(q.all("labels"))?;
    let milestone = milestone_id(q.get("milestone"))?;
    // The poster, the usable labels and the milestone are read at once;
    // their errors keep the order of the checks.
    let poster = async {
        match q.get("poster").map(str::trim).filter(|p| !p.is_empty()) {
            None => Ok(None),
            Some(login) => search::visible_user(db, caller, login)
                .await?
                .map(|u| Some(crate::name::fold(&u.name)))
                .ok_or_else(|| Error::NoSuchPoster(login.to_string())),
        }
    };
    // Only labels this repository can carry: a deleted label's id may
    // linger on a pull request, which no longer shows it.
    let usable = async {
        match wanted_labels.is_empty() {
            true => Ok(Vec::new()),
            false => labels::usable_in(db, &ctx.repo, ctx.owner.is_org()).await,
        }
    };
    let found_milestone = async {
        match milestone {
            Some(id) => milestones::get(db, ctx.repo.id, id).await,
            None => Ok(None),
        }
    };
    let (poster, usable, found_milestone) = tokio::join!(poster, usable, found_milestone);
    if let Some(login) = poster? {
        checks.relations.push((Relation::Created, login));
    }
    let usable = usable?;
    if !wanted_labels.is_empty() {
        let ids = wanted_labels
            .into_iter()
            .filter(|id| usable.iter().any(|l| l.id == *id))
            .collect();
        // None usable: nothing matches.
        checks.labels = Some(AnyOf::Ids(ids));
    }
    if milestone.is_some() {
        let ids = found_milestone?.map(|m| vec![m.id]).unwrap_or_default();
        checks.milestones = Some(AnyOf::Ids(ids));
    }
    search::listed_in_repo(db, caller, ctx, checks, order, q, page, "pulls").await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_strict_with_open_by_default() {
        assert_eq!(states(None).unwrap(), [false]);
        assert_eq!(states(Some(" ")).unwrap(), [false]);
        assert_eq!(states(Some("closed")).unwrap(), [true]);
        assert_eq!(states(Some(" all ")).unwrap(), [false, true]);
        let err = states(Some("merged")).unwrap_err();
        assert!(
            matches!(&err, Error::Query { field: "state", why } if why.contains("\"merged\"")),
            "{err:?}"
        );
    }

    #[test]
    fn sorts_are_gitea_s_values() {
        for (raw, want) in [
            (None, Order::Newest),
            (Some(""), Order::Newest),
            (Some("oldest"), Order::Oldest),
            (Some("recentupdate"), Order::RecentUpdate),
            (Some("leastupdate"), Order::LeastUpdate),
            (Some("recentclose"), Order::RecentClose),
            (Some("mostcomment"), Order::MostComment),
            (Some("leastcomment"), Order::LeastComment),
            (Some("priority"), Order::Newest),
        ] {
            assert_eq!(order(raw).unwrap(), want, "{raw:?}");
        }
        for bad in ["Oldest", "nearduedate", "x"] {
            assert!(
                matches!(order(Some(bad)), Err(Error::Query { field: "sort", .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn labels_and_milestones_are_ids() {
        let got = label_ids(["3", " 4,5 ", "", "3"].into_iter()).unwrap();
        assert_eq!(got, [3, 4, 5]);
        let many: Vec<String> = (1..=220).map(|i| i.to_string()).collect();
        let ten = many[..10].join(",");
        assert_eq!(label_ids([ten.as_str()].into_iter()).unwrap().len(), 10);
        assert!(
            label_ids(many.iter().map(String::as_str)).is_err(),
            "each id is a listing read at once: at most ten"
        );
        assert!(matches!(
            label_ids(["bug"].into_iter()),
            Err(Error::Query {
                field: "labels",
                ..
            })
        ));
        assert_eq!(milestone_id(None).unwrap(), None);
        assert_eq!(milestone_id(Some("0")).unwrap(), None);
        assert_eq!(milestone_id(Some("-2")).unwrap(), None);
        assert_eq!(milestone_id(Some(" 7 ")).unwrap(), Some(7));
        assert!(matches!(
            milestone_id(Some("v1")),
            Err(Error::Query {
                field: "milestone",
                ..
            })
        ));
    }
}
