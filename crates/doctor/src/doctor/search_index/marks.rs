//! Marks of writes the index holds already (`issues::index::pending`).
//! The consumer takes a write's marks away once it has filed the write;
//! one it could not (its delete failed, or a crash came between) keeps
//! its issue read from the table by every listing until the mark's TTL,
//! and enough of them make a repository's listings answer 503. On a table
//! the consumer has caught up with, a mark whose issue's document is as
//! expected, or whose deleted issue left no document, is such a leftover.

use std::collections::{HashMap, HashSet};

use super::super::{Finding, Fix, Inventory, finding};
use crate::db::{keys, text};

const WHAT: &str = "search index mark of a filed write";

pub(super) fn check(
    out: &mut Vec<Finding>,
    inv: &Inventory,
    live: &HashMap<i64, (String, String)>,
    filed: &HashSet<(i64, i64)>,
) {
    let indexed = |repo: i64, index: i64| {
        let pk = keys::repo_pk(repo);
        let gone = |sk: String| inv.get(&pk, &sk).is_none();
        filed.contains(&(repo, index))
            || (gone(sk_of(&keys::issue(repo, index))) && !inv.docs.contains_key(&(repo, index)))
    };
    let mut ids: Vec<i64> = live.keys().copied().collect();
    ids.sort_unstable();
    for repo in ids {
        for mark in inv.with_prefix(&keys::repo_pk(repo), keys::INDEX_PENDING_PREFIX) {
            let index = text(mark, "sk")[keys::INDEX_PENDING_PREFIX.len()..].parse();
            if index.is_ok_and(|index| indexed(repo, index)) {
                out.push(finding(WHAT, mark, Fix::Delete));
            }
        }
    }
    // A writer's mark goes with its repository's: it is left over when
    // that one is gone, holds a later write's token, or is left over too.
    let owners = inv
        .partitions
        .range("OWNER#".to_string().."OWNER$".to_string());
    for items in owners.map(|(_, items)| items) {
        for mark in items {
            let Some((repo, index)) = writer_mark(text(mark, "sk")) else {
                continue;
            };
            let of_repo = inv.get(
                &keys::repo_pk(repo),
                &sk_of(&keys::index_pending(repo, index)),
            );
            let left = match of_repo {
                None => true,
                Some(m) => text(m, "w") != text(mark, "w") || indexed(repo, index),
            };
            if left || !live.contains_key(&repo) {
                out.push(finding(WHAT, mark, Fix::Delete));
            }
        }
    }
}

fn sk_of(key: &crate::db::Item) -> String {
    text(key, "sk").to_string()
}

/// (repository, number) of a writer's mark's sort key.
fn writer_mark(sk: &str) -> Option<(i64, i64)> {
    let rest = sk.strip_prefix(keys::INDEX_PENDING_PREFIX)?;
    let (repo, index) = rest.split_once('#')?;
    Some((repo.parse().ok()?, index.parse().ok()?))
}
