//! Handlers of the infra routes: read the team, call `shared::deploy`,
//! reply.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    deploy::{
        app_logs, apps,
        deployments::{self, Action, Trigger},
        projects, provider_apps, runners,
        runs::{self, logs},
        servers, ssh_keys, teams, triggers, views,
    },
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

/// Coolify answers a project's PATCH with 201 and its `{uuid, name,
/// description}`.
pub async fn update_project(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let edit = projects::parse_edit(cx.json_object()?)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    let saved = projects::update(&cx.db, &team, &p, edit).await?;
    let body = json!({"uuid": saved.uuid, "name": saved.name, "description": saved.description});
    cx.reply(StatusCode::CREATED, &body)
}

pub async fn delete_environment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let p = projects::find(&cx.db, &team, cx.param("uuid")).await?;
    let wanted = cx.param("environment_name_or_uuid");
    projects::delete_environment(&cx.db, &team, &p, wanted).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Environment deleted."}))
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

/// A token acts for one team: Coolify's list of the user's teams is it.
pub async fn list_teams(cx: &Ctx) -> Result<Response> {
    let account = teams::account(&cx.db, &deploy_team(cx)?).await?;
    cx.reply(StatusCode::OK, &json!([teams::view(&account)]))
}

pub async fn current_team(cx: &Ctx) -> Result<Response> {
    let account = teams::account(&cx.db, &deploy_team(cx)?).await?;
    cx.reply(StatusCode::OK, &teams::view(&account))
}

pub async fn current_team_members(cx: &Ctx) -> Result<Response> {
    let account = teams::account(&cx.db, &deploy_team(cx)?).await?;
    cx.reply(StatusCode::OK, &teams::members(&cx.db, &account).await?)
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

/// The server; with `?resources=true` (coolify-cli's `server get
/// --resources`) also what runs on it, as `/servers/{uuid}/resources` lists.
pub async fn get_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let with_resources = flag(cx, "resources", false)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let mut v = views::server(&s);
    if with_resources {
        let on = apps::on_server(&cx.db, &team, &s.server.uuid).await?;
        v["resources"] = on.iter().map(views::server_resource).collect();
    }
    cx.reply(StatusCode::OK, &v)
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

/// Coolify answers a key's PATCH with 201 and its `{uuid}`.
pub async fn update_key(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let edit = ssh_keys::parse_edit(cx.json_object()?)?;
    let key = ssh_keys::find(&cx.db, &team, cx.param("uuid")).await?;
    ssh_keys::update(&cx.db, &team, &key, edit).await?;
    created(cx, &key.uuid)
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
    let all = deployments::running(&cx.db, &team).await?;
    cx.reply(
        StatusCode::OK,
        &all.iter().map(views::deployment).collect::<Vec<Value>>(),
    )
}

/// One deployment; its log as Coolify shows it, to tokens that may read
/// secrets (as Coolify hides it from the others).
pub async fn get_deployment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let d = deployments::find(&cx.db, &team, cx.param("uuid")).await?;
    let mut v = views::deployment(&d);
    if team.sensitive {
        v["logs"] = json!(logs::shown(&cx.db, &d.deployment_uuid).await?);
    }
    cx.reply(StatusCode::OK, &v)
}

/// Coolify's `{count, deployments}`, newest first.
pub async fn app_deployments(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let (skip, take) = deployments::window(cx.query.get("skip"), cx.query.get("take"))?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let (list, count) = tokio::try_join!(
        deployments::for_app(&cx.db, &team, &app.uuid, skip, take),
        deployments::count_for_app(&cx.db, &team, &app.uuid),
    )?;
    let list: Vec<Value> = list.iter().map(views::deployment).collect();
    cx.reply(
        StatusCode::OK,
        &json!({"count": count, "deployments": list}),
    )
}

/// `/deploy`, GET or POST (whose body may carry the same fields).
pub async fn deploy(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let body = cx.json_object_if_any()?;
    let req = triggers::parse_deploy(|k| cx.query.get(k), body.as_ref())?;
    let answer = triggers::deploy(&cx.db, &cx.config, &team, req).await?;
    cx.reply(StatusCode::OK, &answer)
}

async fn act(cx: &Ctx, trigger: Trigger) -> Result<Response> {
    let team = deploy_team(cx)?;
    let d = triggers::act(&cx.db, &cx.config, &team, cx.param("uuid"), trigger).await?;
    cx.reply(StatusCode::OK, &triggers::answer(&d))
}

fn flag(cx: &Ctx, name: &str, default: bool) -> Result<bool> {
    let mut problems = shared::deploy::model::input::Problems::default();
    let on = triggers::flag(name, cx.query.get(name), default, &mut problems);
    problems.into_result()?;
    Ok(on)
}

pub async fn start(cx: &Ctx) -> Result<Response> {
    let trigger = Trigger {
        force_rebuild: flag(cx, "force", false)?,
        ..Trigger::default()
    };
    act(cx, trigger).await
}

pub async fn restart(cx: &Ctx) -> Result<Response> {
    let trigger = Trigger {
        action: Action::Restart,
        ..Trigger::default()
    };
    act(cx, trigger).await
}

pub async fn stop(cx: &Ctx) -> Result<Response> {
    let trigger = Trigger {
        action: Action::Stop,
        docker_cleanup: Some(flag(cx, "docker_cleanup", true)?),
        ..Trigger::default()
    };
    act(cx, trigger).await
}

pub async fn cancel_deployment(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let d = runs::cancel(&cx.db, &cx.config, &team, cx.param("uuid")).await?;
    cx.reply(
        StatusCode::OK,
        &json!({
            "message": "Deployment cancelled successfully.",
            "deployment_uuid": d.deployment_uuid,
            "status": d.status,
        }),
    )
}

pub async fn create_runner(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let name = runners::parse_new(cx.json_object()?)?;
    let made = runners::create(&cx.db, &team, &s.server.uuid, name).await?;
    cx.reply(StatusCode::CREATED, &made)
}

pub async fn list_runners(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(
        StatusCode::OK,
        &runners::list(&cx.db, &team, &s.server.uuid).await?,
    )
}

pub async fn revoke_runner(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    runners::revoke(&cx.db, &team, &s.server.uuid, cx.param("runner_uuid")).await?;
    cx.reply(StatusCode::OK, &json!({"message": "Runner revoked."}))
}

/// Coolify's `{"logs": ...}` of the running container, as its server's
/// runner last sent them (docs/deploy-runner.md, "Application logs").
pub async fn app_logs(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let ask = app_logs::Ask::parse(cx.query.get("lines"), cx.query.get("show_timestamps"))?;
    let logs = app_logs::read(&cx.db, &team, &app, ask).await?;
    cx.reply(StatusCode::OK, &json!({ "logs": logs }))
}

/// Coolify's short list of what runs on the server.
pub async fn server_resources(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let on = apps::on_server(&cx.db, &team, &s.server.uuid).await?;
    cx.reply(
        StatusCode::OK,
        &on.iter().map(views::server_resource).collect::<Vec<_>>(),
    )
}

pub async fn server_domains(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let on = apps::on_server(&cx.db, &team, &s.server.uuid).await?;
    cx.reply(StatusCode::OK, &views::server_domains(&s, &on))
}

/// Coolify's validate (201, as it answers "Validation started."), told
/// from what the server's runners reported.
pub async fn validate_server(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    runners::parse_validate(cx.json_object_if_any()?)?;
    let s = servers::find(&cx.db, &team, cx.param("uuid")).await?;
    let answer = runners::validate(&cx.db, &team, &s.server.uuid).await?;
    cx.reply(StatusCode::CREATED, &answer)
}
