//! `/user/hooks…`: the signed-in user's own hooks (Gitea's `reqToken`),
//! which hear of every repository the user owns.

use shared::{
    Result,
    hooks::{HookOwner, options::Route},
    http::{Ctx, Response},
};

async fn owner(cx: &Ctx) -> Result<HookOwner> {
    let me = cx.signed_in()?;
    Ok(HookOwner::User {
        name: me.user.name.clone(),
    })
}

super::owner_handlers!(Route::Owner);
