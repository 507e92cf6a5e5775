//! What clients ask before anything else: the version, the paging
//! settings, and whether the service is up. None of them reads the table
//! (a token sent along is still checked, as on every route).

use lambda_http::http::StatusCode;
use serde_json::json;
use shared::{
    Result,
    http::{Ctx, Response, response},
};

/// The Gitea version we answer as: the Go SDK (and `tea`) compares it to
/// enable features, and 1.25 has every endpoint this API serves.
pub const GITEA_VERSION: &str = "1.25.0";
/// What Coolify's `GET /version` says, for its clients.
pub const COOLIFY_VERSION: &str = "v4.0.0";

/// Coolify's text for a Coolify client's token (abilities and no Gitea
/// scope), Gitea's JSON for everyone else.
pub async fn version(cx: &Ctx) -> Result<Response> {
    let scopes = cx.caller.principal().and_then(|p| p.scopes());
    if scopes.is_some_and(|s| s.deploy_only()) {
        return Ok(response::text(
            StatusCode::OK,
            "text/html; charset=UTF-8",
            COOLIFY_VERSION,
        ));
    }
    cx.reply(StatusCode::OK, &json!({ "version": GITEA_VERSION }))
}

/// Gitea's `GeneralAPISettings`, with the paging numbers every list uses.
pub async fn api_settings(cx: &Ctx) -> Result<Response> {
    let body = json!({
        "max_response_items": cx.config.max_page_size,
        "default_paging_num": cx.config.default_page_size,
        "default_git_trees_per_page": 1000,
        "default_max_blob_size": 10_485_760,
        "default_max_response_size": 6_000_000,
    });
    cx.reply(StatusCode::OK, &body)
}

/// Coolify's health check: the function answers, so the API is up.
pub async fn health(_cx: &Ctx) -> Result<Response> {
    Ok(response::text(
        StatusCode::OK,
        "text/html; charset=UTF-8",
        "OK",
    ))
}

/// Gitea's `/api/healthz` shape, without database checks: a request that
/// reaches a function is served; the database's own health is CloudWatch's
/// to watch, and a health probe should cost nothing.
pub async fn healthz(_cx: &Ctx) -> Result<Response> {
    let body = json!({
        "status": "pass",
        "description": "Serverless Forge",
        "checks": {},
    });
    let mut res = response::json(shared::http::Dialect::Tracker, StatusCode::OK, &body);
    res.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("application/health+json"),
    );
    Ok(res)
}
