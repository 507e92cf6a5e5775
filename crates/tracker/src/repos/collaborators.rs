//! Access grants: collaborators (a user with read, write or admin on every
//! unit) and teams given a repository. Each grant is two items, written
//! and removed together: the repository side (read by permission checks)
//! and the user or team side (what they were given).

use super::{Error, RepoRecord, Result, access::Grant};
use crate::{
    accounts::{
        names::fold,
        teams::{self, AccessMode, TeamRecord},
        users::UserRecord,
    },
    db::{self, Db, keys},
};

/// Adds or changes a collaborator.
pub async fn put_collaborator(
    db: &Db,
    repo: &RepoRecord,
    user: &str,
    mode: AccessMode,
) -> Result<()> {
    let user = fold(user);
    let grant = Grant {
        user: Some(user.clone()),
        team_id: None,
        mode: Some(mode),
    };
    let mut repo_side = db::to_item(&grant)?;
    repo_side.extend(keys::collaborator(repo.id, &user));
    let mut user_side = keys::collaboration(&user, repo.id);
    user_side.insert("repo_id".into(), db::n(repo.id));
    user_side.insert(
        "mode".into(),
        db::s(
            serde_json::to_value(mode)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        ),
    );
    let mut tx = db.tx();
    tx.require(keys::repo_name(&repo.owner, &repo.name))?
        .put(repo_side)?
        .put(user_side)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Gone,
            _ => e.into(),
        })
}

/// Removes a collaborator; 404 when they were not one... Gitea answers
/// 204 either way, and so do we.
pub async fn delete_collaborator(db: &Db, repo: &RepoRecord, user: &str) -> Result<()> {
    let mut tx = db.tx();
    tx.delete(keys::collaborator(repo.id, user))?
        .delete(keys::collaboration(user, repo.id))?;
    Ok(db.transact(tx).await?)
}

/// Gives a team a repository of its organisation.
pub async fn put_team(db: &Db, repo: &RepoRecord, team: &TeamRecord) -> Result<()> {
    let grant = Grant {
        user: None,
        team_id: Some(team.id),
        mode: None,
    };
    let mut repo_side = db::to_item(&grant)?;
    repo_side.extend(keys::repo_team(repo.id, team.id));
    let mut team_side = keys::team_repo(team.id, repo.id);
    team_side.insert("repo_id".into(), db::n(repo.id));
    let mut tx = db.tx();
    tx.require(keys::repo_name(&repo.owner, &repo.name))?
        .put(repo_side)?
        .put(team_side)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Gone,
            _ => e.into(),
        })
}

pub async fn delete_team(db: &Db, repo: &RepoRecord, team: &TeamRecord) -> Result<()> {
    let mut tx = db.tx();
    tx.delete(keys::repo_team(repo.id, team.id))?
        .delete(keys::team_repo(team.id, repo.id))?;
    Ok(db.transact(tx).await?)
}

/// Most users [`assignable`] weighs (each costs a query of their teams).
pub const MAX_ASSIGNABLE: usize = 100;

/// Who may be assigned issues and pull requests of the repository
/// (Gitea's `GET /repos/{owner}/{repo}/assignees`): its owner when a
/// user, its collaborators, and the members of its organisation's teams
/// that include it; each kept when they may write issues or pull requests
/// there (the same rules as every permission check), by name. Reads the
/// grants, the organisation's teams and their members, then the
/// candidates' permissions in one wave; past [`MAX_ASSIGNABLE`]
/// candidates, 422.
pub async fn assignable(db: &Db, ctx: &super::access::RepoContext) -> Result<Vec<UserRecord>> {
    let grants: Vec<Grant> = db
        .query_prefix(&keys::repo_pk(ctx.repo.id), keys::ACCESS_PREFIX)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    let mut logins: Vec<String> = grants.iter().filter_map(|g| g.user.clone()).collect();
    if ctx.owner.is_org() {
        let granted: Vec<i64> = grants.iter().filter_map(|g| g.team_id).collect();
        let teams = teams::list(db, &ctx.owner.name).await?;
        let reaching = teams
            .iter()
            .filter(|t| t.includes_all_repositories || granted.contains(&t.id));
        let pks: Vec<String> = reaching.map(|t| keys::team_pk(t.id)).collect();
        let members = pks.iter().map(|pk| db.query_prefix(pk, "MEMBER#"));
        for items in futures::future::try_join_all(members).await? {
            logins.extend(items.iter().map(|i| db::text(i, "user").to_string()));
        }
    } else {
        logins.push(fold(&ctx.owner.name));
    }
    let mut logins: Vec<String> = logins.iter().map(|l| fold(l)).collect();
    logins.sort();
    logins.dedup();
    if logins.len() > MAX_ASSIGNABLE {
        return Err(Error::ListTooBroad(format!(
            "more than {MAX_ASSIGNABLE} users reach this repository"
        )));
    }
    let others = super::access::others(db, ctx, &logins, None).await?;
    let mut out: Vec<UserRecord> = others
        .into_iter()
        .filter(|o| o.perm.can_write_issues_or_pulls())
        .filter_map(|o| o.user)
        .filter(|u| !u.prohibit_login)
        .collect();
    out.sort_by_key(UserRecord::lower_name);
    Ok(out)
}
