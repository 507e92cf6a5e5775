//! `PUT`/`DELETE /issues/{index}/lock`: repository admins lock or unlock
//! an issue's conversation; 204 either way, as Gitea. The rules are in
//! `shared::issues::lock`.

use shared::{
    Result,
    http::{Ctx, Response},
    issues::{
        comments::{model, views::LockIssueOption},
        lock, ops, rules,
    },
    repos::access::RepoContext,
};

use crate::common::{index, me};

/// Gitea's order: signed in (401), a repository admin (403); then, as
/// every write here, not archived (423).
async fn admin(cx: &Ctx) -> Result<RepoContext> {
    let access = shared::http::extract::repo_access(cx).await?;
    me(cx)?;
    model::may_lock(&access.perm)?;
    rules::not_archived(&access)?;
    Ok(access)
}

/// `PUT /issues/{index}/lock` with `{"lock_reason": ...}` (or no body).
pub async fn lock(cx: &Ctx) -> Result<Response> {
    let access = admin(cx).await?;
    let body = if cx.body.iter().all(u8::is_ascii_whitespace) {
        LockIssueOption::default()
    } else {
        cx.json::<LockIssueOption>()?
    };
    let reason = model::lock_reason(body.lock_reason)?;
    let issue = ops::readable(&cx.db, &access, index(cx)?).await?;
    lock::set(&cx.db, &access, issue, true, reason).await?;
    cx.no_content()
}

/// `DELETE /issues/{index}/lock`.
pub async fn unlock(cx: &Ctx) -> Result<Response> {
    let access = admin(cx).await?;
    let issue = ops::readable(&cx.db, &access, index(cx)?).await?;
    lock::set(&cx.db, &access, issue, false, String::new()).await?;
    cx.no_content()
}
