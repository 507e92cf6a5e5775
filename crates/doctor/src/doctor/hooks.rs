//! Webhook checks: each owner's hook counter (`HOOK#N`, which bounds
//! creates at [`MAX_HOOKS`](crate::hooks::MAX_HOOKS)) against the hooks in
//! its partition.

use super::{Finding, Fix, Inventory};
use crate::db::{keys, number};

/// Where the counter lives in an owner's partition.
const COUNTER_SK: &str = "HOOK#N";

pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    for pk in inv.partitions.keys() {
        let hooks = inv.with_prefix(pk, keys::HOOK_ENTRY_PREFIX).count() as i64;
        let counter = inv.get(pk, COUNTER_SK);
        let stored = counter.map_or(0, |c| number(c, "n"));
        if stored != hooks && (hooks > 0 || counter.is_some()) {
            out.push(Finding {
                what: "hook count",
                pk: pk.clone(),
                sk: COUNTER_SK.into(),
                fix: Fix::SetNumber {
                    attribute: "n".into(),
                    stored,
                    actual: hooks,
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Item};

    fn item(pk: &str, sk: &str, n: Option<i64>) -> Item {
        let mut i = keys::key(pk, sk);
        if let Some(n) = n {
            i.insert("n".into(), db::n(n));
        }
        i
    }

    #[test]
    fn counters_follow_the_hooks_they_count() {
        let mut inv = Inventory::default();
        for i in [
            item("REPO#1", "HOOK#H#00000000000000000001", None),
            item("REPO#1", "HOOK#H#00000000000000000002", None),
            item("REPO#1", COUNTER_SK, Some(3)),
            item("OWNER#ann", "HOOK#H#00000000000000000003", None),
            item("OWNER#bo", COUNTER_SK, Some(1)),
            item("SITEHOOKS", COUNTER_SK, Some(0)),
        ] {
            inv.add(i);
        }
        inv.sort();
        let found: Vec<(String, i64, i64)> = check(&inv)
            .into_iter()
            .map(|f| match f.fix {
                Fix::SetNumber { stored, actual, .. } => (f.pk, stored, actual),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            found,
            [
                ("OWNER#ann".to_string(), 0, 1),
                ("OWNER#bo".to_string(), 1, 0),
                ("REPO#1".to_string(), 3, 2),
            ]
        );
    }
}
