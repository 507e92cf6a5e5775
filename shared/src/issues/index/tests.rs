use super::*;
use crate::db::Tx;

fn issue(id: i64, closed: bool) -> IssueRecord {
    IssueRecord {
        id,
        repo_id: 7,
        index: 3,
        created: 100,
        poster: "ann".into(),
        assignees: vec!["bob".into()],
        mentions: vec!["cy".into()],
        comment_mentions: vec!["bob".into()],
        closed,
        listing: Some(Listing {
            owner: "org".into(),
            public: true,
        }),
        ..IssueRecord::default()
    }
}

#[test]
fn an_issue_is_listed_once_per_scope() {
    let i = issue(5, false);
    let pks: Vec<String> = entries(&i).into_iter().map(|(pk, _)| pk).collect();
    assert_eq!(
        pks,
        [
            "SX#A1#io",
            "SX#O:org#io",
            "SX#P1#io",
            "SX#U:ann:c#io",
            "SX#U:bob:a#io",
            "SX#U:bob:m#io",
            "SX#U:cy:m#io",
        ]
    );
    let private = IssueRecord {
        listing: Some(Listing {
            owner: "org".into(),
            public: false,
        }),
        ..i.clone()
    };
    assert!(
        entries(&private)
            .iter()
            .all(|(pk, _)| !pk.starts_with("SX#P") && !pk.starts_with("SX#O"))
    );
    assert!(
        entries(&i)
            .iter()
            .all(|(_, sk)| sk == &keys::search_sk(100, 7, 3))
    );
}

#[test]
fn closing_moves_every_entry_and_counts_once_per_scope() {
    let mut tx = Tx::new("t".into());
    moves(&mut tx, Some(&issue(5, false)), Some(&issue(5, true))).unwrap();
    // 7 entries out, 7 in; one counter update each for A, P and Q.
    assert_eq!(tx.derived_len(), 14);
    assert_eq!(tx.len(), 3);
}

#[test]
fn without_a_listing_repository_scopes_are_left_alone() {
    let unknown = |closed| IssueRecord {
        listing: None,
        ..issue(5, closed)
    };
    let mut tx = Tx::new("t".into());
    moves(&mut tx, Some(&unknown(false)), Some(&unknown(true))).unwrap();
    // A and the four user listings move; only the A counter changes.
    assert_eq!(tx.derived_len(), 10);
    assert_eq!(tx.len(), 1);
    let mut same = Tx::new("t".into());
    moves(&mut same, Some(&unknown(false)), Some(&unknown(false))).unwrap();
    assert!(same.derived_len() == 0 && same.is_empty());
}
