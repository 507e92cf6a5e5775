//! `/repos/{owner}/{repo}/hooks…`: the repository's admins only (Gitea's
//! `reqAdmin`); a repository the caller may not see is 404.

use shared::{
    Error, Result,
    db::actor::Actor,
    hooks::{self, HookOwner, history, options::Route, payload::RepoFacts},
    http::{Ctx, Response, extract},
};

async fn owner(cx: &Ctx) -> Result<HookOwner> {
    let access = extract::repo_admin(cx).await?;
    Ok(HookOwner::Repo { id: access.repo.id })
}

super::owner_handlers!(Route::Owner);

/// Gitea's test delivery: a sample `issues` event (`opened`) sent now,
/// whatever the hook's events and even if it is inactive; 204. Gitea's
/// `ref` (the commit of its push sample) has nothing to choose here.
pub async fn tests(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    let owner = HookOwner::Repo { id: access.repo.id };
    let hook = hooks::find(&cx.db, &owner, cx.id_param("id")?).await?;
    let facts = RepoFacts::load(&cx.db, access.repo.id)
        .await?
        .ok_or_else(Error::not_found)?;
    let me = cx.signed_in()?;
    let actor = Actor {
        id: me.user.id,
        name: me.user.name.clone(),
    };
    history::test(&cx.db, &cx.config, &hook, &facts, actor).await?;
    cx.no_content()
}
