//! The permission rules, row by row: every source of access against public
//! and private repositories, visible and hidden owners, disabled units.

use std::collections::BTreeMap;

use super::*;
use AccessMode::{Admin, None as No, Owner, Read, Write};

fn team(
    id: i64,
    permission: AccessMode,
    all_repos: bool,
    issues: AccessMode,
    pulls: AccessMode,
) -> Membership {
    Membership {
        org: "org".into(),
        team_id: id,
        permission,
        units: BTreeMap::from([
            ("repo.issues".to_string(), issues),
            ("repo.pulls".to_string(), pulls),
        ]),
        includes_all_repositories: all_repos,
        can_create_org_repo: false,
    }
}

fn base(private: bool) -> Facts {
    Facts {
        owner_visible: true,
        owner_public: true,
        private,
        has_issues: true,
        has_pulls: true,
        ..Facts::default()
    }
}

#[test]
fn every_source_of_access() {
    let anon_public = base(false);
    let anon_private = base(true);
    let signed = |private| Facts {
        signed_in: true,
        ..base(private)
    };
    let rows: Vec<(&str, Facts, (AccessMode, AccessMode, AccessMode))> = vec![
        ("anonymous, public", anon_public.clone(), (Read, Read, Read)),
        ("anonymous, private", anon_private.clone(), (No, No, No)),
        (
            "anonymous, public repo of a hidden owner",
            Facts {
                owner_visible: false,
                ..base(false)
            },
            (No, No, No),
        ),
        ("outsider, public", signed(false), (Read, Read, Read)),
        ("outsider, private", signed(true), (No, No, No)),
        (
            "restricted user, public",
            Facts {
                restricted: true,
                ..signed(false)
            },
            (No, No, No),
        ),
        (
            "site admin, private",
            Facts {
                site_admin: true,
                ..signed(true)
            },
            (Owner, Owner, Owner),
        ),
        (
            "owner, private",
            Facts {
                is_owner: true,
                ..signed(true)
            },
            (Owner, Owner, Owner),
        ),
        (
            "reader collaborator, private",
            Facts {
                collaborator: Some(Read),
                ..signed(true)
            },
            (Read, Read, Read),
        ),
        (
            "writer collaborator, private",
            Facts {
                collaborator: Some(Write),
                ..signed(true)
            },
            (Write, Write, Write),
        ),
        (
            "admin collaborator, public",
            Facts {
                collaborator: Some(Admin),
                ..signed(false)
            },
            (Admin, Admin, Admin),
        ),
        (
            "org owner team",
            Facts {
                memberships: vec![team(1, Owner, true, Owner, Owner)],
                ..signed(true)
            },
            (Owner, Owner, Owner),
        ),
        (
            "admin team without this repo",
            Facts {
                memberships: vec![team(2, Admin, false, Admin, Admin)],
                ..signed(true)
            },
            (No, No, No),
        ),
        (
            "admin team given this repo",
            Facts {
                memberships: vec![team(2, Admin, false, Read, Read)],
                repo_teams: vec![2],
                ..signed(true)
            },
            (Admin, Admin, Admin),
        ),
        (
            "write team, issues only, all repos",
            Facts {
                memberships: vec![team(3, Write, true, Write, No)],
                ..signed(true)
            },
            (Write, Write, No),
        ),
        (
            "read team on pulls, public repo",
            Facts {
                memberships: vec![team(4, Read, true, No, Read)],
                ..signed(false)
            },
            (Read, Read, Read),
        ),
        (
            "two teams: the higher access per unit wins",
            Facts {
                memberships: vec![
                    team(5, Write, true, Write, Read),
                    team(6, Read, false, Read, Write),
                ],
                repo_teams: vec![6],
                ..signed(true)
            },
            (Write, Write, Write),
        ),
        (
            "collaborator and team combine",
            Facts {
                collaborator: Some(Read),
                memberships: vec![team(7, Write, true, No, Write)],
                ..signed(true)
            },
            (Write, Read, Write),
        ),
        (
            "issues disabled",
            Facts {
                has_issues: false,
                is_owner: true,
                ..signed(false)
            },
            (Owner, No, Owner),
        ),
        (
            "pulls disabled",
            Facts {
                has_pulls: false,
                ..base(false)
            },
            (Read, Read, No),
        ),
        (
            "both disabled, admin",
            Facts {
                has_issues: false,
                has_pulls: false,
                site_admin: true,
                ..signed(true)
            },
            (Owner, No, No),
        ),
    ];
    for (name, facts, (mode, issues, pulls)) in rows {
        let p = compute(&facts);
        assert_eq!(
            (p.mode, p.issues, p.pulls),
            (mode, issues, pulls),
            "row: {name}"
        );
    }
}

#[test]
fn helpers_follow_the_modes() {
    let p = compute(&Facts {
        collaborator: Some(Write),
        signed_in: true,
        ..base(true)
    });
    assert!(p.can_see() && p.can_read(Unit::Issues) && p.can_write(Unit::Pulls) && !p.is_admin());
    assert!(p.can_write_issues_or_pulls());
    let r = compute(&base(false));
    assert!(
        r.can_read(Unit::Issues) && !r.can_write(Unit::Issues) && !r.can_write_issues_or_pulls()
    );
    assert_eq!(Unit::for_pull(true), Unit::Pulls);
}

#[test]
fn blocks_stick_except_for_site_admins() {
    let blocked = Facts {
        blocked: true,
        signed_in: true,
        ..base(false)
    };
    assert!(compute(&blocked).blocked);
    assert!(
        compute(&blocked).can_read(Unit::Issues),
        "a blocked user still reads a public repository"
    );
    assert!(
        !compute(&Facts {
            site_admin: true,
            ..blocked
        })
        .blocked
    );
}

#[test]
fn public_only_tokens_see_nothing_private() {
    let owner_of = |private| Facts {
        is_owner: true,
        signed_in: true,
        public_only: true,
        ..base(private)
    };
    assert!(compute(&owner_of(false)).is_admin());
    assert!(
        !compute(&owner_of(true)).can_see(),
        "even its owner's public-only token does not reach a private repository"
    );
    let in_limited_org = Facts {
        owner_public: false,
        ..owner_of(false)
    };
    assert!(!compute(&in_limited_org).can_see());
}
