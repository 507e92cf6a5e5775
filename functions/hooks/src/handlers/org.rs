//! `/orgs/{org}/hooks…`: the organisation's owners (and site admins),
//! Gitea's `reqOrgOwnership`; an organisation the caller may not see is
//! 404.

use shared::{
    Result,
    hooks::{HookOwner, options::Route},
    http::{Ctx, Response, extract},
};

async fn owner(cx: &Ctx) -> Result<HookOwner> {
    let org = extract::visible_org(cx, cx.param("org")).await?;
    extract::require_org_owner(cx, &org).await?;
    Ok(HookOwner::Org { name: org.name })
}

super::owner_handlers!(Route::Owner);
