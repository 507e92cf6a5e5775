//! A small table indexed as the consumer indexes it, then broken one way
//! at a time.

use std::collections::{BTreeMap, HashMap};

use super::super::{
    Finding, Fix,
    tests::{inventory, keyed},
};
use super::*;
use crate::{
    accounts::names::Visibility,
    db::{Item, Value, keys, n, s},
    issues::{
        IssueRecord,
        comments::CommentRecord,
        index::{
            class::RepoFacts,
            doc::{self, COMMENT_TERMS, Context, Doc},
            lists,
        },
    },
};

fn issue() -> IssueRecord {
    IssueRecord {
        id: 42,
        repo_id: 1,
        index: 1,
        title: "Crash on start".into(),
        body: "A segfault in the parser, @bob".into(),
        poster: "o".into(),
        labels: vec![5],
        milestone: 2,
        mentions: vec!["bob".into()],
        comments: 2,
        created: 100,
        updated: 200,
        version: 6,
        ..IssueRecord::default()
    }
}

fn comments() -> [CommentRecord; 2] {
    let c = |id: i64, body: &str, updated: i64| CommentRecord {
        id,
        repo_id: 1,
        index: 1,
        poster: "o".into(),
        body: body.into(),
        created: 150,
        updated,
        ..CommentRecord::default()
    };
    [c(9, "parser again", 160), c(10, "Again, and again", 150)]
}

/// The document the consumer keeps of [`issue`] after its comments.
fn document() -> Doc {
    let facts = RepoFacts {
        id: 1,
        owner: "o".into(),
        private: false,
        owner_visibility: Visibility::Public,
        has_issues: true,
        has_pulls: true,
    };
    let names = HashMap::from([(5, "bug".to_string())]);
    let cx = Context {
        repo: &facts,
        label_names: &names,
        milestone_title: Some("V1"),
    };
    let mut d = Doc::derive(&issue(), &cx, None);
    for c in comments() {
        d.count_comment(&c.body, 1);
    }
    d.seq = doc::padded_seq("77");
    d.rev = 3;
    d
}

/// One repository with an issue (a label, a milestone, two comments),
/// and its index as the consumer writes it: the document, its entries,
/// the comments' entries and the counters (on some shard).
pub(crate) fn consistent_table() -> Vec<Item> {
    let mut items = vec![
        keyed(
            "OWNER#o",
            "PROFILE",
            &[("name", s("O")), ("visibility", s("public"))],
        ),
        // What a profile and a public repository's settings derive.
        keyed("OWNERID#0", "OWNERID", &[("name", s("O"))]),
        keyed(
            "REPOLIST#public",
            "r#o",
            &[("id", n(1)), ("owner", s("O")), ("name", s("r"))],
        ),
        keyed(
            "OWNER#o",
            "REPO#r",
            &[
                ("id", n(1)),
                ("owner", s("O")),
                ("name", s("r")),
                ("private", Value::Bool(false)),
                ("has_issues", Value::Bool(true)),
                ("has_pull_requests", Value::Bool(true)),
            ],
        ),
        keyed(
            "REPO#1",
            "PROFILE",
            &[
                ("num_issues", n(1)),
                ("last_index", n(1)),
                ("num_issue_comments", n(2)),
                ("owner", s("O")),
                ("name", s("r")),
                ("private", Value::Bool(false)),
            ],
        ),
        keyed(
            "REPO#1",
            &format!("LABEL#{:020}", 5),
            &[("id", n(5)), ("name", s("bug"))],
        ),
        keyed(
            "REPO#1",
            &format!("MILESTONE#{:020}", 2),
            &[("id", n(2)), ("title", s("V1")), ("num_issues", n(1))],
        ),
        keys::milestone_issue(1, 2, 1),
        issue().to_item().unwrap(),
    ];
    items.extend(comments().map(|c| c.to_item().unwrap()));
    let d = document();
    items.push(d.to_item().unwrap());
    items.extend(
        lists::entries(&d)
            .iter()
            .map(|((pk, sk), stub)| lists::entry_item(pk, sk, stub.as_ref())),
    );
    // Comment 9 was edited: listed by update too (carrying the creation).
    let created = |id| keys::index_place_sk(150, 1, id);
    for (pk, sk, t) in [
        ("IX#R:1#c:1", created(9), 160),
        ("IX#R:1#ci", created(9), 160),
        ("IX#R:1#e:1", keys::index_place_sk(160, 1, 9), 150),
        ("IX#R:1#ei", keys::index_place_sk(160, 1, 9), 150),
        ("IX#R:1#c:1", created(10), 150),
        ("IX#R:1#ci", created(10), 150),
    ] {
        items.push(keyed(pk, &sk, &[("t", n(t))]));
    }
    for ((scope, name), count) in counts::deltas(None, Some(&d)) {
        items.push(keyed(
            &format!("IXC#{scope}#2"),
            "COUNT",
            &[(name, n(count))],
        ));
    }
    items
}

