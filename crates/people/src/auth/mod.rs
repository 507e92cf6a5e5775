//! Who is calling, and what their credential allows: a credential (read
//! off the request by `crate::http::extract`) is checked by hash against
//! the table, and what a route requires (a Gitea scope or a Coolify
//! ability) against the credential's scopes.

mod cache;
mod error;
pub mod failed_logins;

pub use cache::TokenCache;
pub use error::Error;

// The credential model lives with the accounts it belongs to (so accounts
// never import auth); these keep the paths callers know.
pub use crate::accounts::{
    password,
    principal::{Caller, Principal, Runner, Via},
    scope, secret as token,
};
use crate::{
    accounts::{names::same, teams, tokens, users},
    db::Db,
};
use scope::{Ability, Category, Level, Scopes};
use teams::AccessMode;

type Result<T, E = Error> = std::result::Result<T, E>;

/// Which API a credential is used on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Api {
    /// Gitea's: anonymous callers, passwords and query tokens welcome.
    Tracker,
    /// Coolify's: a token (or a password field carrying one) is required,
    /// and an organisation token needs its user still in the team.
    Deploy,
}

/// A credential as the request carried it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A bare token secret.
    Token(String),
    /// Basic with a real password field: the password is tried as a token
    /// first, then as the user's password.
    TokenOrPassword { user: String, password: String },
}

/// Identifies the caller. No credentials: anonymous (the deploy API then
/// refuses); credentials that do not check out: refused on every route,
/// public ones included, as Gitea does. A token seen lately on this
/// instance costs no database call (`cache`).
pub async fn identify(
    db: &Db,
    cache: &TokenCache,
    credential: Option<Credential>,
    api: Api,
) -> Result<Caller> {
    let Some(credential) = credential else {
        return match api {
            Api::Tracker => Ok(Caller::Anonymous),
            Api::Deploy => Err(Error::TokenRequired),
        };
    };
    let (secret, user) = match credential {
        Credential::Token(secret) => (secret, None),
        Credential::TokenOrPassword { user, password } => (password, Some(user)),
    };
    // A runner's credential is good on the runner routes alone.
    if secret.starts_with(RUNNER_TOKEN_PREFIX) {
        return Err(Error::BadCredentials);
    }
    let hash = token::hash(&secret);
    if let Some(caller) = cache.get(&hash, api) {
        return Ok(caller);
    }
    let principal = match (by_token(db, &hash).await, user) {
        (Ok(p), _) => p,
        (Err(Error::BadCredentials), Some(user)) if api == Api::Tracker => {
            let p = by_password(db, &user, &secret).await?;
            return checked(db, p, api).await;
        }
        (Err(e), _) => return Err(e),
    };
    let caller = checked(db, principal, api).await?;
    cache.put(&hash, api, &caller);
    Ok(caller)
}

/// What every runner credential starts with: `runner_` and 64 hex digits.
pub const RUNNER_TOKEN_PREFIX: &str = "runner_";

