//! Gitea's request bodies for accounts (the wire format in), each parsed
//! into its command: once a handler holds a `NewUser`, it is valid.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{
    Error,
    names::{Email, OwnerName, Visibility, bounded},
    orgs::NewOrg,
    teams::{self, AccessMode, NewTeam},
    tokens::TokenRequest,
    users::{self, NewUser},
};

/// Gitea's `CreateUserOption` (unknown fields are ignored, as Gitea does).
#[derive(Debug, Deserialize)]
pub struct CreateUserOption {
    pub username: String,
    pub email: String,
    #[serde(default)]
    pub full_name: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub visibility: Option<String>,
    #[serde(default)]
    pub restricted: Option<bool>,
}

impl TryFrom<CreateUserOption> for NewUser {
    type Error = Error;

    fn try_from(o: CreateUserOption) -> Result<Self, Error> {
        let password = users::parse_password(o.password)?;
        Ok(NewUser {
            name: OwnerName::parse("username", &o.username)?,
            email: Email::parse("email", &o.email)?,
            full_name: bounded("full_name", o.full_name, 100)?,
            password,
            visibility: Visibility::parse("visibility", o.visibility.as_deref())?,
            is_admin: false,
            restricted: o.restricted.unwrap_or(false),
        })
    }
}

/// Gitea's `CreateOrgOption`.
#[derive(Debug, Deserialize)]
pub struct CreateOrgOption {
    pub username: String,
    #[serde(default)]
    pub full_name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub website: Option<String>,
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    pub visibility: Option<String>,
    #[serde(default)]
    pub repo_admin_change_team_access: Option<bool>,
}

impl TryFrom<CreateOrgOption> for NewOrg {
    type Error = Error;

    fn try_from(o: CreateOrgOption) -> Result<Self, Error> {
        let website = bounded("website", o.website, 255)?;
        if !website.is_empty() && url::Url::parse(&website).is_err() {
            return Err(Error::invalid(
                "website",
                format!("is not a valid URL (got {website:?})"),
            ));
        }
        Ok(NewOrg {
            name: OwnerName::parse("username", &o.username)?,
            full_name: bounded("full_name", o.full_name, 100)?,
            email: match o.email.filter(|e| !e.trim().is_empty()) {
                Some(e) => Some(Email::parse("email", &e)?),
                None => None,
            },
            description: bounded("description", o.description, 255)?,
            website,
            location: bounded("location", o.location, 50)?,
            visibility: Visibility::parse("visibility", o.visibility.as_deref())?,
            repo_admin_change_team_access: o.repo_admin_change_team_access.unwrap_or(false),
        })
    }
}

/// Gitea's `CreateTeamOption`.
#[derive(Debug, Deserialize)]
pub struct CreateTeamOption {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub includes_all_repositories: Option<bool>,
    #[serde(default)]
    pub permission: Option<String>,
    #[serde(default)]
    pub can_create_org_repo: Option<bool>,
    #[serde(default)]
    pub units: Option<Vec<String>>,
    #[serde(default)]
    pub units_map: Option<BTreeMap<String, String>>,
}

impl TryFrom<CreateTeamOption> for NewTeam {
    type Error = Error;

    fn try_from(o: CreateTeamOption) -> Result<Self, Error> {
        let permission = AccessMode::parse("permission", o.permission.as_deref())?;
        Ok(NewTeam {
            name: teams::parse_name(&o.name)?,
            description: bounded("description", o.description, 255)?,
            permission,
            units: teams::parse_units(permission, o.units, o.units_map)?,
            includes_all_repositories: o.includes_all_repositories.unwrap_or(false),
            can_create_org_repo: o.can_create_org_repo.unwrap_or(false),
        })
    }
}

/// Gitea's `CreateAccessTokenOption`, plus `team` for the deploy API.
#[derive(Debug, Deserialize)]
pub struct CreateAccessTokenOption {
    pub name: String,
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    #[serde(default)]
    pub team: Option<String>,
}

impl TryFrom<CreateAccessTokenOption> for TokenRequest {
    type Error = Error;

    fn try_from(o: CreateAccessTokenOption) -> Result<Self, Error> {
        TokenRequest::parse(&o.name, &o.scopes.unwrap_or_default(), o.team)
    }
}
