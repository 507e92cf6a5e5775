//! `POST /orgs`, `GET /orgs/{org}`.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        names::{Email, OwnerName, Visibility, bounded},
        orgs::{self, NewOrg},
        views::Organization,
    },
    http::{Ctx, Response},
};

use crate::guard::visible_org;

/// Gitea's `CreateOrgOption`.
#[derive(Deserialize)]
struct CreateOrgOption {
    username: String,
    #[serde(default)]
    full_name: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    website: Option<String>,
    #[serde(default)]
    location: Option<String>,
    #[serde(default)]
    visibility: Option<String>,
    #[serde(default)]
    repo_admin_change_team_access: Option<bool>,
}

impl CreateOrgOption {
    fn parse(self) -> Result<NewOrg> {
        let website = bounded("website", self.website, 255)?;
        if !website.is_empty() && url::Url::parse(&website).is_err() {
            return Err(Error::field(
                "website",
                format!("is not a valid URL (got {website:?})"),
            ));
        }
        Ok(NewOrg {
            name: OwnerName::parse("username", &self.username)?,
            full_name: bounded("full_name", self.full_name, 100)?,
            email: match self.email.filter(|e| !e.trim().is_empty()) {
                Some(e) => Some(Email::parse("email", &e)?),
                None => None,
            },
            description: bounded("description", self.description, 255)?,
            website,
            location: bounded("location", self.location, 50)?,
            visibility: Visibility::parse("visibility", self.visibility.as_deref())?,
            repo_admin_change_team_access: self.repo_admin_change_team_access.unwrap_or(false),
        })
    }
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    if me.user.restricted {
        return Err(Error::Forbidden(
            "restricted users cannot create organizations".into(),
        ));
    }
    let new = cx.json::<CreateOrgOption>()?.parse()?;
    let org = orgs::create(&cx.db, &me.user, new).await?;
    cx.reply(StatusCode::CREATED, &Organization::new(&org))
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let org = visible_org(cx, cx.param("org")).await?;
    cx.reply(StatusCode::OK, &Organization::new(&org))
}
