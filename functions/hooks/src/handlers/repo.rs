//! `/repos/{owner}/{repo}/hooks…`: the repository's admins only (Gitea's
//! `reqAdmin`); a repository the caller may not see is 404.

use shared::{
    Result,
    hooks::{HookOwner, options::Route},
    http::{Ctx, Response, extract},
};

async fn owner(cx: &Ctx) -> Result<HookOwner> {
    let access = extract::repo_admin(cx).await?;
    Ok(HookOwner::Repo { id: access.repo.id })
}

super::owner_handlers!(Route::Owner);
