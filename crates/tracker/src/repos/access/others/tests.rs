//! Other users' standing on a resolved repository: each source of access
//! gives them what `load` would give them signed in themselves.

use std::collections::BTreeMap;

use super::*;
use crate::{
    accounts::{names::Visibility, teams::AccessMode, users::OwnerKind},
    repos::{RepoRecord, access::Unit},
};
use AccessMode::{None as No, Owner, Read, Write};

fn user(id: i64, name: &str) -> UserRecord {
    UserRecord {
        id,
        name: name.into(),
        ..UserRecord::ghost()
    }
}

fn ctx(private: bool, org: bool) -> RepoContext {
    let owner = UserRecord {
        kind: if org { OwnerKind::Org } else { OwnerKind::User },
        ..user(1, "acme")
    };
    let repo = RepoRecord {
        id: 7,
        owner: "acme".into(),
        name: "web".into(),
        description: String::new(),
        website: String::new(),
        private,
        archived: false,
        archived_at: 0,
        has_issues: true,
        has_pull_requests: true,
        enable_issue_dependencies: true,
        enable_time_tracker: true,
        allow_only_contributors_to_track_time: true,
        default_branch: String::new(),
        created: 0,
        updated: 0,
        topics: Default::default(),
    };
    RepoContext {
        owner,
        repo,
        perm: Permission::full(),
    }
}

fn team(id: i64, permission: AccessMode, all: bool, issues: AccessMode) -> Membership {
    Membership {
        org: "acme".into(),
        team_id: id,
        permission,
        units: BTreeMap::from([
            ("repo.issues".to_string(), issues),
            ("repo.pulls".to_string(), No),
        ]),
        includes_all_repositories: all,
        can_create_org_repo: false,
    }
}

fn collaborator(name: &str, mode: AccessMode) -> Grant {
    Grant {
        user: Some(name.into()),
        team_id: None,
        mode: Some(mode),
    }
}

fn team_grant(id: i64) -> Grant {
    Grant {
        user: None,
        team_id: Some(id),
        mode: None,
    }
}

fn issues(p: Permission) -> (AccessMode, AccessMode) {
    (p.mode, p.issues)
}

#[test]
fn each_source_of_access_counts_as_for_the_caller() {
    let private = ctx(true, true);
    let bob = user(2, "Bob");
    let grants = [collaborator("bob", Write), team_grant(5)];
    let rows: Vec<(&str, Permission, (AccessMode, AccessMode))> = vec![
        (
            "outsider, private: nothing (load answers 404)",
            standing(&private, &bob, vec![], false, &[]),
            (No, No),
        ),
        (
            "outsider, public: read",
            standing(&ctx(false, true), &bob, vec![], false, &[]),
            (Read, Read),
        ),
        (
            "collaborator (name folded)",
            standing(&private, &bob, vec![], false, &grants),
            (Write, Write),
        ),
        (
            "member of a granted team: its unit access",
            standing(
                &private,
                &bob,
                vec![team(5, Read, false, Write)],
                false,
                &grants[1..],
            ),
            (Read, Write),
        ),
        (
            "member of a team not granted the repository",
            standing(
                &private,
                &bob,
                vec![team(6, Write, false, Write)],
                false,
                &grants[1..],
            ),
            (No, No),
        ),
        (
            "organisation owner",
            standing(
                &private,
                &bob,
                vec![team(1, Owner, true, Owner)],
                false,
                &[],
            ),
            (Owner, Owner),
        ),
        (
            "site admin",
            standing(
                &private,
                &UserRecord {
                    is_admin: true,
                    ..bob.clone()
                },
                vec![],
                false,
                &[],
            ),
            (Owner, Owner),
        ),
        (
            "restricted, public: only what was given",
            standing(
                &ctx(false, true),
                &UserRecord {
                    restricted: true,
                    ..bob.clone()
                },
                vec![],
                false,
                &[],
            ),
            (No, No),
        ),
        (
            "owner of a user's repository",
            standing(&ctx(true, false), &user(1, "acme"), vec![], false, &[]),
            (Owner, Owner),
        ),
    ];
    for (what, got, want) in rows {
        assert_eq!(issues(got), want, "{what}");
    }
}

#[test]
fn grants_are_ignored_where_load_skips_them() {
    // An organisation owner whose Owners team does not include the
    // repository: load reads no grants, so a collaborator grant does not
    // count either.
    let got = standing(
        &ctx(true, true),
        &user(2, "bob"),
        vec![team(1, Owner, false, Owner)],
        false,
        &[collaborator("bob", Write)],
    );
    assert_eq!(issues(got), (No, No));
}

#[test]
fn the_owners_block_is_kept_except_for_site_admins() {
    let public = ctx(false, true);
    let blocked = standing(&public, &user(2, "bob"), vec![], true, &[]);
    assert!(blocked.blocked && blocked.can_read(Unit::Issues));
    let admin = UserRecord {
        is_admin: true,
        ..user(3, "root")
    };
    assert!(!standing(&public, &admin, vec![], true, &[]).blocked);
    // A hidden owner: nothing at all, as a 404 would say.
    let hidden = RepoContext {
        owner: UserRecord {
            visibility: Visibility::Private,
            ..public.owner.clone()
        },
        ..public
    };
    assert_eq!(
        standing(&hidden, &user(2, "bob"), vec![], false, &[]),
        Permission::default()
    );
}
