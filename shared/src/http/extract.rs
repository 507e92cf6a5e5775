//! Typed values read off a request for the domain: the caller's
//! credential, the repository a path names (with the caller's permission)
//! and the organisation a path names. Domain functions take these values,
//! never the request.

use base64::{Engine, engine::general_purpose::STANDARD};
use lambda_http::http::HeaderMap;

use super::{Archived, Ctx, Guard, Query};
use crate::{
    Result,
    accounts::{orgs, users::UserRecord},
    auth::{self, Api, Caller, Credential, Need, scope::Level},
    http::Dialect,
    repos::access::{self, RepoContext},
};

/// Which API a dialect's credentials are checked for.
pub fn api(dialect: Dialect) -> Api {
    match dialect {
        Dialect::Tracker => Api::Tracker,
        Dialect::Deploy => Api::Deploy,
    }
}

/// Checks a route's guard: Gitea scopes by method (reads need `read:`),
/// Coolify abilities as declared.
pub fn check_guard(caller: &Caller, guard: Guard, method: &str, dialect: Dialect) -> Result<()> {
    let guard = guard.for_caller(caller);
    if matches!(guard, Guard::SignedIn(_)) && caller.principal().is_none() {
        return Err(crate::Error::TokenRequired);
    }
    // A runner is let in by its guard alone, and only a runner is.
    match (guard, caller) {
        (Guard::Runner, Caller::Runner(_)) => return Ok(()),
        (Guard::Runner, _) | (_, Caller::Runner(_)) => {
            return Err(auth::Error::BadCredentials.into());
        }
        _ => {}
    }
    let need = match guard {
        Guard::Scope(category) | Guard::SignedIn(category) if matches!(method, "GET" | "HEAD") => {
            Need::Scope(category, Level::Read)
        }
        Guard::Scope(category) | Guard::SignedIn(category) => Need::Scope(category, Level::Write),
        Guard::Ability(ability) => Need::Ability(ability),
        Guard::Abilities(all) => {
            for ability in all {
                auth::require(caller, Need::Ability(*ability), api(dialect))?;
            }
            return Ok(());
        }
        Guard::Open => return Ok(()),
        Guard::Runner | Guard::ScopeOrAbility(..) => {
            return Err(auth::Error::BadCredentials.into());
        }
    };
    Ok(auth::require(caller, need, api(dialect))?)
}

/// Reads the credential off a request, in Gitea's order: `?token=` /
/// `?access_token=` first (tracker only), then the `Authorization` header:
/// `token X`, `Bearer X` (scheme case-insensitive), or Basic.
pub fn credential(
    headers: &HeaderMap,
    query: &Query,
    allow_query: bool,
) -> Result<Option<Credential>, auth::Error> {
    let from_query = query.get("token").or_else(|| query.get("access_token"));
    if let Some(t) = from_query.filter(|t| allow_query && !t.is_empty()) {
        return Ok(Some(Credential::Token(t.to_string())));
    }
    let Some(value) = headers.get("authorization") else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| auth::Error::BadCredentials)?;
    let fields: Vec<&str> = value.split_whitespace().collect();
    let [scheme, secret] = fields.as_slice() else {
        return Err(auth::Error::BadCredentials);
    };
    match scheme.to_ascii_lowercase().as_str() {
        "token" | "bearer" => Ok(Some(Credential::Token(secret.to_string()))),
        "basic" => {
            let decoded = STANDARD
                .decode(secret)
                .map_err(|_| auth::Error::BadCredentials)?;
            let decoded = String::from_utf8(decoded).map_err(|_| auth::Error::BadCredentials)?;
            let (user, password) = decoded.split_once(':').ok_or(auth::Error::BadCredentials)?;
            if password.is_empty() || password == "x-oauth-basic" {
                Ok(Some(Credential::Token(user.to_string())))
            } else {
                Ok(Some(Credential::TokenOrPassword {
                    user: user.into(),
                    password: password.into(),
                }))
            }
        }
        _ => Err(auth::Error::BadCredentials),
    }
}

/// The repository named by the `{owner}` and `{repo}` path parameters, as
/// the caller may see it (404 otherwise; `public-only` tokens were refused
/// private ones before the handler ran).
/// A route that changes an archived repository's content is refused here
/// with 423 (its `archived` declaration), once the caller may see it.
pub async fn repo_access(cx: &Ctx) -> Result<RepoContext> {
    let ctx = access::load(&cx.db, &cx.caller, cx.param("owner"), cx.param("repo")).await?;
    if cx.archived == Archived::Locked && ctx.repo.archived {
        let name = ctx.repo.full_name();
        return Err(crate::Error::Locked(format!("{name} is archived")));
    }
    Ok(ctx)
}

/// The repository in the path, for routes that write labels or
/// milestones: Gitea's `reqRepoWriter(Issues, PullRequests)`.
pub async fn repo_writable(cx: &Ctx) -> Result<RepoContext> {
    Ok(repo_access(cx).await?.writer(&cx.caller)?)
}

/// The repository in the path, for its admins.
pub async fn repo_admin(cx: &Ctx) -> Result<RepoContext> {
    Ok(repo_access(cx).await?.admin(&cx.caller)?)
}

