//! Organisation teams and their members. A team is stored under its id
//! (what `/teams/{id}` reads, with the member count) and copied under its
//! organisation (listing, unique names). Each membership is stored twice,
//! under the team and under the user, so "the teams of org X that user U is
//! in" is one query on U's partition, which permission checks rely on.
//!
//! [`model`]: records and request rules; [`store`]: items and
//! transactions; this module: what a caller may do with teams.

pub mod model;
pub mod store;

pub use model::*;
pub use store::*;

use super::{
    Error, Result, orgs,
    principal::Caller,
    users::{self, UserRecord},
};
use crate::db::Db;

/// The team with this id and its organisation, if the caller may see both.
pub async fn find(db: &Db, caller: &Caller, id: i64) -> Result<(TeamRecord, UserRecord)> {
    let team = get(db, id).await?.ok_or(Error::NoSuchTeam(id))?;
    let org = orgs::visible(db, caller, &team.org).await?;
    Ok((team, org))
}

/// A team as its organisation's members see it (`GET /teams/{id}`).
pub async fn view(db: &Db, caller: &Caller, id: i64) -> Result<(TeamRecord, UserRecord)> {
    let (team, org) = find(db, caller, id).await?;
    orgs::require_member(db, caller, &org).await?;
    Ok((team, org))
}

/// An organisation's teams, for its members.
pub async fn list_visible(
    db: &Db,
    caller: &Caller,
    org: &str,
) -> Result<(UserRecord, Vec<TeamRecord>)> {
    let org = orgs::visible(db, caller, org).await?;
    orgs::require_member(db, caller, &org).await?;
    let teams = list(db, &org.name).await?;
    Ok((org, teams))
}

/// A team of an organisation the caller owns, and a user to add to or
/// remove from it.
async fn owned_team_and_user(
    db: &Db,
    caller: &Caller,
    id: i64,
    user: &str,
) -> Result<(TeamRecord, UserRecord)> {
    let (team, org) = find(db, caller, id).await?;
    orgs::require_owner(db, caller, &org).await?;
    let user = users::find_user(db, user, caller).await?;
    Ok((team, user))
}

/// `PUT /teams/{id}/members/{user}`: organisation owners only.
pub async fn join(db: &Db, caller: &Caller, id: i64, user: &str) -> Result<()> {
    let (team, user) = owned_team_and_user(db, caller, id, user).await?;
    add_member(db, &team, &user.name).await
}

/// `DELETE /teams/{id}/members/{user}`: organisation owners only.
pub async fn leave(db: &Db, caller: &Caller, id: i64, user: &str) -> Result<()> {
    let (team, user) = owned_team_and_user(db, caller, id, user).await?;
    remove_member(db, &team, &user.name).await
}
