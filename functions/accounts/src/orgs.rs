//! `POST /orgs`, `GET /orgs/{org}`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    accounts::{
        options::CreateOrgOption,
        orgs::{self, NewOrg},
        views::Organization,
    },
    http::{Ctx, Response},
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
