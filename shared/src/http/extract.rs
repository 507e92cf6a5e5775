//! Typed values read off a request for the domain: the repository a path
//! names (with the caller's permission) and the organisation a path
//! names. Domain functions take these values, never the request.

use super::Ctx;
use crate::{
    Result,
    accounts::{orgs, users::UserRecord},
    repos::access::{self, RepoContext},
};

/// The repository named by the `{owner}` and `{repo}` path parameters, as
/// the caller may see it (404 otherwise; `public-only` tokens were refused
/// private ones before the handler ran).
pub async fn repo_access(cx: &Ctx) -> Result<RepoContext> {
    Ok(access::load(&cx.db, &cx.caller, cx.param("owner"), cx.param("repo")).await?)
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
