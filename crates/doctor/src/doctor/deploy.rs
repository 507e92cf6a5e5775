//! Deploy checks, per team partition: reference counts, child counts, the
//! team's object counts, children and open deployments left by deletes;
//! and, across partitions, domain claims against their applications.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::{Finding, Fix, Inventory, counter, finding, number, strings, text};
use crate::{
    db::{Item, keys},
    deploy::{model::domains, provider_apps, ssh_keys, store::quota},
    seal,
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
        runs(&mut out, inv, items);
        envs(&mut out, items, &live);
        clear_secrets(&mut out, items);
        ids(&mut out, items);
    }
    claims(&mut out, inv, expected);
    out
}

/// What runners find their work by, for records an older release wrote:
/// a queued deployment's entry in its server's queue, a clean-up's entry
/// in its server's index. (Stale queue entries and run locks are cleared
/// by the claims that meet them; a scan could not tell them from new.)
fn runs(out: &mut Vec<Finding>, inv: &Inventory, items: &[Item]) {
    for d in of_kind(items, "deployment").filter(|d| text(d, "status") == "queued") {
        let queue = keys::server_queue_pk(text(d, "server_uuid"));
        let entry = format!("{}#{}", text(d, "created_at"), text(d, "deployment_uuid"));
        if inv.get(&queue, &entry).is_none() {
            out.push(finding(
                "queued deployment missing from its server's queue",
                d,
                Fix::Enqueue,
            ));
        }
    }
    for c in of_kind(items, "cleanup").filter(|c| !c.contains_key("indexed")) {
        out.push(finding(
            "clean-up not listed under its server",
            c,
            Fix::IndexCleanup,
        ));
    }
}

/// Environment variables: those of deleted applications go (what an
/// interrupted delete left); each live application's tally matches its
/// variables.
fn envs(out: &mut Vec<Finding>, items: &[Item], live: &HashSet<&str>) {
    let mut held: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for it in items {
        let sk = text(it, "sk");
        let app = if let Some(rest) = sk.strip_prefix("ENVS#") {
            rest
        } else if matches!(text(it, "kind"), "env" | "envkey") {
            text(it, "application_uuid")
        } else {
            continue;
        };
        if !live.contains(app) {
            out.push(finding(
                "environment variable of a deleted application",
                it,
                Fix::Delete,
            ));
        } else if text(it, "kind") == "env" {
            let h = held.entry(app).or_default();
            h.0 += 1;
            h.1 += number(it, "value_bytes");
        }
    }
    for tally in items.iter().filter(|i| text(i, "sk").starts_with("ENVS#")) {
        let app = &text(tally, "sk")["ENVS#".len()..];
        if live.contains(app) {
            let (count, bytes) = held.get(app).copied().unwrap_or_default();
            counter(out, "environment variable tally", tally, "count", count);
            counter(out, "environment variable tally", tally, "bytes", bytes);
        }
    }
}

/// Coolify's numeric ids, missing on what an older release wrote: a
/// record's own, an environment's `project_id`, an application's
/// `environment_id` (when its environment is still there).
fn ids(out: &mut Vec<Finding>, items: &[Item]) {
    let environments: HashSet<&str> = of_kind(items, "environment")
        .map(|e| text(e, "uuid"))
        .collect();
    for it in items {
        let missing = match text(it, "kind") {
            "project" => !it.contains_key("id"),
            "environment" => !it.contains_key("id") || !it.contains_key("project_id"),
            "application" => {
                !it.contains_key("id")
                    || (!it.contains_key("environment_id")
                        && environments.contains(text(it, "environment_uuid")))
            }
            _ => false,
        };
        if missing {
            out.push(finding(
                "deploy record without its numeric ids",
                it,
                Fix::AssignIds,
            ));
        }
    }
}

