//! The permissions of other users (assignees, reviewers) on a repository
//! the request already resolved: the same facts and rules as [`load`] for
//! each of them signed in by password, read for all of them in one wave.
//!
//! [`load`]: super::load

use std::collections::HashSet;

use super::{Facts, Grant, Permission, RepoContext, Result, compute, grants};
use crate::{
    accounts::{
        principal::{Principal, Via},
        teams::{self, Membership},
        users::UserRecord,
    },
    db::{self, Consistency, Db, Item, keys},
};

/// One other user on the resolved repository.
#[derive(Clone, Debug, Default)]
pub struct Other {
    /// The user; `None` when no user has this name (or it is an
    /// organisation's).
    pub user: Option<UserRecord>,
    /// What they may do there: nothing when they may not see it (as
    /// [`super::load`] answers them 404).
    pub perm: Permission,
    /// They have blocked the login [`others`] was given.
    pub blocks: bool,
}

/// `logins` (each folded) as they stand on `ctx`'s repository, in the same
/// order, and whether each has blocked `blocked` (`None`: not asked). One
/// concurrent wave: a BatchGetItem of their profiles, the owner's blocks
/// of them and their blocks of `blocked`; one Query per user of their teams
/// in an owning organisation; one Query of the repository's grants.
pub async fn others(
    db: &Db,
    ctx: &RepoContext,
    logins: &[String],
    blocked: Option<&str>,
) -> Result<Vec<Other>> {
    if logins.is_empty() {
        return Ok(Vec::new());
    }
    let owner = &ctx.owner.name;
    let mut wanted: Vec<Item> = Vec::new();
    let mut seen = HashSet::new();
    for login in logins {
        let mut keys = vec![keys::owner(login), keys::block(owner, login)];
        // Nobody blocks themself: no key for the poster's own block.
        keys.extend(
            blocked
                .filter(|b| crate::name::fold(b) != *login)
                .map(|b| keys::block(login, b)),
        );
        wanted.extend(keys.into_iter().filter(|k| seen.insert(id(k))));
    }
    // Only an organisation has teams: a user's repository needs no query.
    let memberships = futures::future::try_join_all(logins.iter().map(|login| async move {
        if ctx.owner.is_org() {
            teams::memberships(db, owner, login).await
        } else {
            Ok(Vec::new())
        }
    }));
    let (found, memberships, grants) = tokio::try_join!(
        async {
            Ok::<_, super::Error>(db.batch_get_many(wanted, None, Consistency::Strong).await?)
        },
        async { Ok::<_, super::Error>(memberships.await?) },
        grants(db, ctx.repo.id),
    )?;
    let found: std::collections::HashMap<String, Item> =
        found.into_iter().map(|i| (id(&i), i)).collect();
    let has = |k: Item| found.contains_key(&id(&k));
    let mut out = Vec::with_capacity(logins.len());
    for (login, memberships) in logins.iter().zip(memberships) {
        let user = match found.get(&id(&keys::owner(login))) {
            Some(item) => Some(db::from_item::<UserRecord>(item.clone())?),
            None => None,
        }
        .filter(|u| !u.is_org());
        let Some(user) = user else {
            out.push(Other::default());
            continue;
        };
        let perm = standing(
            ctx,
            &user,
            memberships,
            has(keys::block(owner, login)),
            &grants,
        );
        out.push(Other {
            blocks: blocked.is_some_and(|b| has(keys::block(login, b))),
            perm,
            user: Some(user),
        });
    }
    Ok(out)
}

/// What `user` may do in `ctx`'s repository, from their teams in the
/// owner, the owner's block of them and the repository's grants: what
/// [`super::load`] computes for them signed in by password, and nothing
/// where it would answer them 404.
fn standing(
    ctx: &RepoContext,
    user: &UserRecord,
    memberships: Vec<Membership>,
    blocked_by_owner: bool,
    grants: &[Grant],
) -> Permission {
    let as_them = Principal {
        user: user.clone(),
        via: Via::Password,
    };
    let mut facts = Facts::of(
        &ctx.owner,
        &ctx.repo,
        Some(&as_them),
        false,
        memberships,
        blocked_by_owner,
    );
    if facts.grants_matter() {
        facts.apply_grants(grants, &user.name);
    }
    let perm = compute(&facts);
    if perm.can_see() {
        perm
    } else {
        Permission::default()
    }
}

/// An item's key as one string, to match what a batch read found.
fn id(item: &Item) -> String {
    let part = |name: &str| {
        item.get(name)
            .and_then(|v| v.as_s().ok())
            .cloned()
            .unwrap_or_default()
    };
    format!("{}\u{0}{}", part("pk"), part("sk"))
}

#[cfg(test)]
mod tests;
