//! Tracker checks: repository and milestone counters, the counters item's
//! name after renames and its copies of the settings, milestone
//! memberships, comment counts, team member counts, dependency links, and
//! grants and comments of deleted repositories and issues.

use std::collections::{HashMap, HashSet};

use super::{Finding, Fix, Inventory, counter, finding, flag, number, tally, text};
use crate::{
    db::{Item, Value, keys},
    issues::index::jobs,
};

/// Live repositories by id: (owner, name) from their settings items.
pub(super) fn live_repos(inv: &Inventory) -> HashMap<i64, (String, String)> {
    inv.partitions
        .iter()
        .filter(|(pk, _)| pk.starts_with("OWNER#"))
        .flat_map(|(_, items)| items)
        .filter(|i| text(i, "sk").starts_with(keys::REPO_NAME_PREFIX))
        .map(|i| {
            (
                number(i, "id"),
                (text(i, "owner").to_string(), text(i, "name").to_string()),
            )
        })
        .collect()
}

fn repo_id(pk: &str) -> Option<i64> {
    pk.strip_prefix("REPO#")?.parse().ok()
}

/// The numbers at the end of a sort key (`DEP#n#repo#index` → [n, repo, index]).
fn numbers(sk: &str) -> Vec<i64> {
    sk.split('#')
        .skip(1)
        .filter_map(|p| p.parse().ok())
        .collect()
}

pub fn check(inv: &Inventory) -> Vec<Finding> {
    let live = live_repos(inv);
    let mut out = Vec::new();
    let mut alive_issues: HashSet<(i64, i64)> = HashSet::new();
    for (pk, items) in &inv.partitions {
        let Some(id) = repo_id(pk) else { continue };
        if live.contains_key(&id) {
            alive_issues.extend(
                items
                    .iter()
                    .filter(|i| text(i, "sk").starts_with(keys::ISSUE_PREFIX))
                    .map(|i| (id, number(i, "index"))),
            );
        }
    }
    for (pk, items) in &inv.partitions {
        let Some(id) = repo_id(pk) else { continue };
        if let Some(names) = live.get(&id) {
            repository(&mut out, inv, pk, items, names);
        } else {
            // A deleted repository: its grants and comments go (its issues,
            // labels and milestones are unreachable and stay).
            for g in items
                .iter()
                .filter(|i| text(i, "sk").starts_with(keys::ACCESS_PREFIX))
            {
                out.push(finding("grant of a deleted repository", g, Fix::Delete));
            }
            for c in items
                .iter()
                .filter(|i| text(i, "sk").starts_with(keys::COMMENT_PREFIX))
            {
                out.push(finding("comment of a deleted repository", c, Fix::Delete));
            }
        }
        links(&mut out, inv, id, items, &alive_issues);
    }
    grants_elsewhere(&mut out, inv, &live);
    teams(&mut out, inv);
    derived(&mut out, inv);
    out
}

