//! Docs function: the OpenAPI document of this API, as Gitea serves its
//! own at `/swagger.v1.json`, with `servers` naming this deployment, and
//! the Swagger UI page that renders it at `/api/swagger` ([`ui`]).

pub mod ui;

use std::sync::OnceLock;

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Result,
    http::{Archived::Free, Ctx, Guard::Open, Limits, Response, Sees::Nothing},
};

/// docs/openapi.yaml, as JSON (build.rs).
const OPENAPI: &str = include_str!(concat!(env!("OUT_DIR"), "/openapi.json"));

shared::routes! {
    dialect: Tracker;
    // Static pages: no table access (nor credentials to look up).
    dynamodb {
        table: &[],
        indexes: &[],
        rare: &[],
    };
    GET "/swagger.v1.json" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => swagger_json;
    GET "/api/swagger" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => ui::page;
    GET "/api/swagger/assets/{name}" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => ui::asset;
}

/// The parsed document, once per instance.
static DOCUMENT: OnceLock<Value> = OnceLock::new();

/// The document, its server being the root URL the request came in by.
pub async fn swagger_json(cx: &Ctx) -> Result<Response> {
    // build.rs wrote this JSON with serde_json; it always parses.
    let mut doc = DOCUMENT
        .get_or_init(|| serde_json::from_str(OPENAPI).unwrap_or_default())
        .clone();
    let root = cx.config.root_url.as_str().trim_end_matches('/');
    doc["servers"] = json!([{ "url": root, "description": "this deployment" }]);
    cx.reply(StatusCode::OK, &doc)
}
