//! Who is calling: a signed-in user and the credential they used, or
//! nobody. Authentication (`crate::auth`) builds these; the rules of every
//! area read them.

use super::{
    Error, Result,
    names::same,
    scope::Scopes,
    users::{get, model::UserRecord},
};
use crate::db::Db;

/// How the caller proved who they are.
#[derive(Clone, Debug)]
pub enum Via {
    /// A personal access token; its scopes limit what it may do.
    Token {
        id: i64,
        scopes: Scopes,
        team: String,
    },
    /// User name and password (Basic): not limited by scopes, as in Gitea.
    Password,
}

/// A signed-in caller.
#[derive(Clone, Debug)]
pub struct Principal {
    pub user: UserRecord,
    pub via: Via,
}

impl Principal {
    pub fn is_site_admin(&self) -> bool {
        self.user.is_admin
    }

    /// Scopes of the token, or `None` for a password login (unrestricted).
    pub fn scopes(&self) -> Option<&Scopes> {
        match &self.via {
            Via::Token { scopes, .. } => Some(scopes),
            Via::Password => None,
        }
    }
}

/// A runner on a deploy server, signed in with that server's credential
/// (`deploy::runners`); it acts for that server alone, on the runner
/// routes alone.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Runner {
    pub runner_uuid: String,
    pub server_uuid: String,
    /// The deploy team (folded name) whose partition holds the server.
    pub team: String,
    pub name: String,
    pub created_at: String,
    #[serde(default)]
    pub last_seen_at: Option<String>,
    /// The SHA-256 of its secret (its credential's key).
    #[serde(default)]
    pub token_hash: String,
}

#[derive(Clone, Debug, Default)]
pub enum Caller {
    #[default]
    Anonymous,
    User(Box<Principal>),
    Runner(Box<Runner>),
}

impl Caller {
    pub fn principal(&self) -> Option<&Principal> {
        match self {
            Caller::User(p) => Some(p),
            Caller::Anonymous | Caller::Runner(_) => None,
        }
    }

    pub fn runner(&self) -> Option<&Runner> {
        match self {
            Caller::Runner(r) => Some(r),
            Caller::Anonymous | Caller::User(_) => None,
        }
    }
}

impl Caller {
    /// Whether the caller's token is limited to public things
    /// (`public-only`).
    pub fn public_only(&self) -> bool {
        self.principal()
            .and_then(Principal::scopes)
            .is_some_and(|s| s.public_only())
    }
}

/// Callers for unit tests of the rules that look at them.
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

/// Like [`get`], but answers from the caller's own record (already read by
/// authentication) when the name is theirs: one read less.
pub async fn get_for(db: &Db, name: &str, caller: &Caller) -> Result<Option<UserRecord>> {
    match caller.principal() {
        Some(p) if same(&p.user.name, name) => Ok(Some(p.user.clone())),
        _ => get(db, name).await,
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
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod fixtures {
    use super::{Caller, Principal, Via};
    use crate::accounts::{scope::Scopes, users::UserRecord};

    /// User 1, `u`, signed in as `via`.
    pub fn caller(via: Via) -> Caller {
        let user = UserRecord {
            id: 1,
            name: "u".into(),
            ..UserRecord::ghost()
        };
        Caller::User(Box::new(Principal { user, via }))
    }

    /// User 1 with a token of these scopes.
    pub fn token(scopes: &[&str]) -> Caller {
        caller(Via::Token {
            id: 1,
            scopes: Scopes::parse(scopes).unwrap(),
            team: "u".into(),
        })
    }
}
