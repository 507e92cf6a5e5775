//! Benchmark: what the search index writes for one issue, computed by the
//! index's own functions (`Doc::derive`, `lists::entries`,
//! `counts::deltas`), for a typical create (a 2 KB body), the worst one
//! (65,536 characters, every bound reached) and a comment. Write units as
//! DynamoDB charges them: 1 per entry (under 1 KB), twice the document's
//! KB in its transaction, 2 per counter item there. Run with
//! `cargo run --release -p shared --example index_cost`.

use std::collections::{BTreeSet, HashMap};

use shared::{
    accounts::names::Visibility,
    issues::{
        IssueRecord,
        index::stubs::{self, CommentPlace},
        index::{
            class::RepoFacts,
            counts,
            doc::{Context, Doc},
            lists,
        },
    },
};

/// A body of about `bytes` of varied English-like words.
fn body(bytes: usize, vocabulary: usize, seed: usize) -> String {
    let mut out = String::new();
    let mut n = seed;
    while out.len() < bytes {
        n = n
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(&format!("word{} ", (n >> 33) % vocabulary));
    }
    out
}

fn item_bytes(d: &Doc) -> usize {
    serde_json::to_string(d).map(|s| s.len()).unwrap_or(0)
}

fn report(label: &str, d: &Doc) -> usize {
    let entries = lists::entries(d).len();
    let doc_kb = item_bytes(d).div_ceil(1024);
    let counters = counts::deltas(None, Some(d)).len().min(2);
    let units = entries + 2 * doc_kb + 2 * counters;
    println!(
        "| {label} | {entries} | {} ({} KB) | {counters} | {units} |",
        d.terms().len(),
        doc_kb
    );
    units
}

fn main() {
    let repo = RepoFacts {
        id: 7,
        owner: "acme".into(),
        private: false,
        owner_visibility: Visibility::Public,
        has_issues: true,
        has_pulls: true,
    };
    let labels: HashMap<i64, String> = (1..=100).map(|i| (i, format!("label-{i}"))).collect();
    let cx = |title: Option<&'static str>| Context {
        repo: &repo,
        label_names: &labels,
        milestone_title: title,
    };
    println!("| issue | entries | words indexed (document) | counters | write units |");
    println!("|---|---|---|---|---|");
    let typical = IssueRecord {
        id: 1,
        repo_id: 7,
        index: 1,
        title: "Crash on start when the config file is missing".into(),
        body: body(2048, 400, 1),
        poster: "alice".into(),
        assignees: vec!["bob".into()],
        labels: vec![1, 2],
        milestone: 3,
        created: 1,
        updated: 1,
        ..IssueRecord::default()
    };
    let d = Doc::derive(&typical, &cx(Some("v1")), None);
    report(
        "typical create: 2 KB body, 2 labels, a milestone, an assignee",
        &d,
    );
    let names = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}{i}")).collect::<Vec<_>>();
    let worst = IssueRecord {
        is_pull: true,
        title: body(255, 100_000, 2),
        body: body(65_536, 100_000, 3),
        assignees: names("a", 10),
        labels: (1..=100).collect(),
        mentions: names("m", 50),
        comment_mentions: names("c", 50),
        review_requested: names("r", 50),
        reviewed: names("v", 100),
        base: "main".into(),
        ..typical.clone()
    };
    let mut w = Doc::derive(&worst, &cx(Some("v1")), None);
    report("worst create: 65,536-character body, every list full", &w);
    for i in 0..200 {
        w.count_comment(&body(2048, 100_000, 100 + i), 1);
    }
    report("the same after a storm of 200 comments of new words", &w);

    // One comment: its words join its issue's document (the entries of
    // words new to the issue), its two listing entries, and the issue's
    // update moves its update-ordered entries (3 out, 3 in); the document
    // is rewritten twice (the comment's change, then the issue's).
    let mut after = d.clone();
    after.count_comment(&body(600, 400, 9), 1);
    after.updated += 1;
    let old: BTreeSet<_> = lists::entries(&d).into_keys().collect();
    let new: BTreeSet<_> = lists::entries(&after).into_keys().collect();
    let moved = new.difference(&old).count() + old.difference(&new).count();
    let stub = stubs::stubs(&CommentPlace {
        id: 1,
        repo_id: 7,
        index: 1,
        created: 2,
        updated: 2,
        ..CommentPlace::default()
    })
    .len();
    let doc_kb = item_bytes(&after).div_ceil(1024);
    println!(
        "| a comment (600 bytes) on the typical issue | {} | ({} KB) | 0 | {} |",
        moved + stub,
        doc_kb,
        moved + stub + 2 * 2 * doc_kb
    );
}