/// Items derived from settings and profiles: the public repositories'
/// listing (`REPOLIST#public`, one entry per public repository) and the
/// owners' id items. A release without them leaves them missing: the
/// repair files them (and drops entries of repositories no longer public).
fn derived(out: &mut Vec<Finding>, inv: &Inventory) {
    let mut want: HashMap<String, (i64, String, String, bool)> = HashMap::new();
    let owners = inv
        .partitions
        .iter()
        .filter(|(pk, _)| pk.starts_with("OWNER#"));
    for (_, items) in owners {
        for i in items {
            let sk = text(i, "sk");
            if sk == keys::PROFILE {
                let id = number(i, "id");
                let stored = inv.get(&format!("OWNERID#{id}"), "OWNERID");
                if stored.is_none_or(|s| text(s, "name") != text(i, "name")) {
                    let texts = [("name".to_string(), text(i, "name").to_string())];
                    out.push(Finding {
                        pk: format!("OWNERID#{id}"),
                        sk: "OWNERID".into(),
                        ..finding("owner's id item", i, put(&texts, &[], &[]))
                    });
                }
            } else if sk.starts_with(keys::REPO_NAME_PREFIX) && !flag(i, "private") {
                let (owner, name) = (text(i, "owner"), text(i, "name"));
                let entry = keys::public_repo_entry(owner, name);
                let value = (
                    number(i, "id"),
                    owner.into(),
                    name.into(),
                    flag(i, "archived"),
                );
                want.insert(text(&entry, "sk").to_string(), value);
            }
        }
    }
    let stored = inv.partitions.get(keys::PUBLIC_REPOS_PK);
    // An outdated entry of a public repository is put again below.
    for e in stored.into_iter().flatten() {
        if !want.contains_key(text(e, "sk")) {
            out.push(finding(
                "listing entry of a repository no longer public",
                e,
                Fix::Delete,
            ));
        }
    }
    let mut missing: Vec<_> = want
        .into_iter()
        .filter(|(sk, (id, owner, name, archived))| {
            !inv.get(keys::PUBLIC_REPOS_PK, sk).is_some_and(|e| {
                number(e, "id") == *id
                    && text(e, "owner") == owner
                    && text(e, "name") == name
                    && flag(e, "archived") == *archived
            })
        })
        .collect();
    missing.sort();
    for (sk, (id, owner, name, archived)) in missing {
        let texts = [("owner".to_string(), owner), ("name".to_string(), name)];
        let fix = put(
            &texts,
            &[("id".to_string(), id)],
            &[("archived".to_string(), archived)],
        );
        let key = keys::key(keys::PUBLIC_REPOS_PK, &sk);
        out.push(finding(
            "public repository missing from the listing",
            &key,
            fix,
        ));
    }
}

fn put(texts: &[(String, String)], numbers: &[(String, i64)], flags: &[(String, bool)]) -> Fix {
    Fix::PutAttributes {
        texts: texts.iter().cloned().collect(),
        numbers: numbers.iter().cloned().collect(),
        flags: flags.iter().cloned().collect(),
    }
}

fn repository(
    out: &mut Vec<Finding>,
    inv: &Inventory,
    pk: &str,
    items: &[Item],
    (owner, name): &(String, String),
) {
    let issues: Vec<&Item> = items
        .iter()
        .filter(|i| text(i, "sk").starts_with(keys::ISSUE_PREFIX))
        .collect();
    if let Some(stats) = inv.get(pk, keys::PROFILE) {
        let count = |pull: bool, closed: Option<bool>| {
            issues
                .iter()
                .filter(|i| {
                    flag(i, "is_pull") == pull && closed.is_none_or(|c| flag(i, "closed") == c)
                })
                .count() as i64
        };
        let what = "repository counter";
        counter(out, what, stats, "num_issues", count(false, None));
        counter(
            out,
            what,
            stats,
            "num_closed_issues",
            count(false, Some(true)),
        );
        counter(out, what, stats, "num_pulls", count(true, None));
        counter(
            out,
            what,
            stats,
            "num_closed_pulls",
            count(true, Some(true)),
        );
        let highest = issues.iter().map(|i| number(i, "index")).max().unwrap_or(0);
        if number(stats, "last_index") < highest {
            out.push(finding(
                "issue number behind the issues",
                stats,
                Fix::SetNumber {
                    attribute: "last_index".into(),
                    stored: number(stats, "last_index"),
                    actual: highest,
                },
            ));
        }
        comments(out, items, &issues, stats);
        purging(out, items, stats);
        settings(out, inv, stats, owner, name);
        for (attribute, actual) in [("owner", owner), ("name", name)] {
            if text(stats, attribute) != actual {
                out.push(finding(
                    "repository name on its counters (renamed)",
                    stats,
                    Fix::SetText {
                        attribute: attribute.into(),
                        stored: text(stats, attribute).into(),
                        actual: actual.clone(),
                    },
                ));
            }
        }
    }
    milestones(out, inv, pk, &issues);
}

