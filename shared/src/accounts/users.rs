//! Users and organisations share one record type and one namespace (as in
//! Gitea): `OWNER#<lower-case name>`, with an e-mail guard item per address.

use serde::{Deserialize, Serialize};

use super::{
    Error, Result,
    names::{Email, OwnerName, Visibility, fold, same},
    password,
    principal::{Caller, Principal},
};
use crate::{
    db::{self, Db, DbError, Tx, keys},
    time,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OwnerKind {
    User,
    Org,
}

/// A stored user or organisation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UserRecord {
    pub id: i64,
    /// The name as written at creation (lookups are case-insensitive).
    pub name: String,
    pub kind: OwnerKind,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub full_name: String,
    /// Argon2id PHC string; never leaves this module's callers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_hash: Option<String>,
    #[serde(default)]
    pub visibility: Visibility,
    #[serde(default)]
    pub is_admin: bool,
    #[serde(default)]
    pub restricted: bool,
    #[serde(default)]
    pub prohibit_login: bool,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub website: String,
    #[serde(default)]
    pub location: String,
    /// Organisations: the id of their Owners team.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owners_team: Option<i64>,
    #[serde(default)]
    pub repo_admin_change_team_access: bool,
    pub created: i64,
}

impl UserRecord {
    /// The name's folded form (keys and no-reply addresses use it).
    pub fn lower_name(&self) -> String {
        fold(&self.name)
    }

    pub fn is_org(&self) -> bool {
        self.kind == OwnerKind::Org
    }

    /// Gitea's stand-in for a user who no longer exists.
    pub fn ghost() -> Self {
        Self {
            id: -1,
            name: "Ghost".into(),
            kind: OwnerKind::User,
            email: String::new(),
            full_name: String::new(),
            password_hash: None,
            visibility: Visibility::Public,
            is_admin: false,
            restricted: false,
            prohibit_login: false,
            description: String::new(),
            website: String::new(),
            location: String::new(),
            owners_team: None,
            repo_admin_change_team_access: false,
            created: 0,
        }
    }
}

/// A validated request to create a user.
pub struct NewUser {
    pub name: OwnerName,
    pub email: Email,
    pub full_name: String,
    pub password: Option<String>,
    pub visibility: Visibility,
    pub is_admin: bool,
    pub restricted: bool,
}

/// The shortest password a user may have.
pub const MIN_PASSWORD_LEN: usize = 8;

/// A password for a new user: none, or at least [`MIN_PASSWORD_LEN`]
/// characters.
pub fn parse_password(raw: Option<String>) -> Result<Option<String>> {
    let password = raw.filter(|p| !p.is_empty());
    if password
        .as_ref()
        .is_some_and(|p| p.chars().count() < MIN_PASSWORD_LEN)
    {
        return Err(Error::PasswordTooShort(MIN_PASSWORD_LEN));
    }
    Ok(password)
}

/// The caller, who must be signed in.
pub fn signed_in(caller: &Caller) -> Result<&Principal> {
    caller.principal().ok_or(Error::SignInRequired)
}

/// The caller, who must be a site admin.
pub fn site_admin(caller: &Caller) -> Result<&Principal> {
    let me = signed_in(caller)?;
    if me.is_site_admin() {
        Ok(me)
    } else {
        Err(Error::NotSiteAdmin)
    }
}

/// Adds the record under its key, written only if the name is free.
pub(super) fn put_new_owner(tx: &mut Tx, rec: &UserRecord) -> Result<()> {
    let mut item = db::to_item(rec)?;
    item.extend(keys::owner(&rec.name));
    tx.put_if_absent(item)?;
    Ok(())
}

/// Adds the e-mail guard item (unique addresses across users).
fn put_email_guard(tx: &mut Tx, email: &str, owner: &str) -> Result<()> {
    let mut item = keys::email(email);
    item.insert("owner".into(), db::s(fold(owner)));
    tx.put_if_absent(item)?;
    Ok(())
}

/// Maps a failed uniqueness guard to what was taken.
pub(super) fn taken(e: DbError, name: &str, email: &str) -> Error {
    match e.failed_condition() {
        Some(0) => Error::NameTaken(name.to_string()),
        Some(1) => Error::EmailTaken(email.to_string()),
        _ => e.into(),
    }
}

pub async fn create(db: &Db, new: NewUser) -> Result<UserRecord> {
    let password_hash = match &new.password {
        Some(p) => Some(password::hash(p).map_err(Error::Hashing)?),
        None => None,
    };
    let rec = UserRecord {
        id: db.next_id("owner").await?,
        name: new.name.to_string(),
        kind: OwnerKind::User,
        email: new.email.as_str().to_string(),
        full_name: new.full_name,
        password_hash,
        visibility: new.visibility,
        is_admin: new.is_admin,
        restricted: new.restricted,
        prohibit_login: false,
        description: String::new(),
        website: String::new(),
        location: String::new(),
        owners_team: None,
        repo_admin_change_team_access: false,
        created: time::now(),
    };
    let mut tx = db.tx();
    put_new_owner(&mut tx, &rec)?;
    put_email_guard(&mut tx, &rec.email, &rec.name)?;
    db.transact(tx)
        .await
        .map_err(|e| taken(e, &rec.name, &rec.email))?;
    Ok(rec)
}

/// A user or organisation by name (case-insensitive).
pub async fn get(db: &Db, name: &str) -> Result<Option<UserRecord>> {
    Ok(db.get_as(keys::owner(name)).await?)
}

/// Like [`get`], but answers from the caller's own record (already read by
/// authentication) when the name is theirs: one read less.
pub async fn get_for(db: &Db, name: &str, caller: &Caller) -> Result<Option<UserRecord>> {
    match caller.principal() {
        Some(p) if same(&p.user.name, name) => Ok(Some(p.user.clone())),
        _ => get(db, name).await,
    }
}

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
        return super::teams::is_member(db, &owner.name, &me.user.name).await;
    }
    Ok(false)
}

/// A user (not an organisation) that the caller may see.
pub async fn find_visible_user(db: &Db, name: &str, caller: &Caller) -> Result<UserRecord> {
    match get(db, name).await? {
        Some(u) if u.kind == OwnerKind::User && visible_to(db, &u, caller).await? => Ok(u),
        _ => Err(Error::NoSuchUser(name.to_string())),
    }
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
    use crate::accounts::principal::Via;

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
