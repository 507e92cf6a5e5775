//! Blocks: `PUT|DELETE /user/blocks/{username}` (the caller blocks) and
//! `PUT|DELETE /orgs/{org}/blocks/{username}` (an organisation blocks;
//! owners only, and never one of its own members).

use shared::{
    Error, Result,
    accounts::{blocks, teams, users::UserRecord},
    http::{Ctx, Response},
};

use crate::guard::{existing_user, require_owner, visible_org};

/// The user to block, who must exist and not be the blocker.
async fn target(cx: &Ctx, blocker: &UserRecord) -> Result<UserRecord> {
    let user = existing_user(cx, cx.param("username")).await?;
    if user.id == blocker.id {
        return Err(Error::BadRequest("you cannot block yourself".into()));
    }
    Ok(user)
}

fn note(cx: &Ctx) -> &str {
    cx.query.get("note").unwrap_or("")
}

pub async fn block_for_user(cx: &Ctx) -> Result<Response> {
    let me = &cx.signed_in()?.user;
    let user = target(cx, me).await?;
    blocks::block(&cx.db, &me.name, &user.name, note(cx)).await?;
    cx.no_content()
}

pub async fn unblock_for_user(cx: &Ctx) -> Result<Response> {
    let me = &cx.signed_in()?.user;
    let user = target(cx, me).await?;
    blocks::unblock(&cx.db, &me.name, &user.name).await?;
    cx.no_content()
}

pub async fn block_for_org(cx: &Ctx) -> Result<Response> {
    let org = visible_org(cx, cx.param("org")).await?;
    require_owner(cx, &org).await?;
    let user = target(cx, &org).await?;
    if teams::is_member(&cx.db, &org.name, &user.name).await? {
        return Err(Error::BadRequest(format!(
            "{} is a member of {} and cannot be blocked",
            user.name, org.name
        )));
    }
    blocks::block(&cx.db, &org.name, &user.name, note(cx)).await?;
    cx.no_content()
}

pub async fn unblock_for_org(cx: &Ctx) -> Result<Response> {
    let org = visible_org(cx, cx.param("org")).await?;
    require_owner(cx, &org).await?;
    let user = target(cx, &org).await?;
    blocks::unblock(&cx.db, &org.name, &user.name).await?;
    cx.no_content()
}
