//! Organisation teams and their members. A team is stored under its id
//! (what `/teams/{id}` reads, with the member count) and copied under its
//! organisation (listing, unique names). Each membership is stored twice,
//! under the team and under the user, so "the teams of org X that user U is
//! in" is one query on U's partition, which permission checks rely on.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    Error, Result,
    names::fold,
    orgs,
    principal::Caller,
    users::{self, UserRecord},
};
use crate::db::{self, Db, Tx, keys};

/// Repository units a team can be given access to.
pub const UNITS: [&str; 10] = [
    "repo.code",
    "repo.issues",
    "repo.ext_issues",
    "repo.wiki",
    "repo.ext_wiki",
    "repo.pulls",
    "repo.releases",
    "repo.projects",
    "repo.packages",
    "repo.actions",
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessMode {
    #[default]
    None,
    Read,
    Write,
    Admin,
    Owner,
}

impl AccessMode {
    /// A permission a client may ask for (`owner` is the Owners team's only).
    pub fn parse(field: &str, raw: Option<&str>) -> Result<Self> {
        match raw.unwrap_or("read") {
            "read" => Ok(AccessMode::Read),
            "write" => Ok(AccessMode::Write),
            "admin" => Ok(AccessMode::Admin),
            other => Err(Error::invalid(
                field,
                format!("must be read, write or admin (got {other:?})"),
            )),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TeamRecord {
    pub id: i64,
    /// The organisation's name.
    pub org: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub permission: AccessMode,
    /// Unit name → access to it.
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    pub can_create_org_repo: bool,
    /// Number of members (kept by the member transactions).
    #[serde(default)]
    pub members: i64,
}

impl TeamRecord {
    pub fn is_owners(&self) -> bool {
        self.permission == AccessMode::Owner
    }
}

/// One team a user belongs to, stored under the user.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Membership {
    pub org: String,
    pub team_id: i64,
    pub permission: AccessMode,
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    #[serde(default)]
    pub can_create_org_repo: bool,
}

/// A validated team request.
pub struct NewTeam {
    pub name: String,
    pub description: String,
    pub permission: AccessMode,
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    pub can_create_org_repo: bool,
}

/// Team names: letters, digits, `-`, `_`, `.`; 1 to 255 characters.
pub fn parse_name(raw: &str) -> Result<String> {
    let ok = !raw.is_empty()
        && raw.chars().count() <= 255
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(Error::invalid(
            "name",
            format!("must be 1 to 255 letters, digits, '-', '_' or '.' (got {raw:?})"),
        ))
    }
}

/// Units from Gitea's `units` list (all at the team's permission) or its
/// `units_map`; neither given means every unit at the team's permission.
pub fn parse_units(
    permission: AccessMode,
    units: Option<Vec<String>>,
    units_map: Option<BTreeMap<String, String>>,
) -> Result<BTreeMap<String, AccessMode>> {
    let known = |u: &str| -> Result<String> {
        if UNITS.contains(&u) {
            Ok(u.to_string())
        } else {
            Err(Error::invalid(
                "units",
                format!("unknown unit {u:?}; known units: {}", UNITS.join(", ")),
            ))
        }
    };
    match (
        units_map.filter(|m| !m.is_empty()),
        units.filter(|u| !u.is_empty()),
    ) {
        (Some(map), _) => map
            .into_iter()
            .map(|(u, mode)| {
                let mode = match mode.as_str() {
                    "none" => AccessMode::None,
                    "read" => AccessMode::Read,
                    "write" => AccessMode::Write,
                    "admin" => AccessMode::Admin,
                    other => {
                        return Err(Error::invalid(
                            "units_map",
                            format!("unknown access mode {other:?} for {u}"),
                        ));
                    }
                };
                Ok((known(&u)?, mode))
            })
            .collect(),
        (None, Some(list)) => list.iter().map(|u| Ok((known(u)?, permission))).collect(),
        (None, None) => Ok(UNITS.iter().map(|u| (u.to_string(), permission)).collect()),
    }
}

/// The Owners team every organisation is created with.
pub(super) fn owners(id: i64, org: &str) -> TeamRecord {
    TeamRecord {
        id,
        org: org.to_string(),
        name: "Owners".into(),
        description: String::new(),
        permission: AccessMode::Owner,
        units: UNITS
            .iter()
            .map(|u| (u.to_string(), AccessMode::Owner))
            .collect(),
        includes_all_repositories: true,
        can_create_org_repo: true,
        members: 0,
    }
}

/// Adds the writes for a new team: its org copy (first; fails when the name
/// is taken), its record by id, and its first member if any.
pub(super) fn add_new_team(
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
    tx.update(
        keys::team(team.id),
        "ADD members :one",
        &[(":one", db::n(1))],
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
    let condition = team.is_owners().then_some("members > :one");
    let mut values = vec![(":minus", db::n(-1))];
    if condition.is_some() {
        values.push((":one", db::n(1)));
    }
    let mut tx = db.tx();
    tx.delete_existing(keys::team_member(team.id, user))?
        .delete(keys::membership(user, &team.org, team.id))?
        .update(
            keys::team(team.id),
            "ADD members :minus",
            &values,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names() {
        for ok in ["devs", "Team.1", "a-b_c", &"x".repeat(255)] {
            assert_eq!(parse_name(ok).unwrap(), ok);
        }
        for bad in ["", "two words", "ü", &"x".repeat(256)] {
            assert!(parse_name(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn permissions_a_client_may_ask_for() {
        assert_eq!(AccessMode::parse("p", None).unwrap(), AccessMode::Read);
        assert_eq!(
            AccessMode::parse("p", Some("admin")).unwrap(),
            AccessMode::Admin
        );
        for bad in ["owner", "none", "Write", ""] {
            assert!(
                AccessMode::parse("p", Some(bad)).is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn units_from_a_list_a_map_or_neither() {
        use AccessMode::{Admin, Read, Write};
        let all = parse_units(Write, None, None).unwrap();
        assert_eq!(all.len(), UNITS.len());
        assert!(all.values().all(|m| *m == Write));
        let listed = parse_units(Read, Some(vec!["repo.issues".into()]), None).unwrap();
        assert_eq!(listed, BTreeMap::from([("repo.issues".to_string(), Read)]));
        let map = BTreeMap::from([
            ("repo.pulls".to_string(), "admin".to_string()),
            ("repo.code".to_string(), "none".to_string()),
        ]);
        // The map wins over the list.
        let mapped = parse_units(Read, Some(vec!["repo.issues".into()]), Some(map)).unwrap();
        assert_eq!(
            mapped,
            BTreeMap::from([
                ("repo.code".to_string(), AccessMode::None),
                ("repo.pulls".to_string(), Admin),
            ])
        );
        // Empty ones count as not given.
        assert_eq!(
            parse_units(Read, Some(vec![]), Some(BTreeMap::new()))
                .unwrap()
                .len(),
            UNITS.len()
        );
        for (units, map) in [
            (Some(vec!["repo.nope".to_string()]), None),
            (
                None,
                Some(BTreeMap::from([(
                    "repo.code".to_string(),
                    "owner".to_string(),
                )])),
            ),
            (
                None,
                Some(BTreeMap::from([(
                    "repo.nope".to_string(),
                    "read".to_string(),
                )])),
            ),
        ] {
            assert!(
                parse_units(Read, units.clone(), map.clone()).is_err(),
                "{units:?} {map:?}"
            );
        }
    }

    #[test]
    fn the_owners_team_has_everything() {
        let t = owners(7, "Acme");
        assert!(t.is_owners() && t.includes_all_repositories && t.can_create_org_repo);
        assert_eq!(t.units.len(), UNITS.len());
        assert!(t.units.values().all(|m| *m == AccessMode::Owner));
    }
}
