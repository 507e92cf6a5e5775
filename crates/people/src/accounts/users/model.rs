//! Users and organisations as records, and the pure rules about them:
//! passwords, who is signed in, who is a site admin.

use serde::{Deserialize, Serialize};

use crate::accounts::{
    Error, Result,
    names::{Email, OwnerName, Visibility, fold},
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

/// Users by folded login, as a page renders them: a login that no longer
/// exists shows as Gitea's Ghost.
#[derive(Clone, Debug)]
pub struct Users {
    by_login: std::collections::HashMap<String, UserRecord>,
    ghost: UserRecord,
}

impl Default for Users {
    fn default() -> Self {
        Self {
            by_login: Default::default(),
            ghost: UserRecord::ghost(),
        }
    }
}

impl Users {
    pub fn insert(&mut self, user: UserRecord) {
        self.by_login.insert(crate::name::fold(&user.name), user);
    }

    /// The user of folded login `login`, or the Ghost.
    pub fn get(&self, login: &str) -> &UserRecord {
        self.by_login.get(login).unwrap_or(&self.ghost)
    }
}

impl FromIterator<UserRecord> for Users {
    fn from_iter<I: IntoIterator<Item = UserRecord>>(users: I) -> Self {
        let mut out = Users::default();
        for u in users {
            out.insert(u);
        }
        out
    }
}