/// Secrets an older release stored in the clear.
fn clear_secrets(out: &mut Vec<Finding>, items: &[Item]) {
    for (kind, attributes) in [
        ("ssh_key", ssh_keys::SECRETS),
        ("provider_app", provider_apps::SECRETS),
    ] {
        for it in of_kind(items, kind) {
            let clear: Vec<String> = attributes
                .iter()
                .filter(|a| !text(it, a).is_empty() && !seal::is_sealed(text(it, a)))
                .map(|a| a.to_string())
                .collect();
            if !clear.is_empty() {
                out.push(finding(
                    "secret stored in the clear",
                    it,
                    Fix::Seal { attributes: clear },
                ));
            }
        }
    }
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
    use crate::db::{Value, n, s};

    #[test]
    fn runners_find_what_older_releases_wrote() {
        let deployment = |uuid: &str, status: &str| {
            keyed(
                "DTEAM#t",
                &format!("DEPLOYMENT#{uuid}"),
                &[
                    ("kind", s("deployment")),
                    ("deployment_uuid", s(uuid)),
                    ("status", s(status)),
                    ("server_uuid", s("s1")),
                    ("created_at", s("2026-01-01T00:00:00.000000Z")),
                ],
            )
        };
        let cleanup = |app: &str, indexed: bool| {
            let mut c = keyed(
                "DTEAM#t",
                &format!("CLEANUP#{app}"),
                &[("kind", s("cleanup")), ("application_uuid", s(app))],
            );
            if indexed {
                c.insert("gsi1pk".into(), s("DSRVCLEAN#s1"));
            }
            c
        };
        let inv = inventory(vec![
            deployment("old", "queued"),
            deployment("new", "queued"),
            deployment("done", "finished"),
            keyed(
                "SRVQ#s1",
                "2026-01-01T00:00:00.000000Z#new",
                &[("kind", s("queue_entry"))],
            ),
            cleanup("a1", false),
            cleanup("a2", true),
        ]);
        let findings = check(&inv);
        let found: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| matches!(f.fix, Fix::Enqueue | Fix::IndexCleanup))
            .map(|f| (f.what, f.sk.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "queued deployment missing from its server's queue",
                    "DEPLOYMENT#old"
                ),
                ("clean-up not listed under its server", "CLEANUP#a1"),
            ]
        );
    }

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
                ("claimed", Value::L(vec![s("https://x.test")])),
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
                &[("apps", Value::Ss(vec!["a1".into()]))],
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

    #[test]
    fn records_from_before_ids_are_numbered() {
        let inv = inventory(vec![
            keyed(
                "DTEAM#t",
                "PROJECT#p1",
                &[("kind", s("project")), ("uuid", s("p1"))],
            ),
            keyed(
                "DTEAM#t",
                "PROJECT#p2",
                &[("kind", s("project")), ("uuid", s("p2")), ("id", n(2))],
            ),
            keyed(
                "DTEAM#t",
                "PROJECT#p2#ENV#e2",
                &[
                    ("kind", s("environment")),
                    ("uuid", s("e2")),
                    ("project_uuid", s("p2")),
                    ("id", n(3)),
                    ("project_id", n(2)),
                ],
            ),
            keyed(
                "DTEAM#t",
                "APP#a1",
                &[
                    ("kind", s("application")),
                    ("uuid", s("a1")),
                    ("environment_uuid", s("e2")),
                    ("id", n(1)),
                ],
            ),
            keyed(
                "DTEAM#t",
                "APP#a2",
                &[
                    ("kind", s("application")),
                    ("uuid", s("a2")),
                    ("environment_uuid", s("e2")),
                    ("id", n(2)),
                    ("environment_id", n(3)),
                ],
            ),
        ]);
        let all = check(&inv);
        let mut found: Vec<&str> = all
            .iter()
            .filter(|f| f.fix == Fix::AssignIds)
            .map(|f| f.sk.as_str())
            .collect();
        found.sort();
        assert_eq!(found, ["APP#a1", "PROJECT#p1"]);
    }

    #[test]
    fn variables_of_deleted_applications_tallies_and_clear_secrets() {
        let app = keyed(
            "DTEAM#t",
            "APP#a1",
            &[("kind", s("application")), ("uuid", s("a1"))],
        );
        let env = |app: &str, uuid: &str, bytes: i64| {
            keyed(
                "DTEAM#t",
                &format!("ENV#{app}#{uuid}"),
                &[
                    ("kind", s("env")),
                    ("application_uuid", s(app)),
                    ("value_bytes", n(bytes)),
                ],
            )
        };
        let inv = inventory(vec![
            app,
            env("a1", "e1", 3),
            env("a1", "e2", 4),
            keyed("DTEAM#t", "ENVS#a1", &[("count", n(2)), ("bytes", n(9))]),
            env("gone", "e3", 1),
            keyed(
                "DTEAM#t",
                "ENVKEY#gone#r#h",
                &[("kind", s("envkey")), ("application_uuid", s("gone"))],
            ),
            keyed("DTEAM#t", "ENVS#gone", &[("count", n(1)), ("bytes", n(1))]),
            keyed(
                "DTEAM#t",
                "SSHKEY#k1",
                &[
                    ("kind", s("ssh_key")),
                    ("uuid", s("k1")),
                    ("private_key", s("-----BEGIN")),
                ],
            ),
            keyed(
                "DTEAM#t",
                "SSHKEY#k2",
                &[
                    ("kind", s("ssh_key")),
                    ("uuid", s("k2")),
                    ("private_key", s("s1:AAAA")),
                ],
            ),
            keyed(
                "DTEAM#t",
                "PAPP#p1",
                &[
                    ("kind", s("provider_app")),
                    ("client_secret", s("s1:AAAA")),
                    ("webhook_secret", s("clear")),
                ],
            ),
        ]);
        let found = check(&inv);
        let of = |what: &str| -> Vec<(&str, &Fix)> {
            found
                .iter()
                .filter(|f| f.what == what)
                .map(|f| (f.sk.as_str(), &f.fix))
                .collect()
        };
        let mut gone: Vec<&str> = of("environment variable of a deleted application")
            .into_iter()
            .map(|(sk, _)| sk)
            .collect();
        gone.sort();
        assert_eq!(gone, ["ENV#gone#e3", "ENVKEY#gone#r#h", "ENVS#gone"]);
        assert_eq!(
            of("environment variable tally"),
            [(
                "ENVS#a1",
                &Fix::SetNumber {
                    attribute: "bytes".into(),
                    stored: 9,
                    actual: 7
                }
            )]
        );
        let clear = of("secret stored in the clear");
        assert_eq!(clear.len(), 2, "{found:#?}");
        assert!(clear.contains(&(
            "SSHKEY#k1",
            &Fix::Seal {
                attributes: vec!["private_key".into()]
            }
        )));
        assert!(clear.iter().any(|(_, f)| **f
            == Fix::Seal {
                attributes: vec!["webhook_secret".into()]
            }));
    }
}
