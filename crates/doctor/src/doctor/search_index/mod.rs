//! The search index (`issues::index`) against the issues, as the table's
//! stream consumer would have left it. This is also how an existing table
//! gets the index after an upgrade (`check-data --repair`).
//!
//! - documents: every issue of a live repository has its document
//!   (`REPO#<id>`/`IXD#<number>`) as `Doc::derive` makes it from the issue
//!   and its repository's context, with the words of its comments counted
//!   in comment-id order ([`expect`]); `seq`, `rev` and `version` are not
//!   compared. A missing or different one is put (`rev` one past the
//!   stored one, on condition it is unchanged); one of an issue or
//!   repository that is gone is deleted;
//! - listing entries (`IX#...`): those of every expected document
//!   (`lists::entries`) and of every live comment (`index::stubs`,
//!   with the time `t` and state `c` they carry), and no other; every item of the
//!   previous index (`SX#`, `SXN#`) goes;
//! - counters (`IXC#<scope>#<shard>`): per scope and kind-and-state, the
//!   sum over shards equals the expected documents' (`counts::deltas`);
//!   the difference is set on shard 0;
//! - marks of writes (`IXP#`, [`marks`]): none is left of a write the
//!   index holds.
//!
//! Memory: the expected entries are compared with the stored ones as each
//! document is recomputed, and only a 64-bit hash of each is kept (to find
//! the stale ones at the end), so the check holds one copy of the
//! listings (the scanned one), one repository's comment words and one
//! document at a time. (A stale entry whose hash equals an expected one's
//! would go unreported: a chance of the number of expected entries in
//! 2^64, about 10^-12 per stale entry among 10^7; readers skip stale
//! entries anyway.)

mod expect;
mod marks;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use tests::consistent_table;

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, HashSet},
    ops::Bound,
};

use super::{
    Finding, Fix, Inventory, finding,
    inventory::{self, OBSOLETE_PREFIXES, StoredDoc},
};
use crate::{
    db::{Item, keys, number, text},
    issues::index::{
        counts,
        doc::Doc,
        lists::{self, Stub},
    },
};

/// Counter names (`counts::counter_name` of each kind and state).
const COUNTERS: [&str; 4] = ["io", "ic", "po", "pc"];

/// What the index should hold, as far as it is kept while checking.
#[derive(Default)]
struct Expected {
    /// Hashes of the (partition, sort) keys of expected entries.
    entries: HashSet<u64>,
    /// Counts by scope and counter name.
    counts: BTreeMap<(String, &'static str), i64>,
    /// Issues (repository, number) whose document is as expected.
    filed: HashSet<(i64, i64)>,
}

impl Expected {
    /// An entry that should exist (with the time `t` and state it carries,
    /// where it carries them): a finding when it does not, or carries
    /// others.
    fn entry(
        &mut self,
        out: &mut Vec<Finding>,
        inv: &Inventory,
        pk: String,
        sk: String,
        stub: Option<Stub>,
    ) {
        self.entries.insert(entry_hash(&pk, &sk));
        // An entry written before entries named their issue passes: the
        // listings read the comment's own issue number where it lacks one.
        let (what, fix) = match (inv.entry(&pk, &sk), stub) {
            (None, None) => ("missing search index entry", Fix::PutKey),
            (None, Some(stub)) => ("missing search index entry", Fix::PutStub(stub)),
            (Some(have), Some(stub)) if have != Some((stub.t, stub.closed)) => {
                ("search index entry with the wrong time", Fix::PutStub(stub))
            }
            _ => return,
        };
        out.push(Finding { what, pk, sk, fix });
    }

    fn count(&mut self, d: &Doc) {
        for (key, n) in counts::deltas(None, Some(d)) {
            *self.counts.entry(key).or_default() += n;
        }
    }
}

fn entry_hash(pk: &str, sk: &str) -> u64 {
    inventory::hash(&[pk.as_bytes(), sk.as_bytes()])
}

pub fn check(inv: &Inventory, live: &HashMap<i64, (String, String)>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut expected = Expected::default();
    let mut ids: Vec<i64> = live.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let (owner, name) = &live[&id];
        repository(&mut out, &mut expected, inv, id, owner, name);
    }
    for ((repo, index), _) in inv.docs.iter().filter(|((r, _), _)| !live.contains_key(r)) {
        out.push(doc_finding(
            "search index document of a deleted repository",
            *repo,
            *index,
            Fix::Delete,
        ));
    }
    stale(&mut out, inv, &expected.entries);
    counters(&mut out, inv, &expected.counts);
    marks::check(&mut out, inv, live, &expected.filed);
    out
}

