//! Handlers of the infra routes: read the team, call `shared::deploy`,
//! reply. 404 bodies use Coolify's messages.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Error, Result,
    deploy::{Team, apps, deployments, projects, provider_apps, servers, ssh_keys},
    http::{Ctx, Response},
};

fn missing(what: &str) -> Error {
    Error::NotFound(format!("{what} not found."))
}

async fn project(cx: &Ctx, team: &Team) -> Result<projects::Project> {
    projects::load(&cx.db, team, cx.param("uuid"))
        .await?
        .ok_or_else(|| missing("Project"))
}

async fn server(cx: &Ctx, team: &Team) -> Result<servers::Server> {
    servers::load(&cx.db, team, cx.param("uuid"))
        .await?
        .ok_or_else(|| missing("Server"))
}

fn created(cx: &Ctx, uuid: &str) -> Result<Response> {
    cx.reply(StatusCode::CREATED, &json!({ "uuid": uuid }))
}

pub async fn list_projects(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &projects::list(&cx.db, &team).await?)
}

pub async fn create_project(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let (name, description) = projects::parse_new(cx.json_object()?)?;
    let p = projects::create(&cx.db, &team, name, description).await?;
    created(cx, &p.uuid)
}

pub async fn get_project(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &projects::view(&project(cx, &team).await?))
}

pub async fn delete_project(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    projects::delete(&cx.db, &team, &project(cx, &team).await?).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Project deleted."}))
}

pub async fn list_environments(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &project(cx, &team).await?.environments)
}

pub async fn create_environment(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let p = project(cx, &team).await?;
    let env = projects::create_environment(&cx.db, &team, &p, cx.json_object()?).await?;
    created(cx, &env.uuid)
}

/// An environment by name or by uuid.
pub async fn get_environment(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let p = project(cx, &team).await?;
    let wanted = cx.param("environment");
    let env = p
        .environment(Some(wanted), Some(wanted))
        .ok_or_else(|| missing("Environment"))?;
    cx.reply(StatusCode::OK, env)
}

pub async fn list_servers(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &servers::list(&cx.db, &team).await?)
}

pub async fn create_server(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let new = servers::parse(cx.json_object()?, None)?;
    let s = servers::create(&cx.db, &team, new).await?;
    created(cx, &s.uuid)
}

pub async fn get_server(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &servers::view(&server(cx, &team).await?))
}

pub async fn update_server(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let s = server(cx, &team).await?;
    let edited = servers::parse(cx.json_object()?, Some(&s.server))?;
    let saved = servers::update(&cx.db, &team, &s.server, edited).await?;
    let view = servers::view(&servers::Server {
        server: saved,
        destinations: s.destinations,
    });
    cx.reply(StatusCode::OK, &view)
}

pub async fn delete_server(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    servers::delete(&cx.db, &team, &server(cx, &team).await?).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Server deleted."}))
}

pub async fn list_destinations(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &server(cx, &team).await?.destinations)
}

pub async fn create_destination(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let s = server(cx, &team).await?;
    let d = servers::add_destination(&cx.db, &team, &s, cx.json_object()?).await?;
    created(cx, &d.uuid)
}

pub async fn list_keys(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let all: Vec<Value> = ssh_keys::list(&cx.db, &team)
        .await?
        .iter()
        .map(ssh_keys::view)
        .collect();
    cx.reply(StatusCode::OK, &all)
}

pub async fn create_key(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let key = ssh_keys::parse_new(cx.json_object()?)?;
    ssh_keys::create(&cx.db, &team, &key).await?;
    created(cx, &key.uuid)
}

pub async fn get_key(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let key = ssh_keys::get(&cx.db, &team, cx.param("uuid"))
        .await?
        .ok_or_else(|| missing("Private Key"))?;
    cx.reply(StatusCode::OK, &ssh_keys::view(&key))
}

pub async fn delete_key(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let key = ssh_keys::get(&cx.db, &team, cx.param("uuid"))
        .await?
        .ok_or_else(|| missing("Private Key"))?;
    ssh_keys::delete(&cx.db, &team, &key.uuid).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Private Key deleted."}))
}

pub async fn list_provider_apps(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let all: Vec<Value> = provider_apps::list(&cx.db, &team)
        .await?
        .iter()
        .map(provider_apps::view)
        .collect();
    cx.reply(StatusCode::OK, &all)
}

pub async fn create_provider_app(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let app = provider_apps::parse_new(cx.json_object()?)?;
    provider_apps::create(&cx.db, &team, &app).await?;
    cx.reply(StatusCode::CREATED, &provider_apps::view(&app))
}

pub async fn running_deployments(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    cx.reply(StatusCode::OK, &deployments::running(&cx.db, &team).await?)
}

pub async fn get_deployment(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let d = deployments::get(&cx.db, &team, cx.param("uuid"))
        .await?
        .ok_or_else(|| missing("Deployment"))?;
    cx.reply(StatusCode::OK, &d)
}

/// Coolify's `skip` (default 0) and `take` (default 10, at most 100).
fn window(cx: &Ctx) -> Result<(usize, usize)> {
    let number = |name: &str, default: usize, max: usize| -> Result<usize> {
        match cx.query.get(name) {
            None => Ok(default),
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| *n <= max)
                .ok_or_else(|| {
                    Error::field(
                        name,
                        format!("The {name} field must be an integer between 0 and {max}."),
                    )
                }),
        }
    };
    Ok((number("skip", 0, 10_000)?, number("take", 10, 100)?))
}

pub async fn app_deployments(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let (skip, take) = window(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let list = deployments::for_app(&cx.db, &team, &app.uuid, skip, take).await?;
    cx.reply(StatusCode::OK, &list)
}
