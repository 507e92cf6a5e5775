//! Listing orders, plain filters and the members-or-partitions choice.

use super::*;

fn entry(created: i64, index: i64, updated: i64, closed_at: i64) -> Entry {
    Entry {
        created,
        repo_id: 1,
        index,
        updated,
        closed_at,
        // 1 and 4 have two comments, 3 has one.
        comments: [0, 2, 0, 1, 2][index as usize],
    }
}

fn sorted(order: Order) -> Vec<i64> {
    let mut all = [
        entry(10, 1, 50, 0),
        entry(20, 2, 30, 40),
        entry(20, 3, 30, 0),
        entry(30, 4, 60, 35),
    ];
    all.sort_by(|a, b| order.cmp(a, b));
    all.iter().map(|e| e.index).collect()
}

#[test]
fn orders_break_ties_as_gitea_does() {
    assert_eq!(sorted(Order::Newest), [4, 3, 2, 1]);
    assert_eq!(sorted(Order::Oldest), [1, 2, 3, 4]);
    // Same update time: newest first for "recent", oldest for "least".
    assert_eq!(sorted(Order::RecentUpdate), [4, 1, 3, 2]);
    assert_eq!(sorted(Order::LeastUpdate), [2, 3, 1, 4]);
    // Open ones (closed_at 0) last, newest first among them.
    assert_eq!(sorted(Order::RecentClose), [2, 4, 3, 1]);
    // Comment counts, ties newest first.
    assert_eq!(sorted(Order::MostComment), [4, 1, 3, 2]);
    assert_eq!(sorted(Order::LeastComment), [2, 3, 4, 1]);
}

#[test]
fn only_the_index_orders_are_plain() {
    let f = |order| Filter {
        order,
        ..Filter::default()
    };
    assert!(f(Order::Newest).is_plain() && f(Order::Oldest).is_plain());
    assert!(!f(Order::RecentUpdate).is_plain());
    let based = Filter {
        base: Some("main".into()),
        ..Filter::default()
    };
    assert!(!based.is_plain());
    let nothing = Filter {
        labels: Some(Vec::new()),
        ..Filter::default()
    };
    assert!(nothing.matches_nothing() && !Filter::default().matches_nothing());
}

#[test]
fn members_are_read_when_a_quarter_or_fewer() {
    assert!(members_are_cheaper(25, 100));
    assert!(!members_are_cheaper(26, 100));
    assert!(members_are_cheaper(0, 0));
    assert!(!members_are_cheaper(u64::MAX, 10));
}
