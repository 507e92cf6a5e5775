//! App-crud function: list, read, update and delete the team's
//! applications. Reads need `read`, writes `write`; secrets show only for
//! `read:sensitive` or `root`. Also the applications' environment
//! variables (`envs.rs`).

mod envs;

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    auth::scope::Ability::{Read, Write},
    db::Action::{
        BatchGetItem, BatchWriteItem, ConditionCheckItem, DeleteItem, GetItem, PutItem, Query,
        UpdateItem,
    },
    deploy::{apps, patch, views},
    http::{
        Archived::Free, Ctx, Guard::Ability, Limits, Response, Sees, deploy_team,
        limits::ListFitter,
    },
};

/// Lambda answers at most 6 MB. A list that would be larger leaves out
/// the inline texts (Dockerfiles, compose files, labels, nginx
/// configuration), then everything but the summary, and says which in
/// `X-Omitted-Fields`; GET of one application has it all.
const LIST: Limits = Limits {
    body: 64 * 1024,
    omit: &[
        "dockerfile",
        "docker_compose_raw",
        "custom_labels",
        "custom_nginx_configuration",
    ],
    keep: &[
        "id",
        "uuid",
        "name",
        "type",
        "description",
        "fqdn",
        "build_pack",
        "status",
        "project_uuid",
        "environment_uuid",
        "environment_name",
        "environment_id",
        "server_uuid",
        "destination_uuid",
    ],
    reads: Limits::LISTING,
};

shared::routes! {
    dialect: Deploy;
    dynamodb {
        // ConditionCheckItem: variables are written only to an existing
        // application; BatchWriteItem: a deleted application's variables.
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem, ConditionCheckItem, BatchWriteItem],
        // an application's deployments
        indexes: &[Query],
        rare: &[],
    };
    GET "/api/v1/applications" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => list;
    // Coolify's resources of every type; applications are the only one
    // here, so the team's databases and services are none.
    GET "/api/v1/resources" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => resources;
    GET "/api/v1/databases" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => none_yet;
    GET "/api/v1/services" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => none_yet;
    GET "/api/v1/applications/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => get;
    PATCH "/api/v1/applications/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::FILES,
    } => update;
    DELETE "/api/v1/applications/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => delete;
    GET "/api/v1/applications/{uuid}/envs" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: ENVS,
    } => envs::list;
    POST "/api/v1/applications/{uuid}/envs" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: ENV,
    } => envs::create;
    PATCH "/api/v1/applications/{uuid}/envs" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: ENV,
    } => envs::update;
    PATCH "/api/v1/applications/{uuid}/envs/bulk" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::FILES,
    } => envs::bulk;
    DELETE "/api/v1/applications/{uuid}/envs/{env_uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => envs::delete;
}

/// One variable: a value of 32 KiB may double when escaped as JSON.
const ENV: Limits = Limits::body(80 * 1024);
/// An application's variables: at most 200, and 256 KiB of values.
const ENVS: Limits = Limits::list(&[]);

/// The team's applications by name. Each is trimmed to the route's limits
/// as it arrives, so memory holds about one response however large the
/// stored applications are.
async fn list(cx: &Ctx) -> Result<Response> {
    list_as(cx, views::application).await
}

/// `GET /resources`: the applications, each with Coolify's `type`.
async fn resources(cx: &Ctx) -> Result<Response> {
    list_as(cx, views::resource).await
}

/// The team's databases or services: this product has none yet.
async fn none_yet(cx: &Ctx) -> Result<Response> {
    deploy_team(cx)?;
    cx.reply(StatusCode::OK, &json!([]))
}

async fn list_as(cx: &Ctx, view: fn(&apps::AppRecord, bool) -> Value) -> Result<Response> {
    let team = deploy_team(cx)?;
    let mut fitter = ListFitter::new(cx.limits);
    apps::each(&cx.db, &team, |a| fitter.push(view(&a, team.sensitive))).await?;
    // Name and uuid survive every trimming stage.
    let key = |v: &Value| {
        (
            v["name"].as_str().map(str::to_owned),
            v["uuid"].as_str().map(str::to_owned),
        )
    };
    cx.reply_list(fitter.sort_by(|a, b| key(a).cmp(&key(b))))
}

async fn get(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &views::application(&app, team.sensitive))
}

async fn update(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let app = patch::patch(
        &cx.db,
        &cx.config,
        &team,
        cx.param("uuid"),
        cx.json_object()?,
    )
    .await?;
    cx.reply(StatusCode::OK, &views::application(&app, team.sensitive))
}

async fn delete(cx: &Ctx) -> Result<Response> {
    let team = deploy_team(cx)?;
    let flags = apps::cleanup_flags(|f| cx.query.get(f))?;
    apps::remove(&cx.db, &team, cx.param("uuid"), &flags).await?;
    cx.reply(
        StatusCode::OK,
        &json!({"message": "Application deletion request queued."}),
    )
}
