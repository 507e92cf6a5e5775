//! Access grants: collaborators (a user with read, write or admin on every
//! unit) and teams given a repository. Each grant is two items, written
//! and removed together: the repository side (read by permission checks)
//! and the user or team side (what they were given).

use super::{Error, RepoRecord, Result, access::Grant};
use crate::{
    accounts::{
        names::fold,
        teams::{AccessMode, TeamRecord},
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