/// The copies of the settings search reads (visibility and units) on the
/// counters item, where it carries them, against the settings item: the
/// index files a repository's issues by the copies.
fn settings(out: &mut Vec<Finding>, inv: &Inventory, stats: &Item, owner: &str, name: &str) {
    let key = keys::repo_name(owner, name);
    let Some(settings) = inv.get(text(&key, "pk"), text(&key, "sk")) else {
        return;
    };
    for attribute in ["private", "has_issues", "has_pull_requests"] {
        let Some(Value::Bool(stored)) = stats.get(attribute) else {
            continue;
        };
        let actual = flag(settings, attribute);
        if *stored != actual {
            out.push(finding(
                "repository settings on its counters",
                stats,
                Fix::SetFlag {
                    attribute: attribute.into(),
                    stored: *stored,
                    actual,
                },
            ));
        }
    }
}

/// Comments: each issue's `comments` and the repository's counts by kind
/// against the comment items; comments of a deleted issue go.
fn comments(out: &mut Vec<Finding>, items: &[Item], issues: &[&Item], stats: &Item) {
    let alive: HashSet<i64> = issues.iter().map(|i| number(i, "index")).collect();
    let (mut live, mut by_kind) = (Vec::new(), [0i64, 0]);
    for c in items
        .iter()
        .filter(|i| text(i, "sk").starts_with(keys::COMMENT_PREFIX))
    {
        if alive.contains(&number(c, "index")) {
            live.push(number(c, "index"));
            by_kind[usize::from(flag(c, "is_pull"))] += 1;
        } else {
            out.push(finding("comment of a deleted issue", c, Fix::Delete));
        }
    }
    let per_issue = tally(live.into_iter());
    for i in issues {
        let actual = per_issue.get(&number(i, "index")).copied().unwrap_or(0);
        counter(out, "issue comment count", i, "comments", actual);
    }
    let what = "repository comment count";
    counter(out, what, stats, "num_issue_comments", by_kind[0]);
    counter(out, what, stats, "num_pull_comments", by_kind[1]);
}

/// Deleted issues the counters item still names as being cleaned up with
/// no clean-up job left to finish them: the comment listings would pass
/// over them for ever (their leftover comments go as above).
fn purging(out: &mut Vec<Finding>, items: &[Item], stats: &Item) {
    let Some(Value::Ns(named)) = stats.get("purging") else {
        return;
    };
    let jobs: HashSet<i64> = items
        .iter()
        .filter_map(|i| {
            let work = text(i, "sk").strip_prefix(keys::INDEX_JOB_PREFIX)?;
            match jobs::Work::parse(work)? {
                jobs::Work::Purge { index, .. } => Some(index),
                _ => None,
            }
        })
        .collect();
    let stale: Vec<i64> = named
        .iter()
        .filter_map(|n| n.parse().ok())
        .filter(|n| !jobs.contains(n))
        .collect();
    if !stale.is_empty() {
        out.push(finding(
            "deleted issues still marked as being cleaned up",
            stats,
            Fix::StopPurging(stale),
        ));
    }
}

fn milestones(out: &mut Vec<Finding>, inv: &Inventory, pk: &str, issues: &[&Item]) {
    let open = tally(
        issues
            .iter()
            .filter(|i| !flag(i, "closed"))
            .map(|i| number(i, "milestone")),
    );
    let all = tally(issues.iter().map(|i| number(i, "milestone")));
    let closed = |m: i64| all.get(&m).copied().unwrap_or(0) - open.get(&m).copied().unwrap_or(0);
    let mut known = HashSet::new();
    for m in inv.with_prefix(pk, keys::MILESTONE_PREFIX) {
        let id = number(m, "id");
        known.insert(id);
        counter(
            out,
            "milestone counter",
            m,
            "num_issues",
            all.get(&id).copied().unwrap_or(0),
        );
        counter(out, "milestone counter", m, "num_closed_issues", closed(id));
    }
    // Memberships: one per issue with a milestone, none other.
    let wanted: HashSet<String> = issues
        .iter()
        .filter(|i| known.contains(&number(i, "milestone")))
        .map(|i| {
            let repo = pk.trim_start_matches("REPO#").parse().unwrap_or(0);
            let key = keys::milestone_issue(repo, number(i, "milestone"), number(i, "index"));
            text(&key, "sk").to_string()
        })
        .collect();
    let mut have = HashSet::new();
    for m in inv.with_prefix(pk, "MSISSUE#") {
        have.insert(text(m, "sk").to_string());
        if !wanted.contains(text(m, "sk")) {
            out.push(finding("stale milestone membership", m, Fix::Delete));
        }
    }
    for sk in wanted.difference(&have) {
        out.push(Finding {
            what: "missing milestone membership",
            pk: pk.to_string(),
            sk: sk.clone(),
            fix: Fix::PutKey,
        });
    }
}

