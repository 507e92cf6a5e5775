//! The rule tables, row by row.

use super::*;
use crate::{
    accounts::{teams::AccessMode, users::UserRecord},
    repos::RepoRecord,
};
use AccessMode::{Admin, None as No, Read, Write};

fn perm(mode: AccessMode, issues: AccessMode, pulls: AccessMode, blocked: bool) -> Permission {
    Permission {
        mode,
        issues,
        pulls,
        blocked,
    }
}

fn ctx(p: Permission, archived: bool, deps: bool) -> RepoContext {
    let repo: RepoRecord = serde_json::from_value(serde_json::json!({
        "id": 1, "owner": "o", "name": "r", "private": false, "archived": archived,
        "has_issues": true, "has_pull_requests": true,
        "enable_issue_dependencies": deps, "created": 0, "updated": 0,
    }))
    .unwrap();
    let owner: UserRecord = serde_json::from_value(serde_json::json!({
        "id": 1, "name": "o", "kind": "user", "email": "o@example.com", "visibility": "public", "created": 0,
    }))
    .unwrap_or_else(|e| panic!("a user record from JSON: {e}"));
    RepoContext {
        owner,
        repo,
        perm: p,
    }
}

fn issue(poster: &str, is_pull: bool, closed: bool, merged: bool) -> IssueRecord {
    IssueRecord {
        index: 7,
        poster: poster.into(),
        is_pull,
        closed,
        merged,
        ..IssueRecord::default()
    }
}