/// Whether `secret` has a runner credential's shape.
pub fn is_runner_token(secret: &str) -> bool {
    secret.strip_prefix(RUNNER_TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

/// Identifies a runner by its credential (`Authorization: Bearer
/// runner_<hex>`), on the runner routes, which take nothing else: a user's
/// token there is refused like a wrong one. Every call reads the
/// credential, so a revoked one is refused at once.
pub async fn identify_runner(db: &Db, credential: Option<Credential>) -> Result<Caller> {
    let Some(Credential::Token(secret)) = credential else {
        return Err(Error::BadCredentials);
    };
    if !is_runner_token(&secret) {
        return Err(Error::BadCredentials);
    }
    let hash = token::hash(&secret);
    let runner: Runner = db
        .get_as(crate::db::keys::runner_token(&hash))
        .await?
        .ok_or(Error::BadCredentials)?;
    Ok(Caller::Runner(Box::new(runner)))
}

/// The checks every credential passes after it matched a user.
async fn checked(db: &Db, principal: Principal, api: Api) -> Result<Caller> {
    if api == Api::Deploy {
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

async fn by_token(db: &Db, hash: &str) -> Result<Principal> {
    let grant = tokens::lookup_hash(db, hash)
        .await?
        .ok_or(Error::BadCredentials)?;
    let user = match grant.holder {
        Some(user) => user,
        None => users::get(db, &grant.user)
            .await?
            .ok_or(Error::BadCredentials)?,
    };
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
/// do not tell which names exist. A name with too many failed passwords
/// lately gets no check at all ([`failed_logins`]); its counter is read
/// beside the user, in the same round trip.
async fn by_password(db: &Db, name: &str, password_text: &str) -> Result<Principal> {
    let now = crate::time::now();
    let window = failed_logins::POLICY.window(now);
    let (user, failures) =
        tokio::join!(users::get(db, name), failed_logins::count(db, name, window));
    let (user, failures) = (user?, failures?);
    if let Some(retry_after) = failed_logins::POLICY.wait(failures, now) {
        return Err(Error::TooManyFailedLogins { retry_after });
    }
    let hash = user.as_ref().and_then(|u| u.password_hash.as_deref());
    if !password::verify_or_stand_in(password_text, hash) {
        failed_logins::record(db, name, window).await?;
        return Err(Error::BadCredentials);
    }
    let user = user.ok_or(Error::BadCredentials)?;
    Ok(Principal {
        user,
        via: Via::Password,
    })
}

/// What a route requires of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A Gitea scope category at a level (reads need `read:`, the rest
    /// `write:`).
    Scope(Category, Level),
    /// A Coolify ability.
    Ability(Ability),
}

/// Checks what a route needs against the caller's token. Anonymous callers
/// are judged by the handler (the deploy API has none by now); passwords
/// are not limited by scopes.
pub fn require(caller: &Caller, need: Need, api: Api) -> Result<()> {
    // Runners are let in by their own guard only.
    if matches!(caller, Caller::Runner(_)) {
        return Err(Error::BadCredentials);
    }
    let Some(scopes) = caller.principal().and_then(Principal::scopes) else {
        return match (api, caller) {
            (Api::Deploy, Caller::Anonymous) => Err(Error::TokenRequired),
            _ => Ok(()),
        };
    };
    match need {
        Need::Scope(category, level) if !scopes.has(category, level) => Err(Error::MissingScope {
            required: format!("{}:{}", level.as_str(), category.as_str()),
            held: scopes.to_strings().join(","),
        }),
        Need::Ability(ability) if !scopes.can(ability) => {
            Err(Error::MissingAbility(ability.as_str()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::principal::fixtures::{caller, token};

    #[test]
    fn scopes_abilities_and_who_is_not_checked() {
        use Level::{Read, Write};
        let t = Api::Tracker;
        let issue = |l| Need::Scope(Category::Issue, l);
        let rows: &[(&str, Caller, Need, Api, bool)] = &[
            (
                "read:issue reads",
                token(&["read:issue"]),
                issue(Read),
                t,
                true,
            ),
            (
                "read:issue writes",
                token(&["read:issue"]),
                issue(Write),
                t,
                false,
            ),
            (
                "write implies read",
                token(&["write:issue"]),
                issue(Read),
                t,
                true,
            ),
            ("all writes", token(&["all"]), issue(Write), t, true),
            ("password", caller(Via::Password), issue(Write), t, true),
            (
                "anonymous tracker",
                Caller::Anonymous,
                issue(Write),
                t,
                true,
            ),
            (
                "ability",
                token(&["read"]),
                Need::Ability(Ability::Read),
                Api::Deploy,
                true,
            ),
            (
                "no implied ability",
                token(&["write"]),
                Need::Ability(Ability::Read),
                Api::Deploy,
                false,
            ),
            (
                "root",
                token(&["root"]),
                Need::Ability(Ability::Deploy),
                Api::Deploy,
                true,
            ),
            (
                "anonymous deploy",
                Caller::Anonymous,
                Need::Ability(Ability::Read),
                Api::Deploy,
                false,
            ),
        ];
        for (label, who, need, api, ok) in rows {
            assert_eq!(require(who, *need, *api).is_ok(), *ok, "{label}");
        }
        assert!(matches!(
            require(&token(&["read:user"]), issue(Read), t),
            Err(Error::MissingScope { required, held }) if required == "read:issue" && held == "read:user"
        ));
    }
}