/// Both sides of a dependency must exist, between two live issues.
fn links(
    out: &mut Vec<Finding>,
    inv: &Inventory,
    id: i64,
    items: &[Item],
    alive: &HashSet<(i64, i64)>,
) {
    for link in items.iter().filter(|i| {
        let sk = text(i, "sk");
        sk.starts_with("DEP#") || sk.starts_with("BLOCKS#")
    }) {
        let sk = text(link, "sk");
        let [n, other_repo, other] = numbers(sk)[..] else {
            out.push(finding("unreadable dependency link", link, Fix::Delete));
            continue;
        };
        let mirror = if sk.starts_with("DEP#") {
            keys::blocks(other_repo, other, id, n)
        } else {
            keys::dependency(other_repo, other, id, n)
        };
        let mirrored = inv.get(text(&mirror, "pk"), text(&mirror, "sk")).is_some();
        if !(alive.contains(&(id, n)) && alive.contains(&(other_repo, other)) && mirrored) {
            out.push(finding("dangling dependency link", link, Fix::Delete));
        }
    }
}

/// The user and team sides of grants on repositories that are gone.
fn grants_elsewhere(
    out: &mut Vec<Finding>,
    inv: &Inventory,
    live: &HashMap<i64, (String, String)>,
) {
    for (pk, items) in &inv.partitions {
        let prefix = if pk.starts_with("OWNER#") {
            "COLLAB#"
        } else if pk.starts_with("TEAM#") {
            "REPO#"
        } else {
            continue;
        };
        for g in items.iter().filter(|i| text(i, "sk").starts_with(prefix)) {
            if !live.contains_key(&number(g, "repo_id")) {
                out.push(finding("grant of a deleted repository", g, Fix::Delete));
            }
        }
    }
}

