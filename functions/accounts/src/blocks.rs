//! Blocks: `PUT|DELETE /user/blocks/{username}` (the caller blocks) and
//! `PUT|DELETE /orgs/{org}/blocks/{username}` (an organisation blocks;
//! rules in `shared::accounts::blocks`).

use shared::{
    Result,
    accounts::blocks::{self, Blocker},
    http::{Ctx, Response},
};

fn note(cx: &Ctx) -> &str {
    cx.query.get("note").unwrap_or("")
}

pub async fn block_for_user(cx: &Ctx) -> Result<Response> {
    let user = cx.param("username");
    blocks::block_by(&cx.db, &cx.caller, Blocker::Me, user, note(cx)).await?;
    cx.no_content()
}

pub async fn unblock_for_user(cx: &Ctx) -> Result<Response> {
    blocks::unblock_by(&cx.db, &cx.caller, Blocker::Me, cx.param("username")).await?;
    cx.no_content()
}

pub async fn block_for_org(cx: &Ctx) -> Result<Response> {
    let (org, user) = (Blocker::Org(cx.param("org")), cx.param("username"));
    blocks::block_by(&cx.db, &cx.caller, org, user, note(cx)).await?;
    cx.no_content()
}

pub async fn unblock_for_org(cx: &Ctx) -> Result<Response> {
    let org = Blocker::Org(cx.param("org"));
    blocks::unblock_by(&cx.db, &cx.caller, org, cx.param("username")).await?;
    cx.no_content()
}
