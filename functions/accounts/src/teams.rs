//! Teams: `GET|POST /orgs/{org}/teams`, `GET /teams/{id}`,
//! `GET /teams/{id}/members`, `PUT|DELETE /teams/{id}/members/{username}`.
//! `GET /teams/{id}` and its members are Coolify's too: a Coolify client's
//! token gets its deploy team (`{id}` its number or `current`).

use lambda_http::http::StatusCode;
use shared::{
    Result,
    accounts::{
        options::CreateTeamOption,
        orgs,
        teams::{self, NewTeam},
        views::{Team, User},
    },
    deploy::teams as coolify,
    http::{Ctx, Response, coolify_client, deploy_team, paging},
};

pub async fn list(cx: &Ctx) -> Result<Response> {
    let (org, all) = orgs::visible_teams(&cx.db, &cx.caller, cx.param("org")).await?;
    let page = cx.page();
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
    let org = orgs::owned(&cx.db, &cx.caller, cx.param("org")).await?;
    let new: NewTeam = cx.json::<CreateTeamOption>()?.try_into()?;
    let team = teams::create(&cx.db, &org, new).await?;
    cx.reply(StatusCode::CREATED, &Team::new(&team, Some(&org)))
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    if coolify_client(&cx.caller) {
        let account = coolify::by_id(&cx.db, &deploy_team(cx)?, cx.param("id")).await?;
        return cx.reply(StatusCode::OK, &coolify::view(&account));
    }
    let (team, org) = orgs::team_view(&cx.db, &cx.caller, cx.id_param("id")?).await?;
    cx.reply(StatusCode::OK, &Team::new(&team, Some(&org)))
}

pub async fn add_member(cx: &Ctx) -> Result<Response> {
    let id = cx.id_param("id")?;
    teams::join(&cx.db, &cx.caller, id, cx.param("username")).await?;
    // Deploy tokens for the organisation act on the new role at once here.
    cx.tokens.forget_user(cx.param("username"));
    cx.no_content()
}

pub async fn remove_member(cx: &Ctx) -> Result<Response> {
    let id = cx.id_param("id")?;
    teams::leave(&cx.db, &cx.caller, id, cx.param("username")).await?;
    cx.tokens.forget_user(cx.param("username"));
    cx.no_content()
}

pub async fn members(cx: &Ctx) -> Result<Response> {
    if coolify_client(&cx.caller) {
        let account = coolify::by_id(&cx.db, &deploy_team(cx)?, cx.param("id")).await?;
        return cx.reply(StatusCode::OK, &coolify::members(&cx.db, &account).await?);
    }
    let page = cx.page();
    let upto = page.offset() + page.size as usize;
    let (users, total) = teams::members(&cx.db, &cx.caller, cx.id_param("id")?, upto).await?;
    let body: Vec<User> = page
        .slice(&users)
        .iter()
        .map(|u| User::new(u, &cx.caller, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, u64::try_from(total).unwrap_or(0));
    Ok(res)
}
