//! Repository operations on typed commands: who may create where, edit,
//! delete, collaborators and team grants. Each checks the caller first,
//! in Gitea's order, then changes the store.

use super::{
    Error, RepoEdit, RepoRecord, RepoStats, Result, access::RepoContext, collaborators, store,
};
use crate::{
    accounts::{
        blocks,
        names::same,
        orgs,
        principal::{self, Caller},
        teams::{self, AccessMode, TeamRecord},
        users::{self, UserRecord},
    },
    db::Db,
    time,
};

/// Whose namespace a new repository goes into.
#[derive(Clone, Copy, Debug)]
pub enum Namespace<'a> {
    /// The caller's own (`POST /user/repos`).
    Mine,
    /// An organisation's: its owners, members of a team allowed to create
    /// repositories, and site admins (`POST /orgs/{org}/repos`).
    Org(&'a str),
    /// A user's, by a site admin (`POST /admin/users/{user}/repos`).
    User(&'a str),
}

/// The owner a new repository would get, once the caller may create there.
pub async fn creatable_owner(db: &Db, caller: &Caller, ns: Namespace<'_>) -> Result<UserRecord> {
    match ns {
        Namespace::Mine => Ok(principal::signed_in(caller)?.user.clone()),
        Namespace::Org(name) => {
            let me = principal::signed_in(caller)?;
            let org = orgs::visible(db, caller, name).await?;
            if !me.is_site_admin() {
                let teams = teams::memberships(db, &org.name, &me.user.name).await?;
                if !teams
                    .iter()
                    .any(|m| m.permission == AccessMode::Owner || m.can_create_org_repo)
                {
                    return Err(Error::MayNotCreate);
                }
            }
            Ok(org)
        }
        Namespace::User(name) => {
            principal::site_admin(caller)?;
            users::get(db, name)
                .await?
                .ok_or_else(|| crate::accounts::Error::NoSuchUser(name.to_string()).into())
        }
    }
}

/// Applies an edit of a repository the caller administers; answers the
/// saved record and its counters.
pub async fn edit(db: &Db, ctx: &RepoContext, edit: RepoEdit) -> Result<(RepoRecord, RepoStats)> {
    let mut repo = ctx.repo.clone();
    edit.apply(&mut repo, time::now())?;
    store::save(db, &ctx.repo.name, &repo).await?;
    let stats = store::stats(db, repo.id).await?;
    Ok((repo, stats))
}

/// The collaborator a path names: an existing user (not an organisation).
async fn collaborator(db: &Db, name: &str) -> Result<UserRecord> {
    match users::get(db, name).await? {
        Some(u) if !u.is_org() => Ok(u),
        _ => Err(Error::NoSuchCollaborator(name.to_string())),
    }
}

/// Adds or changes a collaborator of a repository the caller administers:
/// never its owner, nor a user its owner blocked.
pub async fn add_collaborator(
    db: &Db,
    ctx: &RepoContext,
    name: &str,
    mode: AccessMode,
) -> Result<()> {
    let user = collaborator(db, name).await?;
    if user.id == ctx.owner.id {
        return Err(Error::OwnerAsCollaborator);
    }
    if blocks::is_blocked(db, &ctx.owner.name, &user.name).await? {
        return Err(Error::Blocked(user.name));
    }
    collaborators::put_collaborator(db, &ctx.repo, &user.name, mode).await
}

pub async fn remove_collaborator(db: &Db, ctx: &RepoContext, name: &str) -> Result<()> {
    let user = collaborator(db, name).await?;
    collaborators::delete_collaborator(db, &ctx.repo, &user.name).await
}

/// The team and organisation repository of `/teams/{id}/repos/{org}/{repo}`,
/// once the caller owns the organisation.
async fn team_and_repo(
    db: &Db,
    caller: &Caller,
    team_id: i64,
    org: &str,
    name: &str,
) -> Result<(TeamRecord, RepoRecord)> {
    // A team the caller may not see answers as a missing one, whatever
    // organisation the path names.
    let seen = teams::find(db, caller, team_id).await?;
    let team = seen.team;
    if !same(&team.org, org) {
        return Err(Error::ForeignTeam {
            team: team_id,
            org: org.to_string(),
        });
    }
    if !seen.owner {
        return Err(crate::accounts::Error::NotOrgOwner.into());
    }
    let repo = store::get(db, org, name)
        .await?
        .ok_or_else(|| Error::NotFound {
            owner: org.to_string(),
            name: name.to_string(),
        })?;
    Ok((team, repo))
}

/// Gives a team one of its organisation's repositories.
pub async fn grant_team(
    db: &Db,
    caller: &Caller,
    team_id: i64,
    org: &str,
    name: &str,
) -> Result<()> {
    let (team, repo) = team_and_repo(db, caller, team_id, org, name).await?;
    collaborators::put_team(db, &repo, &team).await
}

pub async fn revoke_team(
    db: &Db,
    caller: &Caller,
    team_id: i64,
    org: &str,
    name: &str,
) -> Result<()> {
    let (team, repo) = team_and_repo(db, caller, team_id, org, name).await?;
    collaborators::delete_team(db, &repo, &team).await
}
