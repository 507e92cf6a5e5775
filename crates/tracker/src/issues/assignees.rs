//! Who may be assigned to an issue or asked to review a pull request:
//! each login must name a user who may read the kind and has not blocked
//! the poster.

use super::{Error, Result};
use crate::{
    accounts::users::UserRecord,
    db::Db,
    repos::access::{self, RepoContext, Unit},
};

/// Checks assignees (or reviewers; callers bound how many): each must exist
/// (422), may be assigned (read access to the kind, else 422) and must not
/// have blocked the poster (403). Returns lower-case logins, once each.
/// Everything is read in one wave ([`access::others`]).
pub async fn assignees(
    db: &Db,
    ctx: &RepoContext,
    logins: Vec<String>,
    poster: &str,
    unit: Unit,
) -> Result<Vec<String>> {
    let logins = distinct(logins);
    let found = access::others(db, ctx, &logins, Some(poster)).await?;
    check_assignees(ctx, &logins, &found, poster, unit)?;
    Ok(logins)
}

/// Logins folded, blank ones dropped, each once, in the order given.
pub fn distinct(logins: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for login in logins.into_iter().map(|l| crate::name::fold(l.trim())) {
        if !login.is_empty() && !out.contains(&login) {
            out.push(login);
        }
    }
    out
}

/// The rules of [`assignees`] on what [`access::others`] found for
/// `logins`, login by login: the first that fails is the error. Returns
/// their records.
pub fn check_assignees(
    ctx: &RepoContext,
    logins: &[String],
    found: &[access::Other],
    poster: &str,
    unit: Unit,
) -> Result<Vec<UserRecord>> {
    let mut out = Vec::with_capacity(logins.len());
    for (login, other) in logins.iter().zip(found) {
        let Some(user) = &other.user else {
            return Err(Error::NoSuchAssignee(login.clone()));
        };
        if !other.perm.can_read(unit) {
            return Err(Error::AssigneeNoAccess {
                user_id: user.id,
                repo: ctx.repo.name.clone(),
            });
        }
        if login != poster && other.blocks {
            return Err(Error::Blocked);
        }
        out.push(user.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        accounts::teams::AccessMode,
        repos::{RepoRecord, access::Permission},
    };

    fn ctx() -> RepoContext {
        RepoContext {
            owner: UserRecord::ghost(),
            repo: serde_json::from_value::<RepoRecord>(serde_json::json!({
                "id": 7, "owner": "acme", "name": "web", "private": true,
                "has_issues": true, "has_pull_requests": true, "created": 0, "updated": 0
            }))
            .unwrap(),
            perm: Permission::full(),
        }
    }

    fn found(id: i64, issues: AccessMode, blocks: bool) -> access::Other {
        access::Other {
            user: Some(UserRecord {
                id,
                ..UserRecord::ghost()
            }),
            perm: Permission {
                mode: issues,
                issues,
                pulls: AccessMode::None,
                blocked: false,
            },
            blocks,
        }
    }

    #[test]
    fn logins_are_folded_trimmed_and_kept_once_in_order() {
        let got = distinct(vec![" Bob".into(), "".into(), "alice".into(), "BOB".into()]);
        assert_eq!(got, ["bob", "alice"]);
    }

    #[test]
    fn the_first_failing_assignee_decides_in_the_old_order() {
        use AccessMode::{None as No, Read};
        let logins: Vec<String> = ["ann", "bob", "cy"].map(String::from).into();
        let check = |found: Vec<access::Other>| {
            check_assignees(&ctx(), &logins, &found, "poster", Unit::Issues)
        };
        // ann blocks the poster, bob does not exist: ann comes first.
        let err = check(vec![
            found(1, Read, true),
            access::Other::default(),
            found(3, No, false),
        ]);
        assert!(matches!(err, Err(Error::Blocked)), "{err:?}");
        // bob is unknown before cy's lack of access.
        let err = check(vec![
            found(1, Read, false),
            access::Other::default(),
            found(3, No, false),
        ]);
        assert!(matches!(err, Err(Error::NoSuchAssignee(l)) if l == "bob"));
        // For one user, no access comes before a block.
        let err = check(vec![
            found(1, No, true),
            found(2, Read, false),
            found(3, Read, false),
        ]);
        assert!(matches!(
            err,
            Err(Error::AssigneeNoAccess { user_id: 1, .. })
        ));
        let ok = check(vec![
            found(1, Read, false),
            found(2, Read, false),
            found(3, Read, false),
        ]);
        assert_eq!(ok.unwrap().len(), 3);
    }

    #[test]
    fn the_poster_may_assign_themself_whatever_they_block() {
        let logins = vec!["poster".to_string()];
        let found = [found(1, AccessMode::Read, true)];
        assert!(check_assignees(&ctx(), &logins, &found, "poster", Unit::Issues).is_ok());
    }
}
