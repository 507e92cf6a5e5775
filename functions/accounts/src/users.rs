//! `POST /admin/users`, `GET /user`, `GET /users/{username}`.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        names::{Email, OwnerName, Visibility, bounded},
        users::{self, NewUser},
        views::User,
    },
    http::{Ctx, Response},
};

/// Gitea's `CreateUserOption` (unknown fields are ignored, as Gitea does).
#[derive(Deserialize)]
struct CreateUserOption {
    username: String,
    email: String,
    #[serde(default)]
    full_name: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    visibility: Option<String>,
    #[serde(default)]
    restricted: Option<bool>,
}

const MIN_PASSWORD_LEN: usize = 8;

impl CreateUserOption {
    fn parse(self) -> Result<NewUser> {
        let password = self.password.filter(|p| !p.is_empty());
        if password
            .as_ref()
            .is_some_and(|p| p.chars().count() < MIN_PASSWORD_LEN)
        {
            return Err(Error::BadRequest(format!(
                "password: must be at least {MIN_PASSWORD_LEN} characters"
            )));
        }
        Ok(NewUser {
            name: OwnerName::parse("username", &self.username)?,
            email: Email::parse("email", &self.email)?,
            full_name: bounded("full_name", self.full_name, 100)?,
            password,
            visibility: Visibility::parse("visibility", self.visibility.as_deref())?,
            is_admin: false,
            restricted: self.restricted.unwrap_or(false),
        })
    }
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    if !me.is_site_admin() {
        return Err(Error::Forbidden("user should be the site admin".into()));
    }
    let new = cx.json::<CreateUserOption>()?.parse()?;
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
    let name = cx.param("username");
    match users::get_for(&cx.db, name, &cx.caller).await? {
        Some(u) if users::visible_to(&cx.db, &u, &cx.caller).await? => {
            cx.reply(StatusCode::OK, &User::new(&u, &cx.caller, &cx.config))
        }
        _ => Err(Error::NotFound(format!(
            "user does not exist [name: {name}]"
        ))),
    }
}
