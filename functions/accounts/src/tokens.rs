//! Access tokens: `POST|GET /users/{username}/tokens`,
//! `DELETE /users/{username}/tokens/{id}`, managed with a password by the
//! user or a site admin (rules in `shared::accounts::tokens`).

use lambda_http::http::StatusCode;
use shared::{
    Result,
    accounts::{
        options::CreateAccessTokenOption,
        tokens::{self, TokenRequest},
        views::AccessToken,
    },
    http::{Ctx, Response, paging},
};

pub async fn create(cx: &Ctx) -> Result<Response> {
    let user = tokens::manageable(&cx.db, &cx.caller, cx.param("username")).await?;
    let req: TokenRequest = cx.json::<CreateAccessTokenOption>()?.try_into()?;
    let (rec, secret) = tokens::issue(&cx.db, &user, req).await?;
    cx.reply(
        StatusCode::CREATED,
        &AccessToken::new(&rec, Some(secret), &cx.config),
    )
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let user = tokens::manageable(&cx.db, &cx.caller, cx.param("username")).await?;
    let all = tokens::list(&cx.db, &user.name).await?;
    let page = cx.page();
    let shown: Vec<AccessToken> = page
        .slice(&all)
        .iter()
        .map(|t| AccessToken::new(t, None, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &shown)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let user = tokens::manageable(&cx.db, &cx.caller, cx.param("username")).await?;
    tokens::delete(&cx.db, &user.name, cx.param("id")).await?;
    // Revoked at once here; other instances within the cache's TTL.
    cx.tokens.forget_user(&user.name);
    cx.no_content()
}
