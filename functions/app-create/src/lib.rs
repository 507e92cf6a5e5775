//! App-create function: the six ways to create an application (public
//! repository, repository through a provider app or a deploy key, inline
//! Dockerfile, prebuilt image, inline compose file), plus Coolify's name
//! `private-github-app` for the provider-app create. All need `write`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    auth::scope::Ability::Write,
    deploy::{Team, create, fields::Endpoint},
    http::{Ctx, Guard::Ability, Response},
};

shared::routes! {
    dialect: Deploy;
    POST "/api/v1/applications/public" Ability(Write) => public;
    POST "/api/v1/applications/private-provider-app" Ability(Write) => provider_app;
    POST "/api/v1/applications/private-github-app" Ability(Write) => provider_app;
    POST "/api/v1/applications/private-deploy-key" Ability(Write) => deploy_key;
    POST "/api/v1/applications/dockerfile" Ability(Write) => dockerfile;
    POST "/api/v1/applications/dockerimage" Ability(Write) => docker_image;
    POST "/api/v1/applications/dockercompose" Ability(Write) => docker_compose;
}

async fn create_as(cx: &Ctx, endpoint: Endpoint) -> Result<Response> {
    let team = Team::of(cx)?;
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