fn teams(out: &mut Vec<Finding>, inv: &Inventory) {
    for (pk, items) in inv
        .partitions
        .iter()
        .filter(|(pk, _)| pk.starts_with("TEAM#"))
    {
        let members = items
            .iter()
            .filter(|i| text(i, "sk").starts_with("MEMBER#"))
            .count() as i64;
        if let Some(team) = inv.get(pk, keys::PROFILE) {
            counter(out, "team member count", team, "members", members);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{inventory, keyed};
    use super::*;
    use crate::db::{n, s};

    fn repo() -> Vec<Item> {
        vec![
            keyed(
                "OWNER#o",
                "REPO#r",
                &[("id", n(1)), ("owner", s("o")), ("name", s("r"))],
            ),
            keyed(
                "REPO#1",
                "PROFILE",
                &[
                    ("num_issues", n(5)),
                    ("last_index", n(1)),
                    ("owner", s("o")),
                    ("name", s("old")),
                ],
            ),
            keyed(
                "REPO#1",
                "ISSUE#00000000000000000002",
                &[
                    ("index", n(2)),
                    ("milestone", n(7)),
                    ("closed", Value::Bool(true)),
                ],
            ),
            keyed(
                "REPO#1",
                "MILESTONE#00000000000000000007",
                &[("id", n(7)), ("num_issues", n(1))],
            ),
        ]
    }

    #[test]
    fn the_public_listing_and_owner_ids_follow_settings_and_profiles() {
        let mut items = repo();
        items.push(keyed(
            "OWNER#o",
            "PROFILE",
            &[("id", n(3)), ("name", s("O"))],
        ));
        items.push(keyed("OWNERID#4", "OWNERID", &[("name", s("p"))]));
        items.push(keyed(
            "REPOLIST#public",
            "gone#o",
            &[("id", n(9)), ("owner", s("o")), ("name", s("gone"))],
        ));
        let found = check(&inventory(items.clone()));
        let of = |what: &str| found.iter().filter(|f| f.what == what).collect::<Vec<_>>();
        let put = |pk: &str, sk: &str| {
            of("public repository missing from the listing")
                .into_iter()
                .chain(of("owner's id item"))
                .find(|f| f.pk == pk && f.sk == sk)
                .map(|f| f.fix.clone())
        };
        let Some(Fix::PutAttributes {
            texts,
            numbers,
            flags,
        }) = put("REPOLIST#public", "r#o")
        else {
            panic!("the public repository is filed: {found:#?}")
        };
        assert_eq!(
            (texts["name"].as_str(), numbers["id"], flags["archived"]),
            ("r", 1, false)
        );
        let Some(Fix::PutAttributes { texts, .. }) = put("OWNERID#3", "OWNERID") else {
            panic!("the owner's id is filed")
        };
        assert_eq!(texts["name"], "O");
        let stale = of("listing entry of a repository no longer public");
        assert_eq!((stale.len(), stale[0].sk.as_str()), (1, "gone#o"));

        // Filed: nothing more to do; a private repository is not listed.
        items.push(keyed(
            "REPOLIST#public",
            "r#o",
            &[
                ("id", n(1)),
                ("owner", s("o")),
                ("name", s("r")),
                ("archived", Value::Bool(false)),
            ],
        ));
        items.push(keyed("OWNERID#3", "OWNERID", &[("name", s("O"))]));
        items.push(keyed(
            "OWNER#o",
            "REPO#secret",
            &[
                ("id", n(2)),
                ("owner", s("o")),
                ("name", s("secret")),
                ("private", Value::Bool(true)),
            ],
        ));
        let found = check(&inventory(items));
        assert!(of_what(&found, "public repository missing from the listing").is_empty());
        assert!(of_what(&found, "owner's id item").is_empty());
    }

    fn of_what<'a>(found: &'a [Finding], what: &str) -> Vec<&'a Finding> {
        found.iter().filter(|f| f.what == what).collect()
    }

    #[test]
    fn counters_names_and_memberships() {
        let found = check(&inventory(repo()));
        let fixes: Vec<(&str, &Fix)> = found.iter().map(|f| (f.what, &f.fix)).collect();
        let set = |a: &str, stored, actual| Fix::SetNumber {
            attribute: a.into(),
            stored,
            actual,
        };
        assert!(
            fixes.contains(&("repository counter", &set("num_issues", 5, 1))),
            "{found:#?}"
        );
        assert!(fixes.contains(&("repository counter", &set("num_closed_issues", 0, 1))));
        assert!(fixes.contains(&("issue number behind the issues", &set("last_index", 1, 2))));
        assert!(fixes.contains(&("milestone counter", &set("num_closed_issues", 0, 1))));
        assert!(
            found
                .iter()
                .any(|f| f.what == "repository name on its counters (renamed)")
        );
        assert!(
            found
                .iter()
                .any(|f| f.what == "missing milestone membership"
                    && f.sk == "MSISSUE#00000000000000000007#00000000000000000002")
        );
    }

    #[test]
    fn settings_copied_on_the_counters_follow_the_settings() {
        let mut items = repo();
        items[0].insert("private".into(), Value::Bool(true));
        items[0].insert("has_issues".into(), Value::Bool(true));
        // Copies that agree, one that does not, and one never copied.
        items[1].insert("private".into(), Value::Bool(true));
        items[1].insert("has_issues".into(), Value::Bool(false));
        let found = check(&inventory(items));
        let flags: Vec<&Fix> = found
            .iter()
            .filter(|f| f.what == "repository settings on its counters")
            .map(|f| &f.fix)
            .collect();
        assert_eq!(
            flags,
            [&Fix::SetFlag {
                attribute: "has_issues".into(),
                stored: false,
                actual: true,
            }]
        );
    }

    #[test]
    fn comment_counts_and_comments_of_the_dead() {
        let mut items = repo();
        let comment = |repo: i64, id: i64, index: i64, pull: bool| {
            keyed(
                &format!("REPO#{repo}"),
                &format!("COMMENT#{id:020}"),
                &[("index", n(index)), ("is_pull", Value::Bool(pull))],
            )
        };
        // Issue 2 has two comments but counts none; issue 5 is gone; the
        // repository 3 is gone.
        items.push(comment(1, 10, 2, false));
        items.push(comment(1, 11, 2, false));
        items.push(comment(1, 12, 5, false));
        items.push(comment(3, 13, 1, false));
        let found = check(&inventory(items));
        let set = |a: &str, stored, actual| Fix::SetNumber {
            attribute: a.into(),
            stored,
            actual,
        };
        let fixes: Vec<(&str, &Fix)> = found.iter().map(|f| (f.what, &f.fix)).collect();
        assert!(
            fixes.contains(&("issue comment count", &set("comments", 0, 2))),
            "{found:#?}"
        );
        assert!(fixes.contains(&("repository comment count", &set("num_issue_comments", 0, 2))));
        let deleted: Vec<(&str, &str)> = found
            .iter()
            .filter(|f| f.fix == Fix::Delete)
            .map(|f| (f.what, f.sk.as_str()))
            .collect();
        assert_eq!(
            deleted,
            [
                ("comment of a deleted issue", "COMMENT#00000000000000000012"),
                (
                    "comment of a deleted repository",
                    "COMMENT#00000000000000000013"
                )
            ]
        );
    }

    #[test]
    fn deleted_issues_no_job_is_cleaning_up_are_unmarked() {
        let mut items = repo();
        let stats = items
            .iter_mut()
            .find(|i| text(i, "sk") == "PROFILE")
            .unwrap();
        let numbers = ["5", "7"].map(String::from).to_vec();
        stats.insert("purging".into(), Value::Ns(numbers));
        // Issue 7's job is still at work; issue 5's is gone.
        items.push(keyed("REPO#1", "IXJOB#purge-7-600", &[]));
        let found = check(&inventory(items));
        let got: Vec<(&str, &Fix)> = found
            .iter()
            .filter(|f| matches!(f.fix, Fix::StopPurging(_)))
            .map(|f| (f.what, &f.fix))
            .collect();
        assert_eq!(
            got,
            [(
                "deleted issues still marked as being cleaned up",
                &Fix::StopPurging(vec![5])
            )]
        );
    }

    #[test]
    fn links_and_grants_of_the_dead() {
        let mut items = repo();
        // Issue 2 of repo 1 depends on issue 9 of repo 3, which is gone.
        items.push(keyed(
            "REPO#1",
            "DEP#00000000000000000002#00000000000000000003#00000000000000000009",
            &[],
        ));
        items.push(keyed("REPO#3", "ACCESS#USER#u", &[]));
        items.push(keyed(
            "OWNER#u",
            "COLLAB#00000000000000000003",
            &[("repo_id", n(3))],
        ));
        let found = check(&inventory(items));
        let deleted: Vec<(&str, &str)> = found
            .iter()
            .filter(|f| f.fix == Fix::Delete)
            .map(|f| (f.pk.as_str(), f.sk.as_str()))
            .collect();
        assert_eq!(deleted.len(), 3, "{found:#?}");
        assert!(deleted.contains(&("REPO#3", "ACCESS#USER#u")));
    }
}
