//! Users and organisations share one record type and one namespace (as in
//! Gitea): `OWNER#<lower-case name>`, with an e-mail guard item per address.
//!
//! [`model`]: records and pure rules; [`store`]: items and transactions;
//! this module: who may see whom.

pub mod model;
pub mod store;

pub use model::*;
pub use store::*;

use super::{Error, Result, names::Visibility, principal::Caller};
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
        return super::teams::store::is_member(db, &owner.name, &me.user.name).await;
    }
    Ok(false)
}

/// A user or organisation the caller may see (`GET /users/{name}`).
pub async fn find_visible(db: &Db, name: &str, caller: &Caller) -> Result<UserRecord> {
    match get_for(db, name, caller).await? {
        Some(u) if visible_to(db, &u, caller).await? => Ok(u),
        _ => Err(Error::NoSuchUser(name.to_string())),
    }
}

/// A user (not an organisation) by name, whether or not the caller may
/// see them: the target of tokens, blocks and team members.
pub async fn find_user(db: &Db, name: &str, caller: &Caller) -> Result<UserRecord> {
    match get_for(db, name, caller).await? {
        Some(u) if !u.is_org() => Ok(u),
        _ => Err(Error::NoSuchUser(name.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::principal::{Principal, Via};

    #[test]
    fn passwords_are_optional_but_not_short() {
        assert_eq!(parse_password(None).unwrap(), None);
        assert_eq!(parse_password(Some(String::new())).unwrap(), None);
        assert_eq!(
            parse_password(Some("12345678".into())).unwrap().as_deref(),
            Some("12345678")
        );
        assert!(matches!(
            parse_password(Some("1234567".into())),
            Err(Error::PasswordTooShort(8))
        ));
    }

    #[test]
    fn who_is_signed_in_and_who_is_admin() {
        let user = |is_admin| {
            Caller::User(Box::new(Principal {
                user: UserRecord {
                    is_admin,
                    ..UserRecord::ghost()
                },
                via: Via::Password,
            }))
        };
        assert!(matches!(
            signed_in(&Caller::Anonymous),
            Err(Error::SignInRequired)
        ));
        assert!(matches!(
            site_admin(&Caller::Anonymous),
            Err(Error::SignInRequired)
        ));
        assert!(matches!(site_admin(&user(false)), Err(Error::NotSiteAdmin)));
        assert!(site_admin(&user(true)).is_ok());
        assert_eq!(
            UserRecord {
                name: "MiXed".into(),
                ..UserRecord::ghost()
            }
            .lower_name(),
            "mixed"
        );
    }
}
