//! Handlers of the infra routes: read the team, call `shared::deploy`,
//! reply.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    deploy::{apps, deployments, projects, provider_apps, servers, ssh_keys, views},
    http::{Ctx, Response, deploy_team},
};

fn created(cx: &Ctx, uuid: &str) -> Result<Response> {
    cx.reply(StatusCode::CREATED, &json!({ "uuid": uuid }))
}

pub async fn list_projects(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    cx.reply(StatusCode::OK, &projects::list(&cx.db, &team).await?)
}

pub async fn create_project(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let (name, description) = projects::parse_new(cx.json_object()?)?;
    let p = projects::create(&cx.db, &team, name, description).await?;
    created(cx, &p.uuid)
}

pub async fn get_project(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &views::project(&p))
}

pub async fn delete_project(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    projects::delete(&cx.db, &team, &p).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Project deleted."}))
}

pub async fn list_environments(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &p.environments)
}

pub async fn create_environment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    let env = projects::create_environment(&cx.db, &team, &p, cx.json_object()?).await?;
    created(cx, &env.uuid)
}

/// An environment by name or by uuid.
pub async fn get_environment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, p.find_environment(cx.param("environment"))?)
}

pub async fn list_servers(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    cx.reply(StatusCode::OK, &servers::list(&cx.db, &team).await?)
}

pub async fn create_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let new = servers::parse(cx.json_object()?, None)?;
    let s = servers::create(&cx.db, &team, new).await?;
    created(cx, &s.uuid)
}

pub async fn get_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &views::server(&s))
}

pub async fn update_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let edited = servers::parse(cx.json_object()?, Some(&s.server))?;
    let saved = servers::update(&cx.db, &team, &s.server, edited).await?;
    let view = views::server(&servers::Server {
        server: saved,
        destinations: s.destinations,
    });
    cx.reply(StatusCode::OK, &view)
}

pub async fn delete_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    servers::delete(&cx.db, &team, &s).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Server deleted."}))
}

pub async fn list_destinations(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &s.destinations)
}

pub async fn create_destination(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let d = servers::add_destination(&cx.db, &team, &s, cx.json_object()?).await?;
    created(cx, &d.uuid)
}

pub async fn list_keys(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let all = ssh_keys::list(&cx.db, &team).await?;
    cx.reply(
        StatusCode::OK,
        &all.iter().map(views::key).collect::<Vec<Value>>(),
    )
}

pub async fn create_key(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let key = ssh_keys::parse_new(cx.json_object()?)?;
    ssh_keys::create(&cx.db, &team, &key).await?;
    created(cx, &key.uuid)
}

pub async fn get_key(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let key = ssh_keys::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &views::key(&key))
}

pub async fn delete_key(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let key = ssh_keys::find(&cx.db, &team, cx.param("uuid")).await?;
    ssh_keys::delete(&cx.db, &team, &key.uuid).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Private Key deleted."}))
}

pub async fn list_provider_apps(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let all = provider_apps::list(&cx.db, &team).await?;
    let all: Vec<Value> = all.iter().map(views::provider_app).collect();
    cx.reply(StatusCode::OK, &all)
}

pub async fn create_provider_app(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = provider_apps::parse_new(cx.json_object()?)?;
    provider_apps::create(&cx.db, &team, &app).await?;
    cx.reply(StatusCode::CREATED, &views::provider_app(&app))
}

pub async fn running_deployments(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    cx.reply(StatusCode::OK, &deployments::running(&cx.db, &team).await?)
}

pub async fn get_deployment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let d = deployments::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &d)
}

pub async fn app_deployments(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let (skip, take) = deployments::window(cx.query.get("skip"), cx.query.get("take"))?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let list = deployments::for_app(&cx.db, &team, &app.uuid, skip, take).await?;
    cx.reply(StatusCode::OK, &list)
}
