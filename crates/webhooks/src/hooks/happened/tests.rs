//! The event rules, change by change.

use super::*;
use crate::stream::pad_seq;

fn issue() -> IssueRecord {
    IssueRecord {
        id: 9,
        repo_id: 4,
        index: 2,
        title: "t".into(),
        body: "b".into(),
        poster: "ann".into(),
        ..IssueRecord::default()
    }
}

fn change(old: Option<&IssueRecord>, new: &IssueRecord, by: Option<&Actor>) -> Change {
    let item = |i: &IssueRecord| {
        let mut item = i.to_item().unwrap();
        if let Some(a) = by {
            a.stamp(&mut item).unwrap();
        }
        item
    };
    Change {
        seq: pad_seq("1"),
        kind: if old.is_some() {
            ChangeKind::Modify
        } else {
            ChangeKind::Insert
        },
        keys: keys::issue(new.repo_id, new.index),
        old: old.map(|i| i.to_item().unwrap()),
        new: Some(item(new)),
        at_ms: 0,
    }
}

fn names(h: &[Happening]) -> Vec<(&str, &str)> {
    h.iter().map(|h| (h.event.name(), h.action)).collect()
}

#[test]
fn a_new_issue_is_opened_by_its_actor() {
    let ann = Actor {
        id: 1,
        name: "Ann".into(),
    };
    let h = happenings(&change(None, &issue(), Some(&ann))).unwrap();
    assert_eq!(names(&h), [("issues", "opened")]);
    assert_eq!(h[0].actor, Some(ann));
    assert_eq!(h[0].header_event(), "issues");
}

#[test]
fn each_kind_of_edit_is_its_own_event_with_old_values() {
    let before = issue();
    let after = IssueRecord {
        title: "t2".into(),
        body: "b2".into(),
        assignees: vec!["bo".into()],
        labels: vec![3],
        milestone: 5,
        closed: true,
        ..before.clone()
    };
    let h = happenings(&change(Some(&before), &after, None)).unwrap();
    assert_eq!(
        names(&h),
        [
            ("issues", "edited"),
            ("issues", "edited"),
            ("issue_assign", "assigned"),
            ("issue_label", "label_updated"),
            ("issue_milestone", "milestoned"),
            ("issues", "closed"),
        ]
    );
    assert_eq!(
        h[0].changes.as_ref().unwrap().title.as_ref().unwrap().from,
        "t"
    );
    assert_eq!(
        h[1].changes.as_ref().unwrap().body.as_ref().unwrap().from,
        "b"
    );
    let back = IssueRecord {
        labels: vec![],
        milestone: 0,
        assignees: vec![],
        closed: false,
        ..after.clone()
    };
    let h = happenings(&change(Some(&after), &back, None)).unwrap();
    assert_eq!(
        names(&h),
        [
            ("issue_assign", "unassigned"),
            ("issue_label", "label_cleared"),
            ("issue_milestone", "demilestoned"),
            ("issues", "reopened"),
        ]
    );
}

