//! Parked stream changes (crates/runtime/src/stream/park.rs): what the report says
//! of them, and their counters. The total (`PARKED`/`COUNT`) tells each
//! batch whether to look for queues at all, so a total below the truth
//! would let a later change overtake a parked one: it is checked against
//! the changes stored, as is each queue head's `n`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Finding, Fix, Inventory, counter};
use crate::db::{Item, keys, number, text};

/// What is parked, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Parked {
    /// Changes parked (each waits for one handler).
    pub changes: usize,
    /// Queues: one per handler and record.
    pub queues: usize,
    /// Changes per handler.
    pub by_handler: BTreeMap<String, usize>,
    /// How long the oldest queue has waited, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_age_secs: Option<i64>,
}

/// Whether `sk` is a parked change's item (not a part holding an image).
fn is_change(sk: &str) -> bool {
    sk.strip_prefix(keys::PARKED_CHANGE_PREFIX)
        .is_some_and(|seq| !seq.contains('#'))
}

/// Each queue's head and its changes.
fn queues(inv: &Inventory) -> impl Iterator<Item = (&String, Option<&Item>, usize)> {
    inv.partitions
        .iter()
        .filter(|(pk, _)| pk.starts_with(keys::PARKED_PREFIX))
        .map(|(pk, items)| {
            let changes = items.iter().filter(|i| is_change(text(i, "sk"))).count();
            (pk, inv.get(pk, keys::PARKED_QUEUE_SK), changes)
        })
}

/// What is parked, as of `now_ms`.
pub fn report(inv: &Inventory, now_ms: i64) -> Parked {
    let mut out = Parked::default();
    for (_, head, changes) in queues(inv) {
        out.changes += changes;
        out.queues += 1;
        let Some(head) = head else { continue };
        *out.by_handler
            .entry(text(head, "handler").to_string())
            .or_default() += changes;
        let age = (now_ms - number(head, "first_parked")).max(0) / 1000;
        out.oldest_age_secs = Some(out.oldest_age_secs.map_or(age, |a| a.max(age)));
    }
    out
}

pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut total = 0;
    for (pk, head, changes) in queues(inv) {
        total += changes as i64;
        match head {
            Some(head) => counter(&mut out, "parked queue count", head, "n", changes as i64),
            None => out.push(Finding {
                what: "parked changes without their queue's head",
                pk: pk.clone(),
                sk: keys::PARKED_QUEUE_SK.into(),
                fix: Fix::Inspect,
            }),
        }
    }
    let count = keys::parked_count();
    let (pk, sk) = (text(&count, "pk"), text(&count, "sk"));
    match inv.get(pk, sk) {
        Some(item) => counter(&mut out, "parked count", item, "n", total),
        None if total > 0 => out.push(Finding {
            what: "parked count",
            pk: pk.into(),
            sk: sk.into(),
            fix: Fix::SetNumber {
                attribute: "n".into(),
                stored: 0,
                actual: total,
            },
        }),
        None => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, keys::key};

    fn head(pk: &str, handler: &str, n: i64, first: i64) -> Item {
        let mut i = key(pk, keys::PARKED_QUEUE_SK);
        i.insert("handler".into(), db::s(handler));
        i.insert("n".into(), db::n(n));
        i.insert("first_parked".into(), db::n(first));
        i
    }

    fn inventory(items: Vec<Item>) -> Inventory {
        let mut inv = Inventory::default();
        for i in items {
            inv.add(i);
        }
        inv.sort();
        inv
    }

    #[test]
    fn parked_changes_are_reported_and_their_counters_checked() {
        let mut total = keys::parked_count();
        total.insert("n".into(), db::n(3));
        let inv = inventory(vec![
            head("PARK#search#a", "search", 2, 1_000),
            key("PARK#search#a", "C#001"),
            key("PARK#search#a", "C#001#old"),
            key("PARK#search#a", "C#002"),
            head("PARK#hooks#b", "hooks", 2, 5_000),
            key("PARK#hooks#b", "C#003"),
            total,
        ]);
        let r = report(&inv, 61_000);
        assert_eq!((r.changes, r.queues, r.oldest_age_secs), (3, 2, Some(60)));
        assert_eq!(r.by_handler["search"], 2);
        assert_eq!(r.by_handler["hooks"], 1);
        let findings = check(&inv);
        let found: Vec<(&str, &str)> = findings.iter().map(|f| (f.what, f.pk.as_str())).collect();
        assert_eq!(found, [("parked queue count", "PARK#hooks#b")]);
    }

    #[test]
    fn nothing_parked_is_no_finding() {
        let inv = inventory(vec![key("REPO#1", "PROFILE")]);
        assert!(check(&inv).is_empty());
        assert_eq!(report(&inv, 0), Parked::default());
    }
}
