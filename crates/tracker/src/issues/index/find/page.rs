//! The page's issues and their repositories, read by key.

use std::collections::{HashMap, HashSet};

use super::super::{query::Checks, walk::Place};
use crate::{
    db::{self, Consistency, Db, keys},
    issues::{IssueRecord, Result},
    repos::{self, RepoRecord, access::Permission},
};

/// The page's issues, read by key (strongly consistent: the page shows
/// them as they are), in the page's order; one that no longer matches its
/// kind, state or time window (changed since it was placed) is left out.
pub(super) async fn fetch(db: &Db, page: &[Place], checks: &Checks) -> Result<Vec<IssueRecord>> {
    let keys = page.iter().map(|p| keys::issue(p.1, p.2)).collect();
    let mut found: HashMap<(i64, i64), IssueRecord> = HashMap::new();
    for item in db.batch_get_many(keys, None, Consistency::Strong).await? {
        let i: IssueRecord = db::from_item(item)?;
        found.insert((i.repo_id, i.index), i);
    }
    Ok(page
        .iter()
        .filter_map(|p| found.remove(&(p.1, p.2)))
        .filter(|i| {
            checks.matches_kind_state(i.is_pull, i.closed)
                && checks.since.is_none_or(|s| i.updated >= s)
                && checks.before.is_none_or(|b| i.updated <= b)
        })
        .collect())
}

/// The repositories of the shown issues: those already resolved, the rest
/// read by id.
pub(super) async fn repos_of(
    db: &Db,
    shown: &[IssueRecord],
    resolved: HashMap<i64, Option<(RepoRecord, Permission)>>,
) -> Result<HashMap<i64, RepoRecord>> {
    let mut out: HashMap<i64, RepoRecord> = resolved
        .into_values()
        .flatten()
        .map(|(r, _)| (r.id, r))
        .collect();
    let missing: Vec<i64> = shown
        .iter()
        .map(|i| i.repo_id)
        .filter(|id| !out.contains_key(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    for r in repos::summaries_by_id(db, &missing).await? {
        out.insert(r.id, r);
    }
    out.retain(|id, _| shown.iter().any(|i| i.repo_id == *id));
    Ok(out)
}
