//! `/admin/hooks…`: the site's hooks, site admins only. They are system
//! hooks (they hear of every repository); Gitea's default hooks (copied
//! into new repositories) are not served: a create or edit that asks for
//! one is refused, and `type=default` lists none.

use shared::{
    Result,
    accounts::principal,
    hooks::{self, HookOwner, options::Route},
    http::{Ctx, Response},
};

async fn owner(cx: &Ctx) -> Result<HookOwner> {
    principal::site_admin(&cx.caller)?;
    Ok(HookOwner::Site)
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let owner = owner(cx).await?;
    match hooks::site_list_type(cx.query.get("type"))? {
        true => super::list(cx, owner).await,
        false => super::paged(cx, &[]),
    }
}

super::owner_handlers!(@rest Route::Site);