/// The organisation `name` (a path parameter's value), if the caller may
/// see it.
pub async fn visible_org(cx: &Ctx, name: &str) -> Result<UserRecord> {
    Ok(orgs::visible(&cx.db, &cx.caller, name).await?)
}

/// The caller must own the organisation (or be a site admin).
pub async fn require_org_owner(cx: &Ctx, org: &UserRecord) -> Result<()> {
    Ok(orgs::require_owner(&cx.db, &cx.caller, org).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::principal::fixtures::{caller, token};
    use crate::{
        accounts::principal::Via,
        auth::scope::{Ability, Category},
    };

    fn with_auth(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("authorization", value.parse().unwrap());
        h
    }

    fn tok(s: &str) -> Option<Credential> {
        Some(Credential::Token(s.into()))
    }

    #[test]
    fn every_form() {
        let none = Query::default();
        let cases: &[(&str, Option<Credential>)] = &[
            ("token abc", tok("abc")),
            ("Bearer abc", tok("abc")),
            ("bEaReR abc", tok("abc")),
            (&format!("Basic {}", STANDARD.encode("abc:")), tok("abc")),
            (
                &format!("Basic {}", STANDARD.encode("abc:x-oauth-basic")),
                tok("abc"),
            ),
            (
                &format!("Basic {}", STANDARD.encode("alice:pw")),
                Some(Credential::TokenOrPassword {
                    user: "alice".into(),
                    password: "pw".into(),
                }),
            ),
        ];
        for (header, want) in cases {
            assert_eq!(
                &credential(&with_auth(header), &none, true).unwrap(),
                want,
                "header {header:?}"
            );
        }
        for bad in [
            "token",
            "token a b",
            "Digest abc",
            "Basic !!!",
            &format!("Basic {}", STANDARD.encode("nocolon")),
        ] {
            assert!(
                credential(&with_auth(bad), &none, true).is_err(),
                "header {bad:?} must be refused"
            );
        }
    }

    #[test]
    fn query_token_wins_on_the_tracker_only() {
        let q = Query::parse(Some("access_token=q1"));
        let h = with_auth("token h1");
        assert_eq!(credential(&h, &q, true).unwrap(), tok("q1"));
        assert_eq!(credential(&h, &q, false).unwrap(), tok("h1"));
        assert_eq!(
            credential(&HeaderMap::new(), &Query::default(), true).unwrap(),
            None
        );
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
        let both = Guard::Abilities(&[Ability::Write, Ability::ReadSensitive]);
        assert!(check_guard(&token(&["write", "read:sensitive"]), both, "POST", d).is_ok());
        assert!(check_guard(&token(&["root"]), both, "POST", d).is_ok());
        let err = check_guard(&token(&["write"]), both, "POST", d).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Missing required permissions: read:sensitive"
        );
        assert!(matches!(
            check_guard(&Caller::Anonymous, read, "GET", d),
            Err(crate::Error::TokenRequired)
        ));
    }

    #[test]
    fn paths_both_apis_serve_check_each_dialects_token_its_way() {
        let g = Guard::ScopeOrAbility(Category::Organization, Ability::Read);
        let t = Dialect::Tracker;
        // A Coolify client's token (abilities only) needs the ability.
        assert!(check_guard(&token(&["read"]), g, "GET", t).is_ok());
        assert!(check_guard(&token(&["root"]), g, "GET", t).is_ok());
        let err = check_guard(&token(&["deploy"]), g, "GET", t).unwrap_err();
        assert_eq!(err.to_string(), "Missing required permissions: read");
        // Any other caller is checked as Gitea checks the path.
        assert!(check_guard(&token(&["read:organization"]), g, "GET", t).is_ok());
        assert!(check_guard(&token(&["read:issue"]), g, "GET", t).is_err());
        assert!(check_guard(&token(&["read:organization", "read"]), g, "GET", t).is_ok());
        assert!(matches!(
            check_guard(&Caller::Anonymous, g, "GET", t),
            Err(crate::Error::TokenRequired)
        ));
    }

    #[test]
    fn runners_pass_their_guard_alone() {
        let runner = Caller::Runner(Box::new(crate::auth::Runner {
            runner_uuid: "r".into(),
            server_uuid: "s".into(),
            team: "t".into(),
            name: "n".into(),
            created_at: String::new(),
            last_seen_at: None,
            token_hash: String::new(),
        }));
        let d = Dialect::Deploy;
        assert!(check_guard(&runner, Guard::Runner, "POST", d).is_ok());
        for guard in [
            Guard::Ability(Ability::Read),
            Guard::Ability(Ability::Root),
            Guard::Scope(Category::Issue),
            Guard::SignedIn(Category::User),
            Guard::ScopeOrAbility(Category::Organization, Ability::Read),
            Guard::Open,
        ] {
            assert!(check_guard(&runner, guard, "GET", d).is_err(), "{guard:?}");
        }
        for user in [token(&["root"]), caller(Via::Password), Caller::Anonymous] {
            assert!(check_guard(&user, Guard::Runner, "POST", d).is_err());
        }
    }
}
