//! `public-only` tokens: they never read or change anything private. Each
//! route declares where its targets' visibility comes from ([`Sees`]); the
//! request lifecycle calls [`check`] for such tokens before the handler
//! runs, so no handler has to remember it.
//!
//! Gitea's order is kept: something the caller may not see at all is left
//! to the handler, which answers 404 as for anyone; something they may see
//! but that is not public is refused with 403.

use super::{Route, Sees};
use crate::{
    Error, Result,
    accounts::{lookup, names::Visibility, principal, teams},
    auth::{Caller, scope::Category},
    db::Db,
    repos::{self, access},
};

/// What [`check`] needs of a request, already extracted from HTTP.
pub struct Target<'a> {
    pub route: &'a Route,
    /// The request's path parameters.
    pub params: &'a [(String, String)],
    /// The request body (for routes that create things).
    pub body: &'a [u8],
}

impl Target<'_> {
    fn param(&self, name: &str) -> &str {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    }

    fn reads_only(&self) -> bool {
        matches!(self.route.method, "GET" | "HEAD")
    }
}

/// Whether the caller's token is limited to public things.
pub fn limited(caller: &Caller) -> bool {
    caller.public_only()
}

/// Refuses a `public-only` token whose request would read, change or
/// create something private. Other callers pass without any read.
pub async fn check(db: &Db, caller: &Caller, target: &Target<'_>) -> Result<()> {
    if !limited(caller) {
        return Ok(());
    }
    for sees in target.route.sees {
        if !public(db, caller, target, *sees).await? {
            return Err(refusal(target.route));
        }
    }
    Ok(())
}

/// Gitea's message names the route's scope category.
fn refusal(route: &Route) -> Error {
    let what = match (route.guard, route.guard.category()) {
        (g, _) if g.is_ability() => "resources (deploy resources are private to their team)",
        (_, Some(Category::Repository)) => "repos",
        (_, Some(Category::Issue)) => "issues",
        (_, Some(Category::Organization)) => "orgs",
        (_, _) => "users",
    };
    Error::Forbidden(format!("token scope is limited to public {what}"))
}

/// Whether one declared target is public (or left to the handler's 404).
async fn public(db: &Db, caller: &Caller, t: &Target<'_>, sees: Sees) -> Result<bool> {
    match sees {
        Sees::Caller => Ok(caller
            .principal()
            .is_none_or(|p| p.user.visibility == Visibility::Public)),
        Sees::CallerWide => caller_is_public(db, caller, t.reads_only()).await,
        Sees::CallerAll => caller_is_public(db, caller, false).await,
        Sees::Site => Ok(false),
        Sees::Owner(param) => owner_is_public(db, caller, t.param(param), true).await,
        Sees::OrgWide(param) => owner_is_public(db, caller, t.param(param), t.reads_only()).await,
        Sees::OrgAll(param) => owner_is_public(db, caller, t.param(param), false).await,
        Sees::Repo(owner, name) => {
            // Whether the caller could see it without the token's limit:
            // if not, the handler answers 404 as for anyone.
            let unlimited = unlimited(caller);
            match access::load(db, &unlimited, t.param(owner), t.param(name)).await {
                Ok(ctx) => Ok(!ctx.repo.private && ctx.owner.visibility == Visibility::Public),
                Err(repos::Error::NotFound { .. }) => Ok(true),
                Err(e) => Err(e.into()),
            }
        }
        Sees::Team(param) => {
            let Ok(id) = t.param(param).parse::<i64>() else {
                return Ok(true);
            };
            // A team the caller may not see is left to the handler's 404,
            // as a missing one is: a refusal would tell them it exists.
            let team = match teams::find(db, caller, id).await {
                Ok(seen) => seen.team,
                Err(
                    crate::accounts::Error::NoSuchTeam(_) | crate::accounts::Error::SignInRequired,
                ) => {
                    return Ok(true);
                }
                Err(e) => return Err(e.into()),
            };
            if !owner_is_public(db, caller, &team.org, true).await? {
                return Ok(false);
            }
            // Changing a team changes who reaches its repositories.
            Ok(t.reads_only() || !reaches_private(db, &team).await?)
        }
        Sees::BodyPrivate => {
            Ok(body_field(t.body, "private") != Some(serde_json::Value::Bool(true)))
        }
        Sees::BodyVisibility => Ok(match body_field(t.body, "visibility") {
            Some(serde_json::Value::String(v)) => v.trim().is_empty() || v.trim() == "public",
            _ => true,
        }),
        Sees::Filtered | Sees::Nothing => Ok(true),
        Sees::DeployTeam => Ok(false),
    }
}

/// The caller must be public; what reaches every repository they own
/// (`read` false) also requires that they own no private one.
async fn caller_is_public(db: &Db, caller: &Caller, read: bool) -> Result<bool> {
    match caller.principal() {
        None => Ok(true),
        Some(p) if p.user.visibility != Visibility::Public => Ok(false),
        Some(p) => Ok(read || !repos::has_private(db, &p.user.name).await?),
    }
}

/// A user or organisation the caller may see must be public; a change that
/// reaches all of an organisation's repositories (`read` false) also
/// requires that it holds no private one.
async fn owner_is_public(db: &Db, caller: &Caller, name: &str, read: bool) -> Result<bool> {
    let Some(owner) = principal::get_for(db, name, caller).await? else {
        return Ok(true);
    };
    if !lookup::visible_to(db, &owner, caller).await? {
        return Ok(true);
    }
    if owner.visibility != Visibility::Public {
        return Ok(false);
    }
    Ok(read || !owner.is_org() || !repos::has_private(db, &owner.name).await?)
}

async fn reaches_private(db: &Db, team: &teams::TeamRecord) -> Result<bool> {
    if team.includes_all_repositories {
        return Ok(repos::has_private(db, &team.org).await?);
    }
    Ok(repos::scope::team_repos(db, team)
        .await?
        .iter()
        .any(|r| r.private))
}

/// The caller as their credential would be without `public-only`.
fn unlimited(caller: &Caller) -> Caller {
    let mut c = caller.clone();
    if let Caller::User(p) = &mut c
        && let crate::auth::Via::Token { scopes, .. } = &mut p.via
    {
        scopes.set_public_only(false);
    }
    c
}

fn body_field(body: &[u8], name: &str) -> Option<serde_json::Value> {
    match serde_json::from_slice::<serde_json::Value>(body).ok()? {
        serde_json::Value::Object(mut m) => m.remove(name),
        _ => None,
    }
}
