//! Where teams live: each under its id (what `/teams/{id}` reads, with the
//! member count) and copied under its organisation (listing, unique
//! names); each membership twice, under the team and under the user.

use super::model::{AccessMode, Membership, NewTeam, TeamRecord};
use crate::{
    accounts::{Error, Result, names::fold, users::model::UserRecord},
    db::{self, Change, Cond, Db, Tx, keys},
};

/// Adds the writes for a new team: its org copy (first; fails when the name
/// is taken), its record by id, and its first member if any.
pub(in crate::accounts) fn add_new_team(
    tx: &mut Tx,
    team: &TeamRecord,
    first_member: Option<&str>,
) -> Result<()> {
    let mut team = team.clone();
    team.members = i64::from(first_member.is_some());
    let mut by_id = db::to_item(&team)?;
    by_id.extend(keys::team(team.id));
    let mut by_org = db::to_item(&team)?;
    by_org.extend(keys::org_team(&team.org, &team.name));
    tx.put_if_absent(by_org)?.put_if_absent(by_id)?;
    if let Some(user) = first_member {
        add_member_items(tx, &team, user)?;
    }
    Ok(())
}

/// Adds the two membership items (the first fails if already a member).
fn add_member_items(tx: &mut Tx, team: &TeamRecord, user: &str) -> Result<()> {
    let mut member = keys::team_member(team.id, user);
    member.insert("user".into(), db::s(fold(user)));
    let m = Membership {
        org: fold(&team.org),
        team_id: team.id,
        permission: team.permission,
        units: team.units.clone(),
        includes_all_repositories: team.includes_all_repositories,
        can_create_org_repo: team.can_create_org_repo,
    };
    let mut membership = db::to_item(&m)?;
    membership.extend(keys::membership(user, &team.org, team.id));
    tx.put_if_absent(member)?.put(membership)?;
    Ok(())
}

pub async fn create(db: &Db, org: &UserRecord, new: NewTeam) -> Result<TeamRecord> {
    let team = TeamRecord {
        id: db.next_id("team").await?,
        org: org.name.clone(),
        name: new.name,
        description: new.description,
        permission: new.permission,
        units: new.units,
        includes_all_repositories: new.includes_all_repositories,
        can_create_org_repo: new.can_create_org_repo,
        members: 0,
    };
    let mut tx = db.tx();
    add_new_team(&mut tx, &team, None)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::TeamNameTaken {
                org_id: org.id,
                name: team.name.clone(),
            },
            _ => e.into(),
        })?;
    Ok(team)
}

pub async fn get(db: &Db, id: i64) -> Result<Option<TeamRecord>> {
    Ok(db.get_as(keys::team(id)).await?)
}

/// An organisation's teams, by name.
pub async fn list(db: &Db, org: &str) -> Result<Vec<TeamRecord>> {
    let items = db.query_prefix(&keys::owner_pk(org), "TEAM#").await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

/// The teams of `org` that `user` belongs to (one query).
pub async fn memberships(db: &Db, org: &str, user: &str) -> Result<Vec<Membership>> {
    let items = db
        .query_prefix(&keys::owner_pk(user), &keys::membership_prefix(org))
        .await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

pub async fn is_member(db: &Db, org: &str, user: &str) -> Result<bool> {
    Ok(!memberships(db, org, user).await?.is_empty())
}

pub async fn is_owner(db: &Db, org: &str, user: &str) -> Result<bool> {
    Ok(memberships(db, org, user)
        .await?
        .iter()
        .any(|m| m.permission == AccessMode::Owner))
}

/// Adds `user` to `team`; adding a member twice changes nothing.
pub async fn add_member(db: &Db, team: &TeamRecord, user: &str) -> Result<()> {
    let mut tx = db.tx();
    add_member_items(&mut tx, team, user)?;
    tx.change(
        keys::team(team.id),
        Change::new().add("members", db::n(1)),
        None,
    )?;
    match db.transact(tx).await {
        Err(e) if e.failed_condition() == Some(0) => Ok(()),
        other => Ok(other?),
    }
}

/// Removes `user` from `team`. The Owners team keeps at least one member,
/// enforced by a condition so concurrent removals cannot empty it.
pub async fn remove_member(db: &Db, team: &TeamRecord, user: &str) -> Result<()> {
    let condition = team.is_owners().then(|| Cond::gt("members", db::n(1)));
    let mut tx = db.tx();
    tx.delete_existing(keys::team_member(team.id, user))?
        .delete(keys::membership(user, &team.org, team.id))?
        .change(
            keys::team(team.id),
            Change::new().add("members", db::n(-1)),
            condition,
        )?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::NotTeamMember {
                user: user.to_string(),
                team: team.name.clone(),
            },
            Some(2) => Error::LastOwner,
            _ => e.into(),
        })
}
