//! Who may act on an organisation, shared by the org, team and block
//! handlers.

use shared::{
    Error, Result,
    accounts::{
        orgs, teams,
        users::{self, UserRecord},
    },
    http::Ctx,
};

/// The organisation named in the path, if the caller may see it (else 404).
pub async fn visible_org(cx: &Ctx, name: &str) -> Result<UserRecord> {
    match orgs::get(&cx.db, name).await? {
        Some(org) if users::visible_to(&cx.db, &org, &cx.caller).await? => Ok(org),
        _ => Err(Error::NotFound(format!(
            "organization does not exist [name: {name}]"
        ))),
    }
}

/// The caller must own the organisation (or be a site admin).
pub async fn require_owner(cx: &Ctx, org: &UserRecord) -> Result<()> {
    let me = cx.signed_in()?;
    if me.is_site_admin() || teams::is_owner(&cx.db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::Forbidden("Must be an organization owner".into()))
    }
}

/// The caller must belong to the organisation (or be a site admin).
pub async fn require_member(cx: &Ctx, org: &UserRecord) -> Result<()> {
    let me = cx.signed_in()?;
    if me.is_site_admin() || teams::is_member(&cx.db, &org.name, &me.user.name).await? {
        Ok(())
    } else {
        Err(Error::Forbidden("Must be an organization member".into()))
    }
}

/// A user (not an organisation) named in the path, else 404.
pub async fn existing_user(cx: &Ctx, name: &str) -> Result<UserRecord> {
    match users::get_for(&cx.db, name, &cx.caller).await? {
        Some(u) if !u.is_org() => Ok(u),
        _ => Err(Error::NotFound(format!(
            "user does not exist [name: {name}]"
        ))),
    }
}
