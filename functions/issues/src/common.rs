//! What every issue handler reads from the request: the caller's login and
//! the issue named by `{index}`.

use shared::{
    Error, Result,
    http::Ctx,
    issues::{IssueRecord, ops},
    repos::access::RepoContext,
};

/// Lower-case login of the signed-in caller (401 otherwise).
pub fn me(cx: &Ctx) -> Result<String> {
    Ok(shared::name::fold(&cx.signed_in()?.user.name))
}

/// `{index}` as a number (404 otherwise, as in Gitea).
pub fn index(cx: &Ctx) -> Result<i64> {
    let raw = cx.param("index");
    raw.parse()
        .map_err(|_| Error::NotFound(format!("issue number must be a number, got {raw:?}")))
}

/// The issue named by `{index}` in a repository the caller may see; 404
/// when it does not exist or the caller cannot read its kind.
pub async fn issue_in_path(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let access = shared::http::extract::repo_access(cx).await?;
    let issue = ops::readable(&cx.db, &access, index(cx)?).await?;
    Ok((access, issue))
}

/// The pull request named by `{index}` (an issue number is a 404).
pub async fn pull_in_path(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let access = shared::http::extract::repo_access(cx).await?;
    let pr = ops::readable_pull(&cx.db, &access, index(cx)?).await?;
    Ok((access, pr))
}
