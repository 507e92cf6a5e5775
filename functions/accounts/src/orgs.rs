//! `POST /orgs`, `GET /orgs/{org}`, and a user's organisations.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    accounts::{
        lookup,
        options::CreateOrgOption,
        orgs::{self, NewOrg},
        users::UserRecord,
        views::Organization,
    },
    http::{Ctx, Response, paging},
};

pub async fn create(cx: &Ctx) -> Result<Response> {
    let me = orgs::may_create(&cx.caller)?;
    let new: NewOrg = cx.json::<CreateOrgOption>()?.try_into()?;
    let org = orgs::create(&cx.db, me, new).await?;
    cx.reply(StatusCode::CREATED, &Organization::new(&org))
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let org = orgs::visible(&cx.db, &cx.caller, cx.param("org")).await?;
    cx.reply(StatusCode::OK, &Organization::new(&org))
}

/// `GET /users/{username}/orgs`: the user's organisations the caller may see.
pub async fn of_user(cx: &Ctx) -> Result<Response> {
    let user = lookup::find_visible(&cx.db, cx.param("username"), &cx.caller).await?;
    list(cx, &user).await
}

/// `GET /user/orgs`: the caller's organisations.
pub async fn mine(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?.user.clone();
    list(cx, &me).await
}

async fn list(cx: &Ctx, user: &UserRecord) -> Result<Response> {
    let all = orgs::of_member(&cx.db, &cx.caller, user).await?;
    let (page, total) = (cx.page(), all.len() as u64);
    let body: Vec<Organization> = page.slice(&all).iter().map(Organization::new).collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, total, page);
    paging::set_headers(&mut res, link, total);
    Ok(res)
}
