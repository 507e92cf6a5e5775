//! The operator's consistency check, in the spirit of `gitea doctor
//! check`: it reads the whole table (a Scan: an operator's tool, never a
//! request path), recomputes what the code keeps as counters or claims,
//! reports every difference and can repair it.
//!
//! What it recomputes:
//! - tracker: repository issue and pull totals and `last_index`; the
//!   repository name its counters item carries (renames); milestone totals
//!   and membership items; issue and repository comment counts; team
//!   member counts; dependency links (both sides, both issues alive);
//!   grants and comments of deleted repositories, comments of deleted
//!   issues; the search index's entries and counters;
//! - deploy: `refs` of projects, servers, keys and provider apps;
//!   environment and destination counts; each team's object counts; domain
//!   claims against the applications that hold them; open deployments of
//!   deleted applications; children of deleted projects and servers.
//!
//! Checks are pure functions over the scanned items ([`Inventory`]), so
//! they are unit-tested without a database. A scan is not a snapshot: while
//! the API serves, a write can fall between the items it moves, so a repair
//! acts only on findings that two scans a few seconds apart agree on, and
//! counters are set on condition that they still hold what was read.
//! Repairs are idempotent.

mod deploy;
mod repair;
mod scan;
mod search_index;
mod tracker;

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::db::{Item, number, text};

pub use repair::repair;
pub use scan::scan;

/// The table as the checks see it: every item's checked attributes,
/// grouped by partition key, in sort-key order.
#[derive(Debug, Default)]
pub struct Inventory {
    pub partitions: BTreeMap<String, Vec<Item>>,
    pub items: usize,
}

impl Inventory {
    pub fn add(&mut self, item: Item) {
        let pk = text(&item, "pk").to_string();
        self.partitions.entry(pk).or_default().push(item);
        self.items += 1;
    }

    /// Sorts each partition by sort key (a scan returns them in any order).
    pub fn sort(&mut self) {
        for items in self.partitions.values_mut() {
            items.sort_by(|a, b| text(a, "sk").cmp(text(b, "sk")));
        }
    }

    fn partition(&self, pk: &str) -> &[Item] {
        self.partitions.get(pk).map_or(&[], Vec::as_slice)
    }

    fn get(&self, pk: &str, sk: &str) -> Option<&Item> {
        let items = self.partition(pk);
        items
            .binary_search_by(|i| text(i, "sk").cmp(sk))
            .ok()
            .map(|at| &items[at])
    }

    fn with_prefix<'a>(&'a self, pk: &str, prefix: &'a str) -> impl Iterator<Item = &'a Item> {
        self.partition(pk)
            .iter()
            .filter(move |i| text(i, "sk").starts_with(prefix))
    }
}

/// One difference between what is stored and what it should be.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// What kind of drift this is.
    pub what: &'static str,
    pub pk: String,
    pub sk: String,
    pub fix: Fix,
}

/// How a finding is repaired.
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    /// A key-only item is missing (a milestone membership).
    PutKey,
    /// An item nothing reaches any more.
    Delete,
    /// A deployment of a deleted application is still open.
    Cancel,
}

/// Everything found, for the report.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub items_scanned: usize,
    pub drift: Vec<Finding>,
    pub repaired: usize,
    /// Repairs skipped because the value moved meanwhile (run again).
    pub skipped: usize,
}

/// Every finding in `inv`.
pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = tracker::check(inv);
    out.extend(search_index::check(inv, &tracker::live_repos(inv)));
    out.extend(deploy::check(inv));
    out
}

fn flag(item: &Item, name: &str) -> bool {
    matches!(item.get(name), Some(AttributeValue::Bool(true)))
}

fn strings(item: &Item, name: &str) -> Vec<String> {
    match item.get(name) {
        Some(AttributeValue::Ss(v)) => v.clone(),
        Some(AttributeValue::L(v)) => v.iter().filter_map(|x| x.as_s().ok().cloned()).collect(),
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
    pub fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    pub fn keyed(pk: &str, sk: &str, rest: &[(&str, AttributeValue)]) -> Item {
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
        let inv = inventory(vec![
            keyed(
                "OWNER#o",
                "REPO#r",
                &[("id", n(1)), ("owner", s("o")), ("name", s("r"))],
            ),
            keyed(
                "REPO#1",
                "PROFILE",
                &[
                    ("num_issues", n(1)),
                    ("last_index", n(1)),
                    ("owner", s("o")),
                    ("name", s("r")),
                ],
            ),
            keyed(
                "REPO#1",
                "ISSUE#00000000000000000001",
                &[("index", n(1)), ("poster", s("o"))],
            ),
        ]);
        // Its search index: four listings, and the counters (any shard).
        let sk = crate::db::keys::search_sk(0, 1, 1);
        let mut items: Vec<Item> = ["A0", "P0", "O:o", "U:o:c"]
            .iter()
            .map(|scope| keyed(&crate::db::keys::search_pk(scope, false, false), &sk, &[]))
            .collect();
        items.extend(
            ["SXN#A3", "SXN#P5", "SXN#Q1:o"]
                .iter()
                .map(|pk| keyed(pk, "COUNT", &[("io", n(1))])),
        );
        let mut inv = inv;
        items.into_iter().for_each(|i| inv.add(i));
        inv.sort();
        assert_eq!(check(&inv), Vec::new());
    }
}
