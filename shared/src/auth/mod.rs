//! Who is calling, and what their credential allows. Credentials are read
//! by [`credentials`], tokens are checked by hash against the table, and
//! every route's guard (a Gitea scope category or a Coolify ability) is
//! checked before its handler runs.

pub mod credentials;
mod error;
pub mod public_only;

pub use error::Error;

type Result<T, E = Error> = std::result::Result<T, E>;

// The credential model lives with the accounts it belongs to (so accounts
// never import auth); these keep the paths callers know.
pub use crate::accounts::{
    password,
    principal::{Caller, Principal, Via},
    scope, secret as token,
};

use lambda_http::http::HeaderMap;

use crate::{
    accounts::{names::same, teams, tokens, users},
    db::Db,
    error::Dialect,
    http::{Guard, Query},
};
use credentials::Credential;
use scope::{Ability, Level, Scopes};
use teams::AccessMode;

/// Identifies the caller. No credentials → anonymous (the deploy API then
/// answers 401); credentials that do not check out → 401 on every route,
/// public ones included, as Gitea does.
pub async fn authenticate(
    db: &Db,
    headers: &HeaderMap,
    query: &Query,
    dialect: Dialect,
) -> crate::Result<Caller> {
    Ok(identify(db, headers, query, dialect).await?)
}

async fn identify(db: &Db, headers: &HeaderMap, query: &Query, dialect: Dialect) -> Result<Caller> {
    let allow_query = dialect == Dialect::Tracker;
    let Some(credential) = credentials::extract(headers, query, allow_query)? else {
        return match dialect {
            Dialect::Tracker => Ok(Caller::Anonymous),
            Dialect::Deploy => Err(Error::TokenRequired),
        };
    };
    let principal = match credential {
        Credential::Token(secret) => by_token(db, &secret).await?,
        Credential::TokenOrPassword { user, password } => match by_token(db, &password).await {
            Ok(p) => p,
            Err(Error::BadCredentials) if dialect == Dialect::Tracker => {
                by_password(db, &user, &password).await?
            }
            Err(e) => return Err(e),
        },
    };
    if dialect == Dialect::Deploy {
        still_in_team(db, &principal).await?;
    }
    if principal.user.prohibit_login {
        return Err(Error::LoginProhibited);
    }
    Ok(Caller::User(Box::new(principal)))
}

/// A deploy token acts for an organisation only while its owner is still
/// a member: someone who left keeps no access to the team's resources. And
/// only members with admin or owner access to the organisation act with
/// more than `read` (Coolify's members are read-only, too).
async fn still_in_team(db: &Db, principal: &Principal) -> Result<()> {
    let Via::Token { team, scopes, .. } = &principal.via else {
        return Ok(());
    };
    if team.is_empty() || same(team, &principal.user.name) {
        return Ok(());
    }
    let memberships = teams::memberships(db, team, &principal.user.name).await?;
    if memberships.is_empty() {
        return Err(Error::BadCredentials);
    }
    let elevated = [
        Ability::Write,
        Ability::Deploy,
        Ability::ReadSensitive,
        Ability::Root,
    ]
    .into_iter()
    .any(|a| scopes.can(a));
    let admin = memberships
        .iter()
        .any(|m| m.permission >= AccessMode::Admin);
    if elevated && !admin {
        return Err(Error::MissingTeamRole);
    }
    Ok(())
}

async fn by_token(db: &Db, secret: &str) -> Result<Principal> {
    let grant = tokens::lookup(db, secret)
        .await?
        .ok_or(Error::BadCredentials)?;
    let user = users::get(db, &grant.user)
        .await?
        .ok_or(Error::BadCredentials)?;
    let scopes = Scopes::parse(&grant.scopes).map_err(|e| Error::StoredScopes(e.to_string()))?;
    Ok(Principal {
        user,
        via: Via::Token {
            id: grant.id,
            scopes,
            team: grant.team,
        },
    })
}

