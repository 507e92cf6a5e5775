//! `POST /admin/users`, `GET /user`, `GET /users/{username}`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    accounts::{
        lookup,
        options::CreateUserOption,
        principal,
        users::{self, NewUser},
        views::User,
    },
    http::{Ctx, Response},
};

pub async fn create(cx: &Ctx) -> Result<Response> {
    principal::site_admin(&cx.caller)?;
    let new: NewUser = cx.json::<CreateUserOption>()?.try_into()?;
    let user = users::create(&cx.db, new).await?;
    cx.reply(
        StatusCode::CREATED,
        &User::new(&user, &cx.caller, &cx.config),
    )
}

pub async fn me(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    cx.reply(StatusCode::OK, &User::new(&me.user, &cx.caller, &cx.config))
}

/// A user or organisation by name, if the caller may see it.
pub async fn get(cx: &Ctx) -> Result<Response> {
    let user = lookup::find_visible(&cx.db, cx.param("username"), &cx.caller).await?;
    cx.reply(StatusCode::OK, &User::new(&user, &cx.caller, &cx.config))
}
