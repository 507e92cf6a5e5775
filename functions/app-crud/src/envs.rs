//! An application's environment variables, in Coolify's shapes: list,
//! create, update by key, bulk upsert, delete. Values show only to
//! `read:sensitive` or `root`, never for shown-once variables.

use lambda_http::http::StatusCode;
use serde_json::json;
use shared::{
    Result,
    deploy::{apps, envs, model::env::EnvSpec, views},
    http::{Ctx, Response, deploy_team},
};

pub async fn list(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let all = envs::list(&cx.db, &team, &app.uuid).await?;
    cx.reply(
        StatusCode::OK,
        &all.iter().map(views::env).collect::<Vec<_>>(),
    )
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let spec = EnvSpec::parse(cx.json_object()?)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let env = envs::create(&cx.db, &team, &app.uuid, spec).await?;
    cx.reply(StatusCode::CREATED, &json!({"uuid": env.uuid}))
}

/// Coolify answers an update with 201 and the variable.
pub async fn update(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let spec = EnvSpec::parse(cx.json_object()?)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let env = envs::update(&cx.db, &team, &app.uuid, spec).await?;
    cx.reply(StatusCode::CREATED, &views::env(&env))
}

pub async fn bulk(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let specs = EnvSpec::parse_bulk(cx.json_object()?)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    let all = envs::bulk(&cx.db, &team, &app.uuid, specs).await?;
    cx.reply(
        StatusCode::CREATED,
        &all.iter().map(views::env).collect::<Vec<_>>(),
    )
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    envs::delete(&cx.db, &team, &app.uuid, cx.param("env_uuid")).await?;
    cx.reply(
        StatusCode::OK,
        &json!({"message": "Environment variable deleted."}),
    )
}
