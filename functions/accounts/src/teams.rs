//! Teams: `GET|POST /orgs/{org}/teams`, `GET /teams/{id}`,
//! `PUT|DELETE /teams/{id}/members/{username}`.

use std::collections::BTreeMap;

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        names::bounded,
        teams::{self, AccessMode, NewTeam, TeamRecord},
        users::UserRecord,
        views::Team,
    },
    http::{Ctx, Response, paging},
};

use crate::guard::{existing_user, require_member, require_owner, visible_org};

/// Gitea's `CreateTeamOption`.
#[derive(Deserialize)]
struct CreateTeamOption {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    includes_all_repositories: Option<bool>,
    #[serde(default)]
    permission: Option<String>,
    #[serde(default)]
    can_create_org_repo: Option<bool>,
    #[serde(default)]
    units: Option<Vec<String>>,
    #[serde(default)]
    units_map: Option<BTreeMap<String, String>>,
}

impl CreateTeamOption {
    fn parse(self) -> Result<NewTeam> {
        let permission = AccessMode::parse("permission", self.permission.as_deref())?;
        Ok(NewTeam {
            name: teams::parse_name(&self.name)?,
            description: bounded("description", self.description, 255)?,
            permission,
            units: teams::parse_units(permission, self.units, self.units_map)?,
            includes_all_repositories: self.includes_all_repositories.unwrap_or(false),
            can_create_org_repo: self.can_create_org_repo.unwrap_or(false),
        })
    }
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let org = visible_org(cx, cx.param("org")).await?;
    require_member(cx, &org).await?;
    let all = teams::list(&cx.db, &org.name).await?;
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let body: Vec<Team> = page
        .slice(&all)
        .iter()
        .map(|t| Team::new(t, Some(&org)))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let org = visible_org(cx, cx.param("org")).await?;
    require_owner(cx, &org).await?;
    let team = teams::create(&cx.db, &org, cx.json::<CreateTeamOption>()?.parse()?).await?;
    cx.reply(StatusCode::CREATED, &Team::new(&team, Some(&org)))
}

/// The team in the path and its organisation, if the caller may see both.
async fn team_in_path(cx: &Ctx) -> Result<(TeamRecord, UserRecord)> {
    let id = cx.id_param("id")?;
    let team = teams::get(&cx.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("team does not exist [id: {id}]")))?;
    let org = visible_org(cx, &team.org).await?;
    Ok((team, org))
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let (team, org) = team_in_path(cx).await?;
    require_member(cx, &org).await?;
    cx.reply(StatusCode::OK, &Team::new(&team, Some(&org)))
}

pub async fn add_member(cx: &Ctx) -> Result<Response> {
    let (team, org) = team_in_path(cx).await?;
    require_owner(cx, &org).await?;
    let user = existing_user(cx, cx.param("username")).await?;
    teams::add_member(&cx.db, &team, &user.name).await?;
    cx.no_content()
}

pub async fn remove_member(cx: &Ctx) -> Result<Response> {
    let (team, org) = team_in_path(cx).await?;
    require_owner(cx, &org).await?;
    let user = existing_user(cx, cx.param("username")).await?;
    teams::remove_member(&cx.db, &team, &user.name).await?;
    cx.no_content()
}