#[test]
fn pull_requests_use_their_own_events_and_counters_notify_nobody() {
    let pr = IssueRecord {
        is_pull: true,
        ..issue()
    };
    let closed = IssueRecord {
        closed: true,
        labels: vec![1],
        ..pr.clone()
    };
    let h = happenings(&change(Some(&pr), &closed, None)).unwrap();
    assert_eq!(
        names(&h),
        [
            ("pull_request_label", "label_updated"),
            ("pull_request", "closed")
        ]
    );
    let counted = IssueRecord {
        comments: 3,
        version: 7,
        ..pr.clone()
    };
    assert!(
        happenings(&change(Some(&pr), &counted, None))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn review_requests_and_reviews_are_their_own_events() {
    let pr = IssueRecord {
        is_pull: true,
        review_requested: vec!["cy".into()],
        ..issue()
    };
    let asked = IssueRecord {
        review_requested: vec!["cy".into(), "di".into()],
        ..pr.clone()
    };
    let h = happenings(&change(Some(&pr), &asked, None)).unwrap();
    assert_eq!(
        names(&h),
        [("pull_request_review_request", "review_requested")]
    );
    assert_eq!(h[0].detail, Some(Detail::Reviewer("di".into())));
    assert_eq!(h[0].header_event(), "pull_request");
    // cy reviews: off the requested list, no "removed" event for it.
    let reviewed = IssueRecord {
        review_requested: vec!["di".into()],
        reviewed: vec!["cy".into()],
        last_review: Some(crate::issues::LastReview {
            login: "cy".into(),
            event: "REQUEST_CHANGES".into(),
            n: 1,
            excerpt: "no".into(),
        }),
        ..asked.clone()
    };
    let h = happenings(&change(Some(&asked), &reviewed, None)).unwrap();
    assert_eq!(names(&h), [("pull_request_review_rejected", "reviewed")]);
    assert_eq!(h[0].header_event(), "pull_request_rejected");
    assert_eq!(
        h[0].detail,
        Some(Detail::Review {
            kind: Event::PullRequestReviewRejected,
            content: "no".into()
        })
    );
    let withdrawn = IssueRecord {
        review_requested: vec![],
        ..reviewed.clone()
    };
    let h = happenings(&change(Some(&reviewed), &withdrawn, None)).unwrap();
    assert_eq!(
        names(&h),
        [("pull_request_review_request", "review_request_removed")]
    );
}

#[test]
fn a_delete_s_event_item_is_deleted_by_its_actor() {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .endpoint_url("http://127.0.0.1:9")
        .build();
    let db = crate::db::Db::with_client(aws_sdk_dynamodb::Client::from_conf(config), "t");
    let bo = Actor {
        id: 2,
        name: "Bo".into(),
    };
    db.set_actor(bo.clone());
    let pr = IssueRecord {
        is_pull: true,
        ..issue()
    };
    let item = outbox::event(&db, 4, outbox::ISSUE_DELETED, &pr).unwrap();
    let change = Change {
        seq: pad_seq("3"),
        kind: ChangeKind::Insert,
        keys: keys::key(db::text(&item, "pk"), db::text(&item, "sk")),
        old: None,
        new: Some(item),
        at_ms: 0,
    };
    let h = happenings(&change).unwrap();
    assert_eq!(names(&h), [("pull_request", "deleted")]);
    assert_eq!(h[0].actor, Some(bo));
    assert_eq!(h[0].subject, Subject::Issue(Box::new(pr)));
    let removed = Change {
        kind: ChangeKind::Remove,
        ..change
    };
    assert!(
        happenings(&removed).unwrap().is_empty(),
        "its expiry is no event"
    );
}

#[test]
fn comments_are_created_and_edited_and_other_items_are_ignored() {
    let c = CommentRecord {
        id: 8,
        repo_id: 4,
        index: 2,
        is_pull: true,
        poster: "ann".into(),
        body: "hi".into(),
        ..CommentRecord::default()
    };
    let mk = |old: Option<&CommentRecord>, new: &CommentRecord| Change {
        seq: pad_seq("2"),
        kind: ChangeKind::Modify,
        keys: keys::comment(4, 8),
        old: old.map(|c| c.to_item().unwrap()),
        new: Some(new.to_item().unwrap()),
        at_ms: 0,
    };
    let h = happenings(&mk(None, &c)).unwrap();
    assert_eq!(names(&h), [("pull_request_comment", "created")]);
    assert_eq!(h[0].header_event(), "issue_comment");
    let edited = CommentRecord {
        body: "hello".into(),
        ..c.clone()
    };
    let h = happenings(&mk(Some(&c), &edited)).unwrap();
    assert_eq!(names(&h), [("pull_request_comment", "edited")]);
    assert_eq!(
        h[0].changes.as_ref().unwrap().body.as_ref().unwrap().from,
        "hi"
    );
    let label = Change {
        keys: keys::repo_label(4, 1),
        ..mk(None, &c)
    };
    assert!(happenings(&label).unwrap().is_empty());
}

#[test]
fn deployment_events_are_no_hook_s_concern_yet() {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .endpoint_url("http://127.0.0.1:9")
        .build();
    let db = crate::db::Db::with_client(aws_sdk_dynamodb::Client::from_conf(config), "t");
    for what in [
        outbox::DEPLOYMENT_QUEUED,
        outbox::DEPLOYMENT_STARTED,
        outbox::DEPLOYMENT_FINISHED,
        outbox::DEPLOYMENT_FAILED,
        outbox::DEPLOYMENT_CANCELLED,
    ] {
        let record = serde_json::json!({"deployment_uuid": "d", "status": "queued"});
        let item = outbox::event_in(&db, &keys::deploy_team_pk("t"), what, &record).unwrap();
        let change = Change {
            seq: pad_seq("4"),
            kind: ChangeKind::Insert,
            keys: keys::key(db::text(&item, "pk"), db::text(&item, "sk")),
            old: None,
            new: Some(item),
            at_ms: 0,
        };
        assert!(!concerns(&change), "{what}");
        assert!(happenings(&change).unwrap().is_empty(), "{what}");
    }
}