fn name(e: Error) -> String {
    format!("{e:?}")
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn who_may_open() {
    for (p, archived, unit, want) in [
        (perm(Read, Read, Read, false), false, Unit::Issues, "ok"),
        (
            perm(Read, Read, No, false),
            false,
            Unit::Pulls,
            "NoUnitAccess",
        ),
        (perm(Read, Read, Read, true), false, Unit::Issues, "Blocked"),
        (
            perm(Admin, Admin, Admin, false),
            true,
            Unit::Issues,
            "Archived",
        ),
        (perm(Read, No, Read, true), true, Unit::Issues, "Archived"),
    ] {
        let got = may_create(&ctx(p, archived, true), "me".into(), unit)
            .map(|p| p.login().to_string())
            .map_or_else(name, |_| "ok".into());
        assert_eq!(got, want, "{p:?} archived={archived} {unit:?}");
    }
}

#[test]
fn who_may_edit_and_what() {
    let mine = issue("me", false, false, false);
    let reader = perm(Read, Read, Read, false);
    assert!(matches!(
        may_edit(&reader, &issue("you", false, false, false), "me"),
        Err(Error::MayNotEdit)
    ));
    let e = may_edit(&reader, &mine, "me").unwrap();
    assert!(!e.can_write);
    let blocked_poster = may_edit(&perm(Read, Read, Read, true), &mine, "me").unwrap();
    assert!(matches!(
        blocked_poster.may_change_text(true),
        Err(Error::Blocked)
    ));
    assert!(blocked_poster.may_change_text(false).is_ok());
    let blocked_admin = may_edit(&perm(Admin, Admin, Admin, true), &mine, "x").unwrap();
    assert!(blocked_admin.may_change_text(true).is_ok());
}

#[test]
fn deadline_edits() {
    let tz = crate::time::Zone::UTC;
    for (can_write, due, unset, want) in [
        (false, Some(Some("2024-01-02")), Some(true), Ok(None)),
        (true, None, None, Ok(None)),
        (true, Some(None), Some(true), Ok(Some(0))),
        (true, Some(Some("2024-01-02")), Some(true), Ok(Some(0))),
        (
            true,
            Some(Some("2024-01-02")),
            None,
            Ok(Some(1_704_239_999)),
        ),
        (true, Some(None), None, Err("DeadlineEmpty")),
        (true, None, Some(false), Err("DeadlineEmpty")),
        (true, Some(Some("soon")), None, Err("Deadline")),
    ] {
        let got = edited_due(can_write, due, unset, tz).map_err(name);
        assert_eq!(
            got,
            want.map_err(String::from),
            "write={can_write} due={due:?} unset={unset:?}"
        );
    }
}

#[test]
fn state_changes() {
    let open = issue("a", false, false, false);
    assert!(requested_state(&open, "closed").unwrap());
    assert!(!requested_state(&open, "open").unwrap());
    assert!(
        matches!(requested_state(&open, "Closed"), Err(Error::UnknownState(s)) if s == "Closed")
    );
    let merged = issue("a", true, true, true);
    // Any state of a merged pull request, even a bad one, is Gitea's 412.
    for s in ["open", "closed", "bogus"] {
        assert!(
            matches!(requested_state(&merged, s), Err(Error::Merged)),
            "{s}"
        );
    }
    let c = ctx(perm(Read, Read, Read, false), false, true);
    assert!(closing_needs_blockers(&c, &open, true));
    assert!(!closing_needs_blockers(&c, &open, false));
    assert!(!closing_needs_blockers(
        &c,
        &issue("a", false, true, false),
        true
    ));
    let no_deps = ctx(perm(Read, Read, Read, false), false, false);
    assert!(!closing_needs_blockers(&no_deps, &open, true));
    assert!(matches!(
        dependencies_enabled(&no_deps),
        Err(Error::DependenciesDisabled)
    ));
}

#[test]
fn merging() {
    let writer = perm(Write, Write, Write, false);
    for (p, archived, pr, want) in [
        (writer, false, issue("a", true, false, false), "ok"),
        (
            perm(Read, Write, Read, false),
            false,
            issue("a", true, false, false),
            "MayNotWrite",
        ),
        (writer, true, issue("a", true, false, false), "Archived"),
        (writer, false, issue("a", true, true, true), "AlreadyMerged"),
        (
            writer,
            false,
            issue("a", true, true, false),
            "ClosedUnmerged",
        ),
    ] {
        let got = may_merge(&ctx(p, archived, true), &pr).map_or_else(name, |_| "ok".into());
        assert_eq!(got, want, "{p:?} archived={archived} {pr:?}");
    }
}

#[test]
fn reviews() {
    let reader = perm(Read, Read, Read, false);
    let pr = issue("poster", true, false, false);
    assert_eq!(
        review_event(&reader, &pr, "me", " approved ").unwrap(),
        "APPROVED"
    );
    assert!(
        matches!(review_event(&reader, &pr, "me", "LGTM"), Err(Error::ReviewEvent(r)) if r == "LGTM")
    );
    assert!(matches!(
        review_event(&reader, &pr, "poster", "APPROVED"),
        Err(Error::SelfReview)
    ));
    assert_eq!(
        review_event(&reader, &pr, "poster", "comment").unwrap(),
        "COMMENT"
    );
    let blocked = perm(Read, Read, Read, true);
    assert!(matches!(
        review_event(&blocked, &pr, "me", "COMMENT"),
        Err(Error::Blocked)
    ));
    assert!(may_request_reviews(&reader, &pr, "poster").is_ok());
    assert!(matches!(
        may_request_reviews(&reader, &pr, "me"),
        Err(Error::MayNotRequestReviews)
    ));
    assert!(may_request_reviews(&perm(Write, Read, Write, false), &pr, "me").is_ok());
    assert!(matches!(
        must_be_pull(&issue("a", false, false, false)),
        Err(Error::NotPull(7))
    ));
}

#[test]
fn reading_writing_and_deleting() {
    let issues_only = perm(Read, Write, No, false);
    assert!(readable(&issues_only, issue("a", false, false, false)).is_ok());
    assert!(matches!(
        readable(&issues_only, issue("a", true, false, false)),
        Err(Error::Hidden)
    ));
    assert!(
        must_write(
            &issues_only,
            &issue("a", false, false, false),
            Error::MayNotWrite
        )
        .is_ok()
    );
    assert!(matches!(
        must_write(
            &issues_only,
            &issue("a", true, false, false),
            Error::MayNotSetDeadline
        ),
        Err(Error::MayNotSetDeadline)
    ));
    assert!(matches!(
        may_delete(&perm(Write, Write, Write, false)),
        Err(Error::MayNotDelete)
    ));
    assert!(may_delete(&perm(Admin, Admin, Admin, false)).is_ok());
}

#[test]
fn assignees_join_the_list_and_are_bounded() {
    assert_eq!(
        assignee_logins(Some(vec!["a".into()]), Some("b".into())).unwrap(),
        ["a", "b"]
    );
    assert_eq!(
        assignee_logins(None, Some("  ".into())).unwrap(),
        Vec::<String>::new()
    );
    let eleven = (0..11).map(|i| format!("u{i}")).collect();
    assert!(matches!(
        assignee_logins(Some(eleven), None),
        Err(Error::TooMany {
            field: "assignees",
            len: 11,
            max: 10
        })
    ));
}

#[test]
fn allowing_maintainer_edits_is_the_posters_say() {
    let writer = perm(Write, Write, Write, false);
    let theirs = issue("you", true, false, false);
    let e = may_edit(&writer, &theirs, "me").unwrap();
    assert!(matches!(
        e.may_allow_edits(true),
        Err(Error::MayNotAllowEdits)
    ));
    assert!(e.may_allow_edits(false).is_ok());
    let reader = perm(Read, Read, Read, false);
    let poster = may_edit(&reader, &theirs, "you").unwrap();
    assert!(poster.may_allow_edits(true).is_ok());
}

#[test]
fn base_changes() {
    let pr = |closed, merged| IssueRecord {
        head: "feat".into(),
        base: "main".into(),
        ..issue("a", true, closed, merged)
    };
    for (p, base, want) in [
        (pr(false, false), "dev", Ok(Some("dev".to_string()))),
        (pr(false, false), "main", Ok(None)),
        (pr(true, true), "dev", Ok(None)),
        (pr(true, false), "dev", Err("BaseOfClosed".to_string())),
        (pr(true, false), "main", Ok(None)),
        (pr(false, false), "feat", Err("SameBranches".to_string())),
    ] {
        let got = edited_base(&p, base).map_err(name);
        assert_eq!(
            got, want,
            "closed={} merged={} base={base}",
            p.closed, p.merged
        );
    }
}