/// A user name and password (Basic). Unknown users and users without a
/// password cost the same password check as real ones, so response times
/// do not tell which names exist.
async fn by_password(db: &Db, name: &str, password_text: &str) -> Result<Principal> {
    let user = users::get(db, name).await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.as_deref());
    if !password::verify_or_stand_in(password_text, hash) {
        return Err(Error::BadCredentials);
    }
    let user = user.ok_or(Error::BadCredentials)?;
    Ok(Principal {
        user,
        via: Via::Password,
    })
}

/// Checks a route's guard against the caller's credential.
pub fn check_guard(
    caller: &Caller,
    guard: Guard,
    method: &str,
    dialect: Dialect,
) -> crate::Result<()> {
    Ok(guard_allows(caller, guard, method, dialect)?)
}

fn guard_allows(caller: &Caller, guard: Guard, method: &str, dialect: Dialect) -> Result<()> {
    let Some(scopes) = caller.principal().and_then(Principal::scopes) else {
        // Anonymous callers are judged by the handler; passwords are unscoped.
        return match (dialect, caller) {
            (Dialect::Deploy, Caller::Anonymous) => Err(Error::TokenRequired),
            _ => Ok(()),
        };
    };
    match guard {
        Guard::Scope(category) => {
            let level = if matches!(method, "GET" | "HEAD") {
                Level::Read
            } else {
                Level::Write
            };
            if scopes.has(category, level) {
                Ok(())
            } else {
                Err(Error::MissingScope {
                    required: format!("{}:{}", level.as_str(), category.as_str()),
                    held: scopes.to_strings().join(","),
                })
            }
        }
        Guard::Ability(ability) => {
            if scopes.can(ability) {
                Ok(())
            } else {
                Err(Error::MissingAbility(ability.as_str()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        accounts::users::UserRecord,
        auth::scope::{Ability, Category},
    };

    fn caller(via: Via) -> Caller {
        let user = UserRecord {
            id: 1,
            name: "u".into(),
            ..UserRecord::ghost()
        };
        Caller::User(Box::new(Principal { user, via }))
    }

    fn token(scopes: &[&str]) -> Caller {
        caller(Via::Token {
            id: 1,
            scopes: Scopes::parse(scopes).unwrap(),
            team: "u".into(),
        })
    }

    #[test]
    fn gitea_scopes_by_method() {
        let g = Guard::Scope(Category::Issue);
        let t = Dialect::Tracker;
        assert!(check_guard(&token(&["read:issue"]), g, "GET", t).is_ok());
        assert!(check_guard(&token(&["read:issue"]), g, "POST", t).is_err());
        assert!(check_guard(&token(&["write:issue"]), g, "DELETE", t).is_ok());
        assert!(check_guard(&token(&["all"]), g, "PATCH", t).is_ok());
        let err = check_guard(&token(&["read:user"]), g, "GET", t).unwrap_err();
        assert_eq!(
            err.to_string(),
            "token does not have at least one of required scope(s), required=[read:issue], token scope=read:user"
        );
        // Passwords and anonymous callers are not scope-checked here.
        assert!(check_guard(&caller(Via::Password), g, "POST", t).is_ok());
        assert!(check_guard(&Caller::Anonymous, g, "GET", t).is_ok());
    }

    #[test]
    fn coolify_abilities_match_exactly_except_root() {
        let d = Dialect::Deploy;
        let read = Guard::Ability(Ability::Read);
        let write = Guard::Ability(Ability::Write);
        assert!(check_guard(&token(&["read"]), read, "GET", d).is_ok());
        assert!(
            check_guard(&token(&["write"]), read, "GET", d).is_err(),
            "write does not imply read"
        );
        assert!(check_guard(&token(&["root"]), write, "POST", d).is_ok());
        let err = check_guard(&token(&["read", "deploy"]), write, "POST", d).unwrap_err();
        assert_eq!(err.to_string(), "Missing required permissions: write");
        assert!(matches!(
            check_guard(&Caller::Anonymous, read, "GET", d),
            Err(crate::Error::TokenRequired)
        ));
    }
}