fn found(items: Vec<Item>) -> Vec<Finding> {
    super::super::check(&inventory(items))
}

fn is(pk: &str, sk: &str) -> impl Fn(&Item) -> bool {
    let (pk, sk) = (pk.to_string(), sk.to_string());
    move |i| text(i, "pk") == pk && text(i, "sk") == sk
}

/// What, where (partition) and how of each finding.
fn keys_and_fixes(found: Vec<Finding>) -> Vec<(&'static str, String, Fix)> {
    found.into_iter().map(|f| (f.what, f.pk, f.fix)).collect()
}

fn doc_key() -> (String, String) {
    let k = keys::index_doc(1, 1);
    (text(&k, "pk").to_string(), text(&k, "sk").to_string())
}

#[test]
fn a_missing_entry_is_put() {
    let sk = keys::index_place_sk(100, 1, 1);
    let mut items = consistent_table();
    items.retain(|i| !is("IX#GE#l:bug", &sk)(i));
    // And a comment's entry, which carries its time.
    items.retain(|i| !is("IX#R:1#ei", &keys::index_place_sk(160, 1, 9))(i));
    assert_eq!(
        found(items),
        [
            Finding {
                what: "missing search index entry",
                pk: "IX#R:1#ei".into(),
                sk: keys::index_place_sk(160, 1, 9),
                fix: Fix::PutStub(Stub {
                    t: 150,
                    issue: 1,
                    closed: false
                }),
            },
            Finding {
                what: "missing search index entry",
                pk: "IX#GE#l:bug".into(),
                sk,
                fix: Fix::PutKey,
            },
        ]
    );
}

#[test]
fn stale_and_previous_entries_go() {
    let mut items = consistent_table();
    let sk = keys::index_place_sk(100, 1, 1);
    items.push(keyed("IX#GE#w:gone", &sk, &[]));
    // The previous index: an entry and a counter.
    items.push(keyed("SX#A0#io", &keys::index_place_sk(0, 1, 1), &[]));
    items.push(keyed("SXN#A3", "COUNT", &[("io", n(1))]));
    assert_eq!(
        keys_and_fixes(found(items)),
        [
            (
                "stale search index entry",
                "IX#GE#w:gone".into(),
                Fix::Delete
            ),
            (
                "item of the previous search index",
                "SX#A0#io".into(),
                Fix::Delete
            ),
            (
                "item of the previous search index",
                "SXN#A3".into(),
                Fix::Delete
            ),
        ]
    );
}

#[test]
fn a_wrong_comment_time_is_rewritten() {
    let mut items = consistent_table();
    let sk = keys::index_place_sk(150, 1, 9);
    for i in items.iter_mut().filter(|i| is("IX#R:1#ci", &sk)(i)) {
        i.insert("t".into(), n(150));
    }
    let got = found(items);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].what, "search index entry with the wrong time");
    assert_eq!(
        got[0].fix,
        Fix::PutStub(Stub {
            t: 160,
            issue: 1,
            closed: false
        })
    );
}

#[test]
fn an_update_entry_carries_its_issue_s_creation_and_state() {
    let d = document();
    let ((pk, sk), stub) = lists::entries(&d)
        .into_iter()
        .find(|(_, stub)| stub.is_some())
        .unwrap();
    let stub = stub.unwrap();
    assert_eq!((stub.t, stub.closed), (d.created, d.closed));
    let with = |edit: &dyn Fn(&mut Item)| {
        let mut items = consistent_table();
        items.iter_mut().filter(|i| is(&pk, &sk)(i)).for_each(edit);
        found(items)
    };
    // Written before update entries carried anything: readers read the
    // document instead, so it passes.
    let got = with(&|i| {
        i.remove("t");
        i.remove("i");
    });
    assert_eq!(got, []);
    // Carrying another state: put again.
    let got = with(&|i| {
        i.insert("c".into(), Value::Bool(!d.closed));
    });
    assert_eq!(got.len(), 1, "{got:#?}");
    assert_eq!(got[0].what, "search index entry with the wrong time");
    assert_eq!(got[0].fix, Fix::PutStub(stub));
}

