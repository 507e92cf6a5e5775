//! The operator's consistency check, in the spirit of `gitea doctor
//! check`: it reads the whole table (a Scan: an operator's tool, never a
//! request path), recomputes what the code keeps as counters or claims,
//! reports every difference and can repair it.
//!
//! What it recomputes:
//! - tracker: repository issue and pull totals and `last_index`; the
//!   repository name and the copies of its settings (visibility, units)
//!   its counters item carries; milestone totals and membership items;
//!   issue and repository comment counts; team member counts; dependency
//!   links (both sides, both issues alive); grants and comments of deleted
//!   repositories, comments of deleted issues;
//! - search index ([`search_index`]): every issue's document, recomputed
//!   from the issue, its repository, labels, milestone and comments as the
//!   stream consumer would; the listing entries of every document and
//!   comment, none other (and none of the previous index); the counters;
//! - deploy: `refs` of projects, servers, keys and provider apps;
//!   environment and destination counts; each team's object counts; domain
//!   claims against the applications that hold them; open deployments of
//!   deleted applications; children of deleted projects and servers;
//!   environment variables (and their tallies) of deleted applications and
//!   the tallies of live ones; deploy-key and provider-app secrets stored
//!   in the clear, which a repair seals; projects, environments and
//!   applications without Coolify's numeric ids (written before them),
//!   which a repair numbers;
//! - webhooks: each owner's hook counter against its hooks;
//! - parked stream changes ([`parked`]): the count of all parked changes
//!   and each queue's against the changes stored; the report lists how
//!   many are parked, per handler, and how long the oldest has waited.
//!
//! Checks are pure functions over the scanned items ([`Inventory`]), so
//! they are unit-tested without a database. A scan is not a snapshot: while
//! the API serves, a write can fall between the items it moves, so a repair
//! acts only on findings that two scans a few seconds apart agree on, and
//! counters and documents are written on condition that they still hold
//! what was read. Repairs are idempotent.

mod deploy;
mod hooks;
mod inventory;
pub mod parked;
mod repair;
mod scan;
mod search_index;
mod tracker;

use std::collections::HashMap;

use serde::Serialize;

use crate::{
    db::{Item, Value, number, text},
    issues::index::{doc::Doc, lists::Stub},
};

pub use inventory::Inventory;
pub use repair::repair;
pub use scan::scan;

/// One difference between what is stored and what it should be. Two scans
/// agree on a finding when they find it equal (hashed by kind and key).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// What kind of drift this is.
    pub what: &'static str,
    pub pk: String,
    pub sk: String,
    pub fix: Fix,
}

impl std::hash::Hash for Finding {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (self.what, &self.pk, &self.sk).hash(h);
    }
}

/// How a finding is repaired.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Fix {
    /// A counter holds `stored` where it should hold `actual`.
    SetNumber {
        attribute: String,
        stored: i64,
        actual: i64,
    },
    /// A text attribute is outdated (a renamed repository's counters item).
    SetText {
        attribute: String,
        stored: String,
        actual: String,
    },
    /// A claim's holders differ from the applications claiming it.
    SetHolders {
        stored: Vec<String>,
        actual: Vec<String>,
    },
    /// A copied setting is outdated (a repository's visibility or units on
    /// its counters item).
    SetFlag {
        attribute: String,
        stored: bool,
        actual: bool,
    },
    /// A key-only item is missing (a milestone membership, an index
    /// listing entry).
    PutKey,
    /// A small derived item is missing or outdated (a public repository's
    /// listing entry, an owner's id item): put whole, with these texts,
    /// numbers and flags.
    PutAttributes {
        texts: std::collections::BTreeMap<String, String>,
        numbers: std::collections::BTreeMap<String, i64>,
        flags: std::collections::BTreeMap<String, bool>,
    },
    /// A comment's listing entry is missing or carries the wrong time.
    PutStub(Stub),
    /// An issue's index document is missing (`stored_rev` none) or differs
    /// in `fields`: `document` is put on condition that the stored one is
    /// still at `stored_rev`.
    PutDocument {
        stored_rev: Option<i64>,
        fields: Vec<String>,
        #[serde(skip)]
        document: Box<Doc>,
    },
    /// A repository's counters item names deleted issues as still being
    /// cleaned up, though no job is left to finish them.
    StopPurging(Vec<i64>),
    /// An item nothing reaches any more.
    Delete,
    /// A deployment of a deleted application is still open.
    Cancel,
    /// A queued deployment (queued by an older release) has no entry in
    /// its server's queue, so no runner would claim it.
    Enqueue,
    /// A clean-up (written by an older release) is not listed under its
    /// server, so no runner would find it.
    IndexCleanup,
    /// Secret attributes written in the clear by an older release are to
    /// be sealed (`deploy::store::secret`).
    Seal { attributes: Vec<String> },
    /// A project, environment or application written before numeric ids
    /// has no `id`, or does not carry its parent's (an environment's
    /// `project_id`, an application's `environment_id`): the repair takes
    /// ids from the team's sequences (`deploy::store::ids`), the parent's
    /// first, and sets each only where it is still missing.
    AssignIds,
    /// Nothing to do automatically: the item needs a look.
    Inspect,
}

