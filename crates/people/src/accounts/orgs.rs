//! Organisations: an owner record of kind `org`, created together with its
//! Owners team and the creator as that team's first member.

use super::{
    Error, Result, lookup,
    names::{Email, OwnerName, Visibility},
    principal::{self, Caller},
    teams::{self, TeamRecord},
    users::{self, OwnerKind, UserRecord},
};
use crate::{db::Db, time};

/// A validated organisation request.
pub struct NewOrg {
    pub name: OwnerName,
    pub full_name: String,
    pub email: Option<Email>,
    pub description: String,
    pub website: String,
    pub location: String,
    pub visibility: Visibility,
    pub repo_admin_change_team_access: bool,
}

/// Creates the organisation, its Owners team and the creator's membership
/// in one transaction: the name is taken atomically or not at all.
pub async fn create(db: &Db, creator: &UserRecord, new: NewOrg) -> Result<UserRecord> {
    let (id, team_id) = tokio::try_join!(db.next_id("owner"), db.next_id("team"))?;
    let org = UserRecord {
        id,
        name: new.name.to_string(),
        kind: OwnerKind::Org,
        email: new
            .email
            .map(|e| e.as_str().to_string())
            .unwrap_or_default(),
        full_name: new.full_name,
        password_hash: None,
        visibility: new.visibility,
        is_admin: false,
        restricted: false,
        prohibit_login: false,
        description: new.description,
        website: new.website,
        location: new.location,
        owners_team: Some(team_id),
        repo_admin_change_team_access: new.repo_admin_change_team_access,
        created: time::now(),
    };
    let mut tx = db.tx();
    users::put_new_owner(&mut tx, &org)?;
    teams::add_new_team(
        &mut tx,
        &teams::owners(team_id, &org.name),
        Some(&creator.name),
    )?;
    users::put_owner_id(&mut tx, &org)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::NameTaken(org.name.clone()),
            _ => e.into(),
        })?;
    Ok(org)
}

/// An organisation by name, or `None` (also when the name is a user).
pub async fn get(db: &Db, name: &str) -> Result<Option<UserRecord>> {
    Ok(users::get(db, name).await?.filter(UserRecord::is_org))
}

/// The organisation named `name`, if the caller may see it.
pub async fn visible(db: &Db, caller: &Caller, name: &str) -> Result<UserRecord> {
    match get(db, name).await? {
        Some(org) if lookup::visible_to(db, &org, caller).await? => Ok(org),
        _ => Err(Error::NoSuchOrg(name.to_string())),
    }
}

/// The caller must own the organisation (or be a site admin).
pub async fn require_owner(db: &Db, caller: &Caller, org: &UserRecord) -> Result<()> {
    let me = principal::signed_in(caller)?;
    if me.is_site_admin() || teams::is_owner(db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::NotOrgOwner)
    }
}

/// The caller must belong to the organisation (or be a site admin).
pub async fn require_member(db: &Db, caller: &Caller, org: &UserRecord) -> Result<()> {
    let me = principal::signed_in(caller)?;
    if me.is_site_admin() || teams::is_member(db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::NotOrgMember)
    }
}

/// A visible organisation that the caller owns.
pub async fn owned(db: &Db, caller: &Caller, name: &str) -> Result<UserRecord> {
    let org = visible(db, caller, name).await?;
    require_owner(db, caller, &org).await?;
    Ok(org)
}

/// Who may create organisations: signed-in users who are not restricted.
pub fn may_create(caller: &Caller) -> Result<&UserRecord> {
    let me = principal::signed_in(caller)?;
    if me.user.restricted {
        return Err(Error::Restricted);
    }
    Ok(&me.user)
}

/// A team as its organisation's members see it (`GET /teams/{id}`), with
/// its organisation.
pub async fn team_view(db: &Db, caller: &Caller, id: i64) -> Result<(TeamRecord, UserRecord)> {
    let seen = teams::find(db, caller, id).await?;
    let org = get(db, &seen.team.org)
        .await?
        .ok_or(Error::NoSuchTeam(id))?;
    Ok((seen.team, org))
}

/// An organisation's teams, for its members.
pub async fn visible_teams(
    db: &Db,
    caller: &Caller,
    org: &str,
) -> Result<(UserRecord, Vec<TeamRecord>)> {
    let org = visible(db, caller, org).await?;
    require_member(db, caller, &org).await?;
    let teams = teams::list(db, &org.name).await?;
    Ok((org, teams))
}

/// The organisations `user` belongs to (lower-case names, in name order):
/// one query of their memberships, whose sort keys lead with the
/// organisation's name. Grows with the user's memberships, not with the
/// installation.
async fn member_of(db: &Db, user: &str) -> Result<Vec<String>> {
    let items = db
        .query_prefix(&crate::db::keys::owner_pk(user), "MEMBER#")
        .await?;
    let mut orgs: Vec<String> = items
        .iter()
        .filter_map(|i| i.get("org").and_then(|v| v.as_s().ok()).cloned())
        .collect();
    orgs.dedup();
    Ok(orgs)
}

/// The organisations `user` belongs to that the caller may see, by name
/// (Gitea's `GET /users/{username}/orgs` and `/user/orgs`): public ones to
/// everyone, limited ones to signed-in callers, private ones to their
/// members and site admins; `public-only` tokens see public ones only.
/// Memberships carry no visibility of their own here: every membership
/// shows as public (Gitea's `DEFAULT_ORG_MEMBER_VISIBLE = true`).
pub async fn of_member(db: &Db, caller: &Caller, user: &UserRecord) -> Result<Vec<UserRecord>> {
    let me = caller.principal();
    let admin = me.is_some_and(principal::Principal::is_site_admin);
    let self_view = me.is_some_and(|p| p.user.id == user.id);
    let (theirs, mine) = tokio::try_join!(member_of(db, &user.name), async {
        match me {
            Some(p) if !admin && !self_view => member_of(db, &p.user.name).await,
            _ => Ok(Vec::new()),
        }
    })?;
    let keys: Vec<_> = theirs.iter().map(|o| crate::db::keys::owner(o)).collect();
    let mut found: Vec<UserRecord> = Vec::new();
    for chunk in keys.chunks(100) {
        for item in db.batch_get(chunk.to_vec()).await? {
            found.push(crate::db::from_item(item)?);
        }
    }
    found.retain(|org| match org.visibility {
        _ if !org.is_org() => false,
        Visibility::Public => true,
        _ if caller.public_only() => false,
        Visibility::Limited => me.is_some(),
        Visibility::Private => admin || self_view || mine.contains(&org.lower_name()),
    });
    found.sort_by_key(UserRecord::lower_name);
    Ok(found)
}