#[test]
fn counters_are_summed_over_shards_and_fixed_on_shard_zero() {
    let mut items = consistent_table();
    // One more open issue counted on another shard of the audience.
    items.push(keyed("IXC#GE#0", "COUNT", &[("io", n(4)), ("ic", n(0))]));
    items.push(keyed("IXC#GE#5", "COUNT", &[("io", n(-3))]));
    // And a scope nothing counts in any more.
    items.push(keyed("IXC#V:o#1", "COUNT", &[("pc", n(2))]));
    let set = |attribute: &str, stored, actual| Fix::SetNumber {
        attribute: attribute.into(),
        stored,
        actual,
    };
    assert_eq!(
        keys_and_fixes(found(items)),
        [
            ("search index counter", "IXC#GE#0".into(), set("io", 4, 3)),
            ("search index counter", "IXC#V:o#0".into(), set("pc", 0, -2)),
        ]
    );
}

#[test]
fn a_renamed_label_refiles_the_document_and_its_entries() {
    let mut items = consistent_table();
    for l in items
        .iter_mut()
        .filter(|i| is("REPO#1", &format!("LABEL#{:020}", 5))(i))
    {
        l.insert("name".into(), s("defect"));
    }
    let inv = inventory(items);
    let got = super::super::check(&inv);
    assert_eq!(got, super::super::check(&inv), "two checks agree");
    let (pk, sk) = doc_key();
    let put = got
        .iter()
        .find(|f| f.pk == pk && f.sk == sk)
        .expect("the document is refiled");
    let Fix::PutDocument {
        stored_rev,
        fields,
        document: d,
    } = &put.fix
    else {
        panic!("{put:?}")
    };
    assert_eq!(
        (stored_rev, fields.as_slice()),
        (&Some(3), ["labels".to_string()].as_slice())
    );
    assert_eq!(d.labels[0].name, "defect");
    assert_eq!((d.rev, d.seq.as_str()), (4, doc::padded_seq("77").as_str()));
    // Its label entries move, in each of its three scopes.
    let moved = |what: &str, term: &str| {
        got.iter()
            .filter(|f| f.what == what && f.pk.ends_with(term))
            .count()
    };
    assert_eq!(moved("missing search index entry", "#l:defect"), 3);
    assert_eq!(moved("stale search index entry", "#l:bug"), 3);
    assert_eq!(got.len(), 7, "{got:#?}");
}

#[test]
fn a_missing_document_is_put_from_the_issue_and_its_comments() {
    let (pk, sk) = doc_key();
    let mut items = consistent_table();
    items.retain(|i| !is(&pk, &sk)(i));
    let got = found(items);
    assert_eq!(got.len(), 1, "{got:#?}");
    let want = Doc {
        seq: String::new(),
        rev: 1,
        ..document()
    };
    assert_eq!(
        got[0].fix,
        Fix::PutDocument {
            stored_rev: None,
            fields: Vec::new(),
            document: Box::new(want),
        }
    );
}

#[test]
fn comment_words_are_counted_from_the_comments() {
    let (pk, sk) = doc_key();
    let mut items = consistent_table();
    // A document that missed the second comment.
    let mut short = document();
    short.count_comment("Again, and again", -1);
    items.retain(|i| !is(&pk, &sk)(i));
    items.push(short.to_item().unwrap());
    let got = found(items);
    assert_eq!(got.len(), 1, "{got:#?}");
    let Fix::PutDocument {
        fields,
        document: d,
        ..
    } = &got[0].fix
    else {
        panic!("{got:?}")
    };
    assert_eq!(fields, &["comment_words".to_string()]);
    assert_eq!(
        d.comment_words,
        BTreeMap::from([("again".to_string(), 2), ("parser".to_string(), 1)])
    );
}

#[test]
fn documents_of_deleted_issues_and_repositories_go() {
    let mut items = consistent_table();
    let gone = Doc {
        index: 7,
        ..document()
    };
    items.push(gone.to_item().unwrap());
    let elsewhere = Doc {
        repo_id: 9,
        ..document()
    };
    items.push(elsewhere.to_item().unwrap());
    assert_eq!(
        keys_and_fixes(found(items)),
        [
            (
                "search index document of a deleted issue",
                "REPO#1".into(),
                Fix::Delete
            ),
            (
                "search index document of a deleted repository",
                "REPO#9".into(),
                Fix::Delete
            ),
        ]
    );
}