/// Everything found, for the report.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub items_scanned: usize,
    /// Read units the scans consumed.
    pub read_units: f64,
    pub drift: Vec<Finding>,
    /// Stream changes parked for a handler that failed on them (not drift:
    /// they are retried until they succeed; what they derive lags until
    /// then).
    pub parked: parked::Parked,
    pub repaired: usize,
    /// Repairs skipped because the value moved meanwhile (run again).
    pub skipped: usize,
}

/// Every finding in `inv`.
pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = tracker::check(inv);
    out.extend(search_index::check(inv, &tracker::live_repos(inv)));
    out.extend(deploy::check(inv));
    out.extend(hooks::check(inv));
    out.extend(parked::check(inv));
    out
}

fn flag(item: &Item, name: &str) -> bool {
    matches!(item.get(name), Some(Value::Bool(true)))
}

fn strings(item: &Item, name: &str) -> Vec<String> {
    match item.get(name) {
        Some(Value::Ss(v)) => v.clone(),
        Some(Value::L(v)) => v.iter().filter_map(|x| x.as_s().ok().cloned()).collect(),
        _ => Vec::new(),
    }
}

fn finding(what: &'static str, item: &Item, fix: Fix) -> Finding {
    Finding {
        what,
        pk: text(item, "pk").to_string(),
        sk: text(item, "sk").to_string(),
        fix,
    }
}

/// A counter check: a finding when `stored` differs from `actual`.
fn counter(out: &mut Vec<Finding>, what: &'static str, item: &Item, attribute: &str, actual: i64) {
    let stored = number(item, attribute);
    if stored != actual {
        out.push(finding(
            what,
            item,
            Fix::SetNumber {
                attribute: attribute.to_string(),
                stored,
                actual,
            },
        ));
    }
}

/// Counts by key, for recomputing totals.
fn tally<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> HashMap<K, i64> {
    let mut counts = HashMap::new();
    for k in keys {
        *counts.entry(k).or_insert(0) += 1;
    }
    counts
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::db::{n, s};

    /// An item from (attribute, value) pairs.
    pub fn item(pairs: &[(&str, Value)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    pub fn keyed(pk: &str, sk: &str, rest: &[(&str, Value)]) -> Item {
        let mut i = item(rest);
        i.insert("pk".into(), s(pk));
        i.insert("sk".into(), s(sk));
        i
    }

    pub fn inventory(items: Vec<Item>) -> Inventory {
        let mut inv = Inventory::default();
        items.into_iter().for_each(|i| inv.add(i));
        inv.sort();
        inv
    }

    #[test]
    fn a_consistent_table_has_no_findings() {
        // A repository with an issue, a label, a milestone, comments, and
        // the search index the stream consumer keeps of them.
        let inv = inventory(search_index::consistent_table());
        assert_eq!(check(&inv), Vec::new());
    }

    #[test]
    fn scanned_issues_and_comments_keep_words_not_texts() {
        let issue = keyed(
            "REPO#1",
            "ISSUE#00000000000000000003",
            &[
                ("index", n(3)),
                ("title", s("Crash on start")),
                ("body", s("segfault")),
                ("lock_reason", s("kept")),
            ],
        );
        let comment = keyed(
            "REPO#1",
            "COMMENT#00000000000000000009",
            &[
                ("index", n(3)),
                ("body", s("Parser, again")),
                ("gsi1pk", s("x")),
            ],
        );
        let inv = inventory(vec![issue, comment]);
        let [c, i] = &inv.partitions["REPO#1"][..] else {
            panic!("{inv:?}")
        };
        assert!(!i.contains_key("title") && !i.contains_key("body"));
        assert_eq!(
            i.get("lock_reason"),
            Some(&s("kept")),
            "issues keep the rest"
        );
        assert_eq!(
            inventory::words(i).collect::<Vec<_>>(),
            ["crash", "start", "segfault", "3"]
        );
        assert!(!c.contains_key("body") && !c.contains_key("gsi1pk"));
        assert_eq!(inventory::words(c).collect::<Vec<_>>(), ["parser", "again"]);
    }
}
