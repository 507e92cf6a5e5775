//! Owners as a caller finds them: who may see whom (public to everyone,
//! limited to signed-in callers, private to the owner, members and site
//! admins).

use super::{
    Error, Result,
    names::Visibility,
    principal::{self, Caller},
    teams::store::is_member,
    users::UserRecord,
};
use crate::db::Db;

/// Whether `caller` may see `owner` at all: public to everyone, limited to
/// signed-in callers, private to the owner, members and site admins. The
/// membership check is only made when it decides the answer.
pub async fn visible_to(db: &Db, owner: &UserRecord, caller: &Caller) -> Result<bool> {
    let Some(me) = caller.principal() else {
        return Ok(owner.visibility == Visibility::Public);
    };
    if owner.visibility != Visibility::Private || me.is_site_admin() || me.user.id == owner.id {
        return Ok(true);
    }
    if owner.is_org() {
        return is_member(db, &owner.name, &me.user.name).await;
    }
    Ok(false)
}

/// A user or organisation the caller may see (`GET /users/{name}`).
pub async fn find_visible(db: &Db, name: &str, caller: &Caller) -> Result<UserRecord> {
    match principal::get_for(db, name, caller).await? {
        Some(u) if visible_to(db, &u, caller).await? => Ok(u),
        _ => Err(Error::NoSuchUser(name.to_string())),
    }
}
