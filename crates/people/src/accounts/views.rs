//! Gitea's JSON shapes for accounts, fields in Gitea's order.

use serde::Serialize;

use super::principal::Caller;
use super::{
    teams::{AccessMode, TeamRecord},
    tokens::TokenRecord,
    users::UserRecord,
};
use crate::{Config, time};

/// Gitea's `User`. Private details (`is_admin`, `last_login`, ...) are
/// filled only for the user themself and site admins; the e-mail address
/// only for signed-in callers, otherwise a no-reply placeholder.
#[derive(Serialize)]
pub struct User {
    pub id: i64,
    pub login: String,
    pub login_name: String,
    pub source_id: i64,
    pub full_name: String,
    pub email: String,
    pub avatar_url: String,
    pub html_url: String,
    pub language: String,
    pub is_admin: bool,
    pub last_login: String,
    pub created: String,
    pub restricted: bool,
    pub active: bool,
    pub prohibit_login: bool,
    pub location: String,
    pub website: String,
    pub description: String,
    pub visibility: &'static str,
    pub followers_count: i64,
    pub following_count: i64,
    pub starred_repos_count: i64,
    pub username: String,
}

const ZERO_TIME: &str = "0001-01-01T00:00:00Z";

impl User {
    pub fn new(u: &UserRecord, caller: &Caller, config: &Config) -> Self {
        let me = caller.principal();
        let authed = me.is_some_and(|p| p.is_site_admin() || p.user.id == u.id);
        let email = if me.is_some() && !u.email.is_empty() {
            u.email.clone()
        } else {
            placeholder_email(u, config)
        };
        Self {
            id: u.id,
            login: u.name.clone(),
            login_name: String::new(),
            source_id: 0,
            full_name: u.full_name.clone(),
            email,
            avatar_url: String::new(),
            html_url: config.url(
                &percent_encoding::utf8_percent_encode(&u.name, percent_encoding::NON_ALPHANUMERIC)
                    .to_string(),
            ),
            language: String::new(),
            is_admin: authed && u.is_admin,
            last_login: ZERO_TIME.into(),
            created: time::render(u.created, config.display_tz),
            restricted: authed && u.restricted,
            active: authed,
            prohibit_login: authed && u.prohibit_login,
            location: u.location.clone(),
            website: u.website.clone(),
            description: u.description.clone(),
            visibility: u.visibility.as_str(),
            followers_count: 0,
            following_count: 0,
            starred_repos_count: 0,
            username: u.name.clone(),
        }
    }

    /// As embedded in issues (assignees, posters): Gitea builds these
    /// without a viewer, so the e-mail is always the placeholder.
    pub fn embedded(u: &UserRecord, config: &Config) -> Self {
        Self::new(u, &Caller::Anonymous, config)
    }
}

fn placeholder_email(u: &UserRecord, config: &Config) -> String {
    format!("{}+{}@{}", u.id, u.lower_name(), config.no_reply_address)
}

/// Gitea's `Organization`.
#[derive(Serialize)]
pub struct Organization {
    pub id: i64,
    pub name: String,
    pub full_name: String,
    pub email: String,
    pub avatar_url: String,
    pub description: String,
    pub website: String,
    pub location: String,
    pub visibility: &'static str,
    pub repo_admin_change_team_access: bool,
    pub username: String,
}

impl Organization {
    pub fn new(o: &UserRecord) -> Self {
        Self {
            id: o.id,
            name: o.name.clone(),
            full_name: o.full_name.clone(),
            email: o.email.clone(),
            avatar_url: String::new(),
            description: o.description.clone(),
            website: o.website.clone(),
            location: o.location.clone(),
            visibility: o.visibility.as_str(),
            repo_admin_change_team_access: o.repo_admin_change_team_access,
            username: o.name.clone(),
        }
    }
}

/// Gitea's `Team`.
#[derive(Serialize)]
pub struct Team {
    pub id: i64,
    pub name: String,
    pub description: String,
    pub organization: Option<Organization>,
    pub includes_all_repositories: bool,
    pub permission: AccessMode,
    pub units: Vec<String>,
    pub units_map: std::collections::BTreeMap<String, AccessMode>,
    pub can_create_org_repo: bool,
}

impl Team {
    pub fn new(t: &TeamRecord, org: Option<&UserRecord>) -> Self {
        Self {
            id: t.id,
            name: t.name.clone(),
            description: t.description.clone(),
            organization: org.map(Organization::new),
            includes_all_repositories: t.includes_all_repositories,
            permission: t.permission,
            units: t
                .units
                .iter()
                .filter(|(_, m)| **m > AccessMode::None)
                .map(|(u, _)| u.clone())
                .collect(),
            units_map: t.units.clone(),
            can_create_org_repo: t.can_create_org_repo,
        }
    }
}

/// Gitea's `AccessToken`, plus the deploy-API `team` it acts for. `sha1`
/// holds the secret only in the creation response.
#[derive(Serialize)]
pub struct AccessToken {
    pub id: i64,
    pub name: String,
    pub sha1: String,
    pub token_last_eight: String,
    pub scopes: Vec<String>,
    pub created_at: String,
    pub last_used_at: String,
    pub team: String,
}

impl AccessToken {
    pub fn new(t: &TokenRecord, secret: Option<String>, config: &Config) -> Self {
        let created = time::render(t.created, config.display_tz);
        Self {
            id: t.id,
            name: t.name.clone(),
            sha1: secret.unwrap_or_default(),
            token_last_eight: t.last_eight.clone(),
            scopes: t.scopes.clone(),
            last_used_at: created.clone(),
            created_at: created,
            team: t.team.clone(),
        }
    }
}
