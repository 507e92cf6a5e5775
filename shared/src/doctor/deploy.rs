//! Deploy checks, per team partition: reference counts, child counts, the
//! team's object counts, children and open deployments left by deletes;
//! and, across partitions, domain claims against their applications.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::{Finding, Fix, Inventory, counter, finding, strings, text};
use crate::{
    db::{Item, keys},
    deploy::{model::domains, store::quota},
};

fn of_kind<'a>(items: &'a [Item], kind: &'a str) -> impl Iterator<Item = &'a Item> + 'a {
    items.iter().filter(move |i| text(i, "kind") == kind)
}

fn uses(items: &[&Item], field: &str, uuid: &str) -> i64 {
    items.iter().filter(|i| text(i, field) == uuid).count() as i64
}

pub fn check(inv: &Inventory) -> Vec<Finding> {
    let mut out = Vec::new();
    // (team, domain) → applications holding it, by their records.
    let mut expected: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (pk, items) in &inv.partitions {
        let Some(team) = pk.strip_prefix("DTEAM#") else {
            continue;
        };
        let apps: Vec<&Item> = of_kind(items, "application").collect();
        let servers: Vec<&Item> = of_kind(items, "server").collect();
        let provider_apps: Vec<&Item> = of_kind(items, "provider_app").collect();
        for app in &apps {
            // By claim (host, port, path): claims kept by whole URL, as
            // before, are found held by nobody and go; these are made.
            for d in domains::claim_forms(&strings(app, "claimed")) {
                expected
                    .entry((team.to_string(), d))
                    .or_default()
                    .insert(text(app, "uuid").to_string());
            }
        }
        let what = "reference count";
        for p in of_kind(items, "project") {
            counter(
                &mut out,
                what,
                p,
                "refs",
                uses(&apps, "project_uuid", text(p, "uuid")),
            );
        }
        for s in &servers {
            counter(
                &mut out,
                what,
                s,
                "refs",
                uses(&apps, "server_uuid", text(s, "uuid")),
            );
        }
        for a in &provider_apps {
            let n = uses(&apps, "provider_app_uuid", text(a, "uuid"));
            counter(&mut out, what, a, "refs", n);
        }
        for k in of_kind(items, "ssh_key") {
            let u = text(k, "uuid");
            let n = uses(&apps, "private_key_uuid", u)
                + uses(&servers, "private_key_uuid", u)
                + uses(&provider_apps, "private_key_uuid", u);
            counter(&mut out, what, k, "refs", n);
        }
        children(&mut out, items);
        counts(&mut out, pk, items);
        let live: HashSet<&str> = apps.iter().map(|a| text(a, "uuid")).collect();
        for d in of_kind(items, "deployment") {
            let open = matches!(text(d, "status"), "queued" | "in_progress");
            if open && !live.contains(text(d, "application_uuid")) {
                out.push(finding(
                    "open deployment of a deleted application",
                    d,
                    Fix::Cancel,
                ));
            }
        }
    }
    claims(&mut out, inv, expected);
    out
}

/// Environments and destinations: counted on their parent, removed with it.
fn children(out: &mut Vec<Finding>, items: &[Item]) {
    let families = [
        ("project", "environment", "project_uuid", "envs", "ENVNAME#"),
        ("server", "destination", "server_uuid", "dests", "NET#"),
    ];
    for (parent_kind, child_kind, link, count, guard) in families {
        let parents: HashSet<&str> = of_kind(items, parent_kind)
            .map(|p| text(p, "uuid"))
            .collect();
        for p in of_kind(items, parent_kind) {
            let n = of_kind(items, child_kind)
                .filter(|c| text(c, link) == text(p, "uuid"))
                .count() as i64;
            counter(out, "child count", p, count, n);
        }
        for c in of_kind(items, child_kind) {
            if !parents.contains(text(c, link)) {
                out.push(finding("child of a deleted parent", c, Fix::Delete));
            }
        }
        // Name guards: `<PARENT>#<uuid>#<guard><name>`, key-only.
        for g in items
            .iter()
            .filter(|i| text(i, "sk").contains(&format!("#{guard}")))
        {
            let parent = text(g, "sk").split('#').nth(1).unwrap_or("");
            if !parents.contains(parent) {
                out.push(finding("child of a deleted parent", g, Fix::Delete));
            }
        }
    }
}