#[test]
fn a_repository_whose_owner_is_gone_has_no_documents() {
    let mut items = consistent_table();
    items.retain(|i| !is("OWNER#o", "PROFILE")(i));
    let got = found(items);
    let docs: Vec<&str> = got
        .iter()
        .filter(|f| f.sk.starts_with("IXD#"))
        .map(|f| f.what)
        .collect();
    assert_eq!(docs, ["search index document of a deleted repository"]);
    // Its issue's entries and counts go; its comments' entries stay.
    assert!(got.iter().any(|f| f.pk == "IX#GE#kio.2"));
    assert!(!got.iter().any(|f| f.pk.starts_with("IX#R:1#c")));
    assert!(got.iter().any(|f| f.what == "search index counter"));
}

#[test]
fn the_count_of_comment_words_is_the_documents() {
    // `expect::count_comment` over scanned words against
    // `Doc::count_comment` over bodies, past the cap.
    let bodies: Vec<String> = (0..COMMENT_TERMS / 10 + 3)
        .map(|i| (0..12).map(|j| format!("w{} ", i * 9 + j)).collect())
        .collect();
    let mut d = Doc::default();
    let mut counted = BTreeMap::new();
    for body in &bodies {
        d.count_comment(body, 1);
        let mut c = keyed(
            "REPO#1",
            &format!("COMMENT#{:020}", 1),
            &[("body", s(body))],
        );
        let mut inv = super::super::Inventory::default();
        c.insert("index".into(), n(1));
        inv.add(c);
        let c = &inv.partitions["REPO#1"][0];
        expect::count_comment(&mut counted, c);
    }
    assert_eq!(counted.len(), COMMENT_TERMS);
    assert_eq!(counted, d.comment_words);
}

#[test]
fn an_unreadable_document_is_rewritten() {
    let (pk, sk) = doc_key();
    let mut items = consistent_table();
    for d in items.iter_mut().filter(|i| is(&pk, &sk)(i)) {
        d.insert("labels".into(), s("not a list"));
    }
    let got = found(items);
    assert_eq!(got.len(), 1, "{got:#?}");
    let Fix::PutDocument {
        stored_rev, fields, ..
    } = &got[0].fix
    else {
        panic!("{got:?}")
    };
    assert_eq!(
        (stored_rev, fields.as_slice()),
        (&Some(3), ["(unreadable)".to_string()].as_slice())
    );
}

#[test]
fn counter_names_are_the_consumers() {
    use crate::issues::index::counts::counter_name;
    let names = [(false, false), (false, true), (true, false), (true, true)]
        .map(|(pull, closed)| counter_name(pull, closed));
    assert_eq!(COUNTERS, names);
}

/// A write's two marks, holding `token`.
fn marks(index: i64, token: &str) -> [Item; 2] {
    let mark = |mut key: Item| {
        key.insert("w".into(), s(token));
        key
    };
    [
        mark(keys::index_pending(1, index)),
        mark(keys::index_pending_of_writer("o", 1, index)),
    ]
}

#[test]
fn marks_of_filed_writes_go_and_those_of_pending_ones_stay() {
    let mut items = consistent_table();
    // Issue 1's write is filed (its document is as expected).
    items.extend(marks(1, "aa"));
    // Issue 3 was deleted and its document is gone: filed too.
    items.extend(marks(3, "del:o"));
    // A writer's mark whose repository's mark a later write replaced.
    items.push(keyed(
        "OWNER#p",
        text(&keys::index_pending_of_writer("p", 1, 1), "sk"),
        &[("w", s("older"))],
    ));
    let got = keys_and_fixes(found(items.clone()));
    let marked = |pk: &str| (WHAT_MARK, pk.to_string(), Fix::Delete);
    assert_eq!(
        got,
        [
            marked("REPO#1"),
            marked("REPO#1"),
            marked("OWNER#o"),
            marked("OWNER#o"),
            marked("OWNER#p"),
        ]
    );

    // Issue 1's document is behind its issue: the write is not filed,
    // and its marks stay (the document itself is the finding).
    let (pk, sk) = doc_key();
    let mut behind = consistent_table();
    behind.retain(|i| !is(&pk, &sk)(i));
    behind.extend(marks(1, "aa"));
    let got = found(behind);
    assert!(got.iter().all(|f| f.what != WHAT_MARK), "{got:#?}");
}

const WHAT_MARK: &str = "search index mark of a filed write";
