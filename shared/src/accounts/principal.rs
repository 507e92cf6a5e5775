//! Who is calling: a signed-in user and the credential they used, or
//! nobody. Authentication (`crate::auth`) builds these; the rules of every
//! area read them.

use super::{scope::Scopes, users::model::UserRecord};

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

#[derive(Clone, Debug, Default)]
pub enum Caller {
    #[default]
    Anonymous,
    User(Box<Principal>),
}

impl Caller {
    pub fn principal(&self) -> Option<&Principal> {
        match self {
            Caller::User(p) => Some(p),
            Caller::Anonymous => None,
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
#[cfg(test)]
pub(crate) mod fixtures {
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
