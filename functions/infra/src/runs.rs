//! Handlers of the runner protocol (`/runner/v1/...`): the router has
//! already identified the runner by its credential; each call acts for
//! the runner's server alone.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    deploy::{
        app_logs, apps, cleanups, runners,
        runs::{self, claim, logs},
    },
    http::{Ctx, Response, runner_of},
};

pub async fn claim(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    runners::seen(&cx.db, runner).await?;
    let asks = match app_logs::reads_asks(cx.json_object_if_any()?)? {
        true => app_logs::asks_for(&cx.db, runner, &team).await?,
        false => Vec::new(),
    };
    match claim::claim(&cx.db, &cx.config, runner, &team).await? {
        Some(mut job) if !asks.is_empty() => {
            job["log_requests"] = Value::from(asks);
            cx.reply(StatusCode::OK, &job)
        }
        Some(job) => cx.reply(StatusCode::OK, &job),
        None if !asks.is_empty() => cx.reply(StatusCode::OK, &json!({ "log_requests": asks })),
        None => cx.no_content(),
    }
}

/// The lines of an application's container its runner was asked for.
pub async fn app_logs(cx: &Ctx) -> Result<Response> {
    let (runner, team) = runner_of(cx)?;
    let sent = app_logs::Sent::parse(&cx.json_object()?)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    app_logs::keep(&cx.db, &team, runner, &app, sent).await?;
    cx.reply(StatusCode::OK, &json!({ "kept": true }))
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
