//! App-create function: the six ways to create an application (public
//! repository, repository through a provider app or a deploy key, inline
//! Dockerfile, prebuilt image, inline compose file), plus Coolify's name
//! `private-github-app` for the provider-app create. All need `write`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    auth::scope::Ability::Write,
    db::Action::{BatchGetItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
    deploy::{create, model::fields::Endpoint},
    http::{Archived::Free, Ctx, Guard::Ability, Limits, Response, Sees, deploy_team},
};

shared::routes! {
    dialect: Deploy;
    dynamodb {
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem],
        indexes: &[],
        rare: &[(
            DeleteItem,
            "only to release an Idempotency-Key after a 5xx (shared/src/http/idempotency.rs)",
        )],
    };
    POST "/api/v1/applications/public" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => public;
    POST "/api/v1/applications/private-provider-app" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => provider_app;
    POST "/api/v1/applications/private-github-app" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => provider_app;
    POST "/api/v1/applications/private-deploy-key" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => deploy_key;
    POST "/api/v1/applications/dockerfile" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => dockerfile;
    POST "/api/v1/applications/dockerimage" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => docker_image;
    POST "/api/v1/applications/dockercompose" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::FILES,
    } => docker_compose;
}

async fn create_as(cx: &Ctx, endpoint: Endpoint) -> Result<Response> {
    let team = deploy_team(cx)?;
    let created = create::create(&cx.db, &cx.config, &team, endpoint, cx.json_object()?).await?;
    cx.reply(StatusCode::CREATED, &created)
}

async fn public(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::Public).await
}

async fn provider_app(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::ProviderApp).await
}

async fn deploy_key(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::DeployKey).await
}

async fn dockerfile(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::Dockerfile).await
}

async fn docker_image(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::DockerImage).await
}

async fn docker_compose(cx: &Ctx) -> Result<Response> {
    create_as(cx, Endpoint::DockerCompose).await
}
