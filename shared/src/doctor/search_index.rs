//! The search index (`issues::index`) against the issues: every live
//! issue's entries exist and nothing else does; the counters of the `A`,
//! `P` and per-owner scopes add up to the issues they count. This is also
//! how an existing table gets its index after an upgrade
//! (`check-data --repair`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Finding, Fix, Inventory, finding, flag, strings};
use crate::{
    db::{Item, keys, number, text},
    issues::{
        IssueRecord,
        index::{self, Listing},
    },
};

pub fn check(inv: &Inventory, live: &HashMap<i64, (String, String)>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut expected: BTreeSet<(String, String)> = BTreeSet::new();
    // Counter scope (shard 0's name) → counts by counter name.
    let mut counts: BTreeMap<String, BTreeMap<&'static str, i64>> = BTreeMap::new();
    for (id, (owner, name)) in live {
        let settings = keys::repo_name(owner, name);
        let public = inv
            .get(text(&settings, "pk"), text(&settings, "sk"))
            .is_some_and(|r| !flag(r, "private"));
        let listing = Listing {
            owner: crate::name::fold(owner),
            public,
        };
        for item in inv.with_prefix(&keys::repo_pk(*id), keys::ISSUE_PREFIX) {
            let issue = lite(item, *id, &listing);
            expected.extend(index::entries(&issue));
            let name = index::counter_name(issue.is_pull, issue.closed);
            let mut scopes = vec![index::all_scope(0)];
            if public {
                scopes.push(index::public_scope(0));
                scopes.push(index::owner_count_scope(owner, 0));
            }
            for s in scopes {
                *counts.entry(s).or_default().entry(name).or_default() += 1;
            }
        }
    }
    let mut actual: BTreeSet<(String, String)> = BTreeSet::new();
    // Counter scope (shard 0's name) → (shard 0's item, sums over shards).
    let mut stored: BTreeMap<String, (Option<&Item>, BTreeMap<&'static str, i64>)> =
        BTreeMap::new();
    for (pk, items) in &inv.partitions {
        if let Some(scope) = pk.strip_prefix("SXN#") {
            let first = shard_zero(scope);
            let entry = stored.entry(first.clone()).or_default();
            for item in items {
                if scope == first {
                    entry.0 = Some(item);
                }
                for n in ["io", "ic", "po", "pc"] {
                    *entry.1.entry(n).or_default() += number(item, n);
                }
            }
        } else if pk.starts_with("SX#") {
            actual.extend(
                items
                    .iter()
                    .map(|i| (pk.clone(), text(i, "sk").to_string())),
            );
        }
    }
    for (pk, sk) in expected.difference(&actual) {
        out.push(Finding {
            what: "missing search index entry",
            pk: pk.clone(),
            sk: sk.clone(),
            fix: Fix::PutKey,
        });
    }
    for (pk, sk) in actual.difference(&expected) {
        out.push(Finding {
            what: "stale search index entry",
            pk: pk.clone(),
            sk: sk.clone(),
            fix: Fix::Delete,
        });
    }
    let scopes: BTreeSet<&String> = counts.keys().chain(stored.keys()).collect();
    for scope in scopes {
        let want = counts.get(scope).cloned().unwrap_or_default();
        let (item, have) = stored.get(scope).cloned().unwrap_or_default();
        for n in ["io", "ic", "po", "pc"] {
            let (w, h) = (
                want.get(n).copied().unwrap_or(0),
                have.get(n).copied().unwrap_or(0),
            );
            if w == h {
                continue;
            }
            // The difference goes to shard 0 (only the sum is read).
            let at_zero = item.map_or(0, |i| number(i, n));
            out.push(finding(
                "search index counter",
                &keys::search_counts(scope),
                Fix::SetNumber {
                    attribute: n.to_string(),
                    stored: at_zero,
                    actual: at_zero + w - h,
                },
            ));
        }
    }
    out
}

/// Shard 0's scope name for a counter scope (`A5` → `A0`, `Q3:org` → `Q0:org`).
fn shard_zero(scope: &str) -> String {
    let kind = &scope[..1];
    let rest = scope[1..].trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{kind}0{rest}")
}

/// What the index needs of a scanned issue item.
fn lite(item: &Item, repo_id: i64, listing: &Listing) -> IssueRecord {
    IssueRecord {
        id: number(item, "id"),
        repo_id,
        index: number(item, "index"),
        is_pull: flag(item, "is_pull"),
        closed: flag(item, "closed"),
        created: number(item, "created"),
        poster: text(item, "poster").to_string(),
        assignees: strings(item, "assignees"),
        mentions: strings(item, "mentions"),
        comment_mentions: strings(item, "comment_mentions"),
        listing: Some(listing.clone()),
        ..IssueRecord::default()
    }
}
