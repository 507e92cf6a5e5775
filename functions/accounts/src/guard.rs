//! Who may act on an organisation (from `shared`), and the user a path
//! names, for the org, team and block handlers.

use shared::{
    Error, Result,
    accounts::users::{self, UserRecord},
    http::Ctx,
};

pub use shared::accounts::orgs::{require_member, require_owner, visible_org};

/// A user (not an organisation) named in the path, else 404.
pub async fn existing_user(cx: &Ctx, name: &str) -> Result<UserRecord> {
    match users::get_for(&cx.db, name, &cx.caller).await? {
        Some(u) if !u.is_org() => Ok(u),
        _ => Err(Error::NotFound(format!(
            "user does not exist [name: {name}]"
        ))),
    }
}