/// A live repository's documents, its documents' and comments' entries
/// (and their counts, into `expected`).
fn repository(
    out: &mut Vec<Finding>,
    expected: &mut Expected,
    inv: &Inventory,
    id: i64,
    owner: &str,
    name: &str,
) {
    let pk = keys::repo_pk(id);
    let issues: BTreeMap<i64, &Item> = inv
        .with_prefix(&pk, keys::ISSUE_PREFIX)
        .map(|i| (number(i, "index"), i))
        .collect();
    // Comments of live issues: their words (in id order, the sort-key
    // order) and their entries. Those of deleted issues go (tracker).
    let mut comment_words: HashMap<i64, BTreeMap<String, u32>> = HashMap::new();
    for c in inv.with_prefix(&pk, keys::COMMENT_PREFIX) {
        let index = number(c, "index");
        if !issues.contains_key(&index) {
            continue;
        }
        expect::count_comment(comment_words.entry(index).or_default(), c);
        for ((lpk, lsk), stub) in expect::stubs(c) {
            expected.entry(out, inv, lpk, lsk, Some(stub));
        }
    }
    let cx = expect::context(inv, id, owner, name);
    let mut filed = HashSet::new();
    if let Some(cx) = &cx {
        for (index, issue) in &issues {
            let Some(mut d) = expect::document(issue, cx) else {
                // Nor could the consumer file it: its document goes.
                out.push(finding("unreadable issue", issue, Fix::Inspect));
                continue;
            };
            d.comment_words = comment_words.remove(index).unwrap_or_default();
            for ((lpk, lsk), stub) in lists::entries(&d) {
                // An update entry written before those carried anything
                // passes: readers fall back to the document.
                let stub = stub.filter(|_| !matches!(inv.entry(&lpk, &lsk), Some(None)));
                expected.entry(out, inv, lpk, lsk, stub);
            }
            expected.count(&d);
            if document(out, d, inv.docs.get(&(id, *index))) {
                expected.filed.insert((id, *index));
            }
            filed.insert(*index);
        }
    }
    for ((_, index), _) in inv.docs.range((id, i64::MIN)..=(id, i64::MAX)) {
        if filed.contains(index) {
            continue;
        }
        let what = if cx.is_none() {
            // The consumer takes it for gone (no owner or counters).
            "search index document of a deleted repository"
        } else {
            "search index document of a deleted issue"
        };
        out.push(doc_finding(what, id, *index, Fix::Delete));
    }
}

/// The expected document `d` against the stored one: whether it is as
/// expected.
fn document(out: &mut Vec<Finding>, mut d: Doc, stored: Option<&StoredDoc>) -> bool {
    let want = inventory::fingerprint(&d);
    let fields: Vec<String> = match stored.map(|s| &s.fields) {
        None => Vec::new(),
        Some(None) => vec!["(unreadable)".into()],
        Some(Some(have)) => want
            .keys()
            .chain(have.keys())
            .filter(|f| want.get(*f) != have.get(*f))
            .cloned()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    };
    if stored.is_some() && fields.is_empty() {
        return true;
    }
    // Written as the consumer writes it: the stored position in the
    // stream kept (a change delivered again is still recognised), the
    // revision moved on.
    d.seq = stored.map(|s| s.seq.clone()).unwrap_or_default();
    if let Some(s) = stored {
        d.cseq = s.cseq.clone();
    }
    d.rev = stored.map_or(1, |s| s.rev + 1);
    let (repo, index) = (d.repo_id, d.index);
    out.push(doc_finding(
        "search index document",
        repo,
        index,
        Fix::PutDocument {
            stored_rev: stored.map(|s| s.rev),
            fields,
            document: Box::new(d),
        },
    ));
    false
}

fn doc_finding(what: &'static str, repo: i64, index: i64, fix: Fix) -> Finding {
    finding(what, &keys::index_doc(repo, index), fix)
}

/// Entries nothing expects, and every item of the previous index.
fn stale(out: &mut Vec<Finding>, inv: &Inventory, expected: &HashSet<u64>) {
    for (pk, entries) in &inv.listings {
        let obsolete = OBSOLETE_PREFIXES.iter().any(|p| pk.starts_with(p));
        for (sk, _) in entries {
            let what = if obsolete {
                "item of the previous search index"
            } else if !expected.contains(&entry_hash(pk, sk)) {
                "stale search index entry"
            } else {
                continue;
            };
            out.push(Finding {
                what,
                pk: pk.clone(),
                sk: sk.to_string(),
                fix: Fix::Delete,
            });
        }
    }
}

/// The scope and shard of a counters item's partition key
/// (`IXC#<scope>#<shard>`).
fn counter_scope(pk: &str) -> Option<(&str, i64)> {
    let (scope, shard) = pk.strip_prefix("IXC#")?.rsplit_once('#')?;
    Some((scope, shard.parse().ok()?))
}

/// Each scope's counters, summed over its shards, against the expected
/// documents'; the difference goes to shard 0 (readers only sum them).
fn counters(out: &mut Vec<Finding>, inv: &Inventory, want: &BTreeMap<(String, &'static str), i64>) {
    // Scope -> (shard 0's item, sums by counter).
    let mut have: BTreeMap<&str, (Option<&Item>, [i64; 4])> = BTreeMap::new();
    let from = (Bound::Included("IXC#"), Bound::Unbounded);
    for (pk, items) in inv
        .partitions
        .range::<str, _>(from)
        .take_while(|(pk, _)| pk.starts_with("IXC#"))
    {
        let Some((scope, shard)) = counter_scope(pk) else {
            continue;
        };
        let entry = have.entry(scope).or_default();
        for item in items.iter().filter(|i| text(i, "sk") == "COUNT") {
            if shard == 0 {
                entry.0 = Some(item);
            }
            for (sum, name) in entry.1.iter_mut().zip(COUNTERS) {
                *sum += number(item, name);
            }
        }
    }
    let scopes: BTreeSet<&str> = want
        .keys()
        .map(|(scope, _)| scope.as_str())
        .chain(have.keys().copied())
        .collect();
    for scope in scopes {
        let (zero, sums) = have.get(scope).copied().unwrap_or_default();
        for (name, h) in COUNTERS.into_iter().zip(sums) {
            let w = want.get(&(scope.to_string(), name)).copied().unwrap_or(0);
            if w == h {
                continue;
            }
            let at_zero = zero.map_or(0, |i| number(i, name));
            out.push(finding(
                "search index counter",
                &keys::index_counts(scope, 0),
                Fix::SetNumber {
                    attribute: name.to_string(),
                    stored: at_zero,
                    actual: at_zero + w - h,
                },
            ));
        }
    }
}
