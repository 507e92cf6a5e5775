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
    Error, Result,
    principal::{self, Caller},
    users::UserRecord,
};
use crate::db::Db;

/// A team the caller may see, and whether they may change it.
pub struct Seen {
    pub team: TeamRecord,
    /// A site admin, or in the organisation's owners team.
    pub owner: bool,
}

/// No organisation has this name (names are never empty): a missing
/// team's membership read looks there.
const NO_ORG: &str = "";

/// The team with this id, if the caller may see it: site admins, and the
/// members of its organisation. To anyone else it does not exist: they get
/// what a missing id gets (`team does not exist [id: N]`, naming nothing
/// they did not send), after the same reads (the team, then the caller's
/// memberships in its organisation, or in none), so neither the answer
/// nor the work behind it tells a hidden team from a missing one.
pub async fn find(db: &Db, caller: &Caller, id: i64) -> Result<Seen> {
    let me = principal::signed_in(caller)?;
    let team = get(db, id).await?;
    if me.is_site_admin() {
        return team
            .map(|team| Seen { team, owner: true })
            .ok_or(Error::NoSuchTeam(id));
    }
    let org = team.as_ref().map_or(NO_ORG, |t| t.org.as_str());
    let mine = memberships(db, org, &me.user.name).await?;
    match team {
        Some(team) if !mine.is_empty() => Ok(Seen {
            owner: mine.iter().any(|m| m.permission == AccessMode::Owner),
            team,
        }),
        _ => Err(Error::NoSuchTeam(id)),
    }
}

/// A team of an organisation the caller owns, and a user to add to or
/// remove from it.
async fn owned_team_and_user(
    db: &Db,
    caller: &Caller,
    id: i64,
    user: &str,
) -> Result<(TeamRecord, UserRecord)> {
    let seen = find(db, caller, id).await?;
    if !seen.owner {
        return Err(Error::NotOrgOwner);
    }
    let user = principal::find_user(db, user, caller).await?;
    Ok((seen.team, user))
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

/// `GET /teams/{id}/members`: the members of a team the caller may see,
/// by name, the first `upto` of them (a page reads the members before it,
/// at most the page's end), and how many it has.
pub async fn members(
    db: &Db,
    caller: &Caller,
    id: i64,
    upto: usize,
) -> Result<(Vec<UserRecord>, i64)> {
    let seen = find(db, caller, id).await?;
    let query = crate::db::Query::table(crate::db::keys::team_pk(id)).prefix("MEMBER#");
    let mut names: Vec<String> = Vec::new();
    let mut cursor = None;
    while names.len() < upto {
        let left = i32::try_from(upto - names.len()).unwrap_or(i32::MAX);
        let page = db
            .query_page(query.clone().limit(left).after(cursor.take()))
            .await?;
        names.extend(
            page.items
                .iter()
                .map(|i| crate::db::text(i, "user").to_string()),
        );
        match page.next {
            Some(k) => cursor = Some(k),
            None => break,
        }
    }
    let users = super::users::users_of(db, names.iter().map(String::as_str)).await?;
    let found = names
        .iter()
        .map(|n| users.get(n).clone())
        .filter(|u| u.id > 0)
        .collect();
    Ok((found, seen.team.members))
}
