//! Organisations: an owner record of kind `org`, created together with its
//! Owners team and the creator as that team's first member.

use super::{
    names::{Email, OwnerName, Visibility},
    teams,
    users::{self, OwnerKind, UserRecord},
};
use crate::{Error, Result, db::Db, time};

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
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Unprocessable(format!("user already exists [name: {}]", org.name)),
            _ => e.into(),
        })?;
    Ok(org)
}

/// An organisation by name, or `None` (also when the name is a user).
pub async fn get(db: &Db, name: &str) -> Result<Option<UserRecord>> {
    Ok(users::get(db, name).await?.filter(UserRecord::is_org))
}

/// The organisation named `name`, if the caller may see it (else 404).
pub async fn visible_org(cx: &crate::http::Ctx, name: &str) -> Result<UserRecord> {
    match get(&cx.db, name).await? {
        Some(org) if users::visible_to(&cx.db, &org, &cx.caller).await? => Ok(org),
        _ => Err(Error::NotFound(format!(
            "organization does not exist [name: {name}]"
        ))),
    }
}

/// The caller must own the organisation (or be a site admin).
pub async fn require_owner(cx: &crate::http::Ctx, org: &UserRecord) -> Result<()> {
    let me = cx.signed_in()?;
    if me.is_site_admin() || teams::is_owner(&cx.db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::Forbidden("Must be an organization owner".into()))
    }
}

/// The caller must belong to the organisation (or be a site admin).
pub async fn require_member(cx: &crate::http::Ctx, org: &UserRecord) -> Result<()> {
    let me = cx.signed_in()?;
    if me.is_site_admin() || teams::is_member(&cx.db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::Forbidden("Must be an organization member".into()))
    }
}
