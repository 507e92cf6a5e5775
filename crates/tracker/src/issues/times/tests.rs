//! The tracker's rules, row by row.

use super::*;
use crate::{
    accounts::{
        principal::Via,
        teams::AccessMode,
        users::{OwnerKind, UserRecord},
    },
    repos::{RepoRecord, access::Permission},
};

fn ctx(mode: AccessMode, on: bool, only: bool) -> RepoContext {
    let repo: RepoRecord = serde_json::from_value(serde_json::json!({
        "id": 1, "owner": "o", "name": "r", "private": false,
        "has_issues": true, "has_pull_requests": true, "created": 0, "updated": 0,
        "enable_time_tracker": on, "allow_only_contributors_to_track_time": only,
    }))
    .unwrap();
    RepoContext {
        owner: UserRecord {
            kind: OwnerKind::User,
            ..UserRecord::ghost()
        },
        repo,
        perm: Permission {
            mode,
            issues: mode,
            pulls: mode,
            blocked: false,
        },
    }
}

fn issue() -> IssueRecord {
    IssueRecord {
        poster: "poster".into(),
        assignees: vec!["helper".into()],
        ..IssueRecord::default()
    }
}

fn principal(name: &str, admin: bool) -> Principal {
    Principal {
        user: UserRecord {
            name: name.into(),
            is_admin: admin,
            ..UserRecord::ghost()
        },
        via: Via::Password,
    }
}

#[test]
fn who_may_track() {
    use AccessMode::{Read, Write};
    let i = issue();
    // (mode, tracker on, only contributors, caller) => allowed
    let rows = [
        (Write, true, true, "someone", true),
        (Read, true, true, "someone", false),
        (Read, true, true, "Poster", true),
        (Read, true, true, "helper", true),
        (Read, true, false, "someone", true),
    ];
    for (mode, on, only, me, ok) in rows {
        let got = may_track(&ctx(mode, on, only), &i, me);
        assert_eq!(got.is_ok(), ok, "{mode:?} {on} {only} {me}");
        if !ok {
            assert!(matches!(got, Err(Error::MayNotTrack)));
        }
    }
    let off = may_track(&ctx(Write, false, true), &i, "someone");
    assert!(matches!(off, Err(Error::TrackerOff)));
    // Stopwatches: writers only, and a bare 403 when the tracker is off.
    assert!(may_time(&ctx(Read, true, false), &i, "poster").is_err());
    let off = may_time(&ctx(Write, false, true), &i, "someone");
    assert!(matches!(off, Err(Error::MayNotTrack)));
}

#[test]
fn whose_times_a_listing_shows() {
    use AccessMode::{Read, Write};
    let me = principal("Me", false);
    let reader = ctx(Read, true, true);
    assert_eq!(whose(&reader, &me, None).unwrap(), Some("me".into()));
    assert_eq!(
        whose(&reader, &me, Some("ME".into())).unwrap(),
        Some("me".into())
    );
    assert!(matches!(
        whose(&reader, &me, Some("other".into())),
        Err(Error::QueryByUser)
    ));
    let writer = ctx(Write, true, true);
    assert_eq!(whose(&writer, &me, None).unwrap(), None);
    assert_eq!(
        whose(&writer, &me, Some("Other".into())).unwrap(),
        Some("other".into())
    );
    let admin = principal("root", true);
    assert_eq!(whose(&reader, &admin, None).unwrap(), None);
}

#[test]
fn who_may_delete_a_time() {
    let t = TimeRecord {
        id: 1,
        repo_id: 1,
        index: 1,
        issue_id: 1,
        user: "me".into(),
        user_name: "Me".into(),
        user_id: 2,
        time: 60,
        created: 0,
    };
    assert!(may_delete(&t, &principal("ME", false)).is_ok());
    assert!(may_delete(&t, &principal("root", true)).is_ok());
    assert!(matches!(
        may_delete(&t, &principal("other", false)),
        Err(Error::NotYourTime)
    ));
}

#[test]
fn seconds_are_bounded() {
    assert_eq!(seconds(1).unwrap(), 1);
    assert_eq!(seconds(MAX_SECONDS).unwrap(), MAX_SECONDS);
    for bad in [0, -5, MAX_SECONDS + 1] {
        assert!(seconds(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_time_is_in_five_listings() {
    let t = TimeRecord {
        id: 9,
        repo_id: 3,
        index: 4,
        issue_id: 40,
        user: "me".into(),
        user_name: "Me".into(),
        user_id: 2,
        time: 60,
        created: 100,
    };
    let l = t.listings();
    assert_eq!(l[0], keys::times_of_issue_user(3, 4, "ME"));
    assert_eq!(l[4].0, keys::owner_pk("me"));
    let tags: std::collections::BTreeSet<_> = l.iter().collect();
    assert_eq!(tags.len(), 5);
}
