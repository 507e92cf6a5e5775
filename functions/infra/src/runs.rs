//! Handlers of the runner protocol (`/runner/v1/...`): the router has
//! already identified the runner by its credential; each call acts for
//! the runner's server alone.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    deploy::{
        cleanups, runners,
        runs::{self, claim, logs},
    },
    http::{Ctx, Response, runner_of},
};

pub async fn claim(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    runners::seen(&cx.db, runner).await?;
    match claim::claim(&cx.db, &cx.config, runner, &team).await? {
        Some(job) => cx.reply(StatusCode::OK, &job),
        None => cx.no_content(),
    }
}

pub async fn heartbeat(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    let cancel = runs::heartbeat(&cx.db, &cx.config, &team, runner, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &json!({ "cancel": cancel }))
}

pub async fn logs(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    let lines = logs::parse(&Value::Object(cx.json_object()?))?;
    let done = logs::append(&cx.db, &cx.config, &team, runner, cx.param("uuid"), &lines).await?;
    cx.reply(
        StatusCode::OK,
        &json!({"accepted": done.accepted, "dropped": done.dropped, "cancel": done.cancel}),
    )
}

pub async fn end(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    let (outcome, error) = runs::parse_end(&cx.json_object()?)?;
    let d = runs::end(
        &cx.db,
        &cx.config,
        &team,
        runner,
        cx.param("uuid"),
        outcome,
        error.as_deref(),
    )
    .await?;
    cx.reply(StatusCode::OK, &json!({ "status": d.status }))
}

pub async fn claim_cleanup(cx: &Ctx) -> Result<Response> {
    let (runner, _) = runner_of(cx)?;
    runners::seen(&cx.db, runner).await?;
    match cleanups::claim(&cx.db, &runner.server_uuid, &runner.runner_uuid).await? {
        Some(job) => cx.reply(StatusCode::OK, &job),
        None => cx.no_content(),
    }
}

pub async fn cleanup_done(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    cleanups::done(
        &cx.db,
        &team,
        &runner.server_uuid,
        &runner.runner_uuid,
        cx.param("id"),
    )
    .await?;
    cx.reply(StatusCode::OK, &json!({"message": "Cleanup done."}))
}