/// The team's object counts (`deploy::quota`).
fn counts(out: &mut Vec<Finding>, pk: &str, items: &[Item]) {
    let mut stored = items
        .iter()
        .find(|i| text(i, "sk") == quota::COUNTS_SK)
        .cloned()
        .unwrap_or_default();
    stored.insert("pk".into(), crate::db::s(pk));
    stored.insert("sk".into(), crate::db::s(quota::COUNTS_SK));
    for kind in quota::Kind::ALL {
        let n = of_kind(items, kind.item_kind()).count() as i64;
        counter(out, "team object count", &stored, kind.attribute(), n);
    }
}

fn claims(
    out: &mut Vec<Finding>,
    inv: &Inventory,
    mut expected: BTreeMap<(String, String), BTreeSet<String>>,
) {
    for (pk, items) in inv
        .partitions
        .iter()
        .filter(|(pk, _)| pk.starts_with("DDOMAIN#"))
    {
        let Some((team, domain)) = pk
            .strip_prefix("DDOMAIN#")
            .and_then(|rest| rest.split_once('#'))
        else {
            continue;
        };
        let want = expected
            .remove(&(team.to_string(), domain.to_string()))
            .unwrap_or_default();
        for claim in items {
            let have: BTreeSet<String> = strings(claim, "apps").into_iter().collect();
            if have != want {
                out.push(finding(
                    "domain claim",
                    claim,
                    Fix::SetHolders {
                        stored: have.into_iter().collect(),
                        actual: want.iter().cloned().collect(),
                    },
                ));
            }
        }
    }
    for ((team, domain), want) in expected {
        let key = keys::domain_claim(&team, &domain);
        out.push(Finding {
            what: "domain claim",
            pk: text(&key, "pk").to_string(),
            sk: text(&key, "sk").to_string(),
            fix: Fix::SetHolders {
                stored: Vec::new(),
                actual: want.into_iter().collect(),
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{inventory, keyed};
    use super::*;
    use crate::db::{n, s};
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn refs_counts_claims_and_leftovers() {
        let app = keyed(
            "DTEAM#t",
            "APP#a1",
            &[
                ("kind", s("application")),
                ("uuid", s("a1")),
                ("project_uuid", s("p1")),
                ("server_uuid", s("s1")),
                ("claimed", AttributeValue::L(vec![s("https://x.test")])),
            ],
        );
        let inv = inventory(vec![
            app,
            keyed(
                "DTEAM#t",
                "PROJECT#p1",
                &[
                    ("kind", s("project")),
                    ("uuid", s("p1")),
                    ("refs", n(1)),
                    ("envs", n(0)),
                ],
            ),
            keyed(
                "DTEAM#t",
                "SERVER#s1",
                &[("kind", s("server")), ("uuid", s("s1")), ("refs", n(3))],
            ),
            keyed(
                "DTEAM#t",
                "PROJECT#gone#ENV#e",
                &[("kind", s("environment")), ("project_uuid", s("gone"))],
            ),
            keyed(
                "DTEAM#t",
                "DEPLOYMENT#d",
                &[
                    ("kind", s("deployment")),
                    ("status", s("queued")),
                    ("application_uuid", s("a0")),
                ],
            ),
            keyed(
                "DDOMAIN#t#https://y.test",
                "DOMAIN",
                &[("apps", AttributeValue::Ss(vec!["a1".into()]))],
            ),
        ]);
        let found = check(&inv);
        let whats: Vec<&str> = found.iter().map(|f| f.what).collect();
        assert!(
            found.iter().any(|f| f.sk == "SERVER#s1"
                && f.fix
                    == Fix::SetNumber {
                        attribute: "refs".into(),
                        stored: 3,
                        actual: 1
                    }),
            "{found:#?}"
        );
        assert!(whats.contains(&"child of a deleted parent"));
        assert!(whats.contains(&"open deployment of a deleted application"));
        // y.test is held by nobody; x.test has no claim item.
        assert_eq!(whats.iter().filter(|w| **w == "domain claim").count(), 2);
        // One application, one project, one server counted on the team.
        assert!(found.iter().any(|f| f.sk == "COUNTS"
            && f.fix
                == Fix::SetNumber {
                    attribute: "applications".into(),
                    stored: 0,
                    actual: 1
                }));
    }
}
