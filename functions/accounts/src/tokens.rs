//! Access tokens: `POST|GET /users/{username}/tokens`,
//! `DELETE /users/{username}/tokens/{id}`. As in Gitea, only the user or a
//! site admin, signed in with a password (a token cannot mint tokens), may
//! manage a user's tokens.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        names::same,
        teams,
        tokens::{self, NewToken},
        users::UserRecord,
        views::AccessToken,
    },
    auth::{Via, scope::Scopes},
    http::{Ctx, Response, paging},
};

use crate::guard::existing_user;

/// Gitea's `CreateAccessTokenOption`, plus `team` for the deploy API.
#[derive(Deserialize)]
struct CreateAccessTokenOption {
    name: String,
    #[serde(default)]
    scopes: Option<Vec<String>>,
    #[serde(default)]
    team: Option<String>,
}

/// The user whose tokens the path names, once the caller may manage them:
/// signed in with a password (a token cannot mint tokens, not even a site
/// admin's, whose scopes would otherwise be escaped), as that user or as a
/// site admin.
async fn owner_of_tokens(cx: &Ctx) -> Result<UserRecord> {
    let me = cx.signed_in()?;
    let user = existing_user(cx, cx.param("username")).await?;
    if let Via::Token { .. } = me.via {
        return Err(Error::Unauthorized(
            "basic authentication with the user's password is required to manage tokens".into(),
        ));
    }
    if me.is_site_admin() || me.user.id == user.id {
        return Ok(user);
    }
    Err(Error::Forbidden(
        "only the user themself or a site admin may manage these tokens".into(),
    ))
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let user = owner_of_tokens(cx).await?;
    let body = cx.json::<CreateAccessTokenOption>()?;
    let name = body.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(Error::field("name", "must be 1 to 255 characters"));
    }
    let scopes = Scopes::parse(&body.scopes.unwrap_or_default())
        .map_err(|e| Error::BadRequest(e.to_string()))?;
    if scopes.is_empty() {
        return Err(Error::BadRequest("access token must have a scope".into()));
    }
    let team = match body
        .team
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
    {
        None => user.name.clone(),
        Some(t) if same(&t, &user.name) => t,
        Some(t) if teams::is_member(&cx.db, &t, &user.name).await? => t,
        Some(t) => {
            return Err(Error::field(
                "team",
                format!("{t:?} is neither this user nor an organization the user belongs to"),
            ));
        }
    };
    let (rec, secret) = tokens::create(&cx.db, &user.name, NewToken { name, scopes, team }).await?;
    cx.reply(
        StatusCode::CREATED,
        &AccessToken::new(&rec, Some(secret), &cx.config),
    )
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let user = owner_of_tokens(cx).await?;
    let all = tokens::list(&cx.db, &user.name).await?;
    let page = paging::Page::from_query(&cx.query, &cx.config);
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
    let user = owner_of_tokens(cx).await?;
    tokens::delete(&cx.db, &user.name, cx.param("id")).await?;
    cx.no_content()
}
