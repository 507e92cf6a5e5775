//! App-crud function: list, read, update and delete the team's
//! applications. Reads need `read`, writes `write`; secrets show only for
//! `read:sensitive` or `root`.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Error, Result,
    auth::scope::Ability::{Read, Write},
    deploy::{Team, apps, patch, views},
    http::{Ctx, Guard::Ability, Response},
};

shared::routes! {
    dialect: Deploy;
    GET "/api/v1/applications" Ability(Read) => list;
    GET "/api/v1/applications/{uuid}" Ability(Read) => get;
    PATCH "/api/v1/applications/{uuid}" Ability(Write) => update;
    DELETE "/api/v1/applications/{uuid}" Ability(Write) => delete;
}

/// Lambda answers at most 6 MB. A list that would be larger (inline
/// Dockerfiles and compose files of many applications) leaves those texts
/// out, says so in `X-Omitted-Fields`, and GET of one application has them.
const MAX_LIST_BYTES: usize = 5_000_000;
const LARGE_TEXTS: [&str; 2] = ["dockerfile", "docker_compose_raw"];

async fn list(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let mut all: Vec<Value> = apps::list(&cx.db, &team)
        .await?
        .iter()
        .map(|a| views::application(a, team.sensitive))
        .collect();
    let size = serde_json::to_vec(&all).map_or(0, |b| b.len());
    if size <= MAX_LIST_BYTES {
        return cx.reply(StatusCode::OK, &all);
    }
    for app in &mut all {
        if let Some(fields) = app.as_object_mut() {
            LARGE_TEXTS.iter().for_each(|f| {
                fields.remove(*f);
            });
        }
    }
    let mut res = cx.reply(StatusCode::OK, &all)?;
    res.headers_mut().insert(
        "x-omitted-fields",
        lambda_http::http::HeaderValue::from_static("dockerfile,docker_compose_raw"),
    );
    Ok(res)
}

async fn get(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
    cx.reply(StatusCode::OK, &views::application(&app, team.sensitive))
}

async fn update(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
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

/// The four cleanup flags: `true` or `false`, default true.
const FLAGS: [&str; 4] = [
    "delete_configurations",
    "delete_volumes",
    "docker_cleanup",
    "delete_connected_networks",
];

async fn delete(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let mut flags = Vec::new();
    let mut problems = shared::deploy::fields::Problems::default();
    for flag in FLAGS {
        match cx.query.get(flag) {
            None | Some("true") => flags.push((flag, true)),
            Some("false") => flags.push((flag, false)),
            Some(_) => problems.add(flag, format!("The {flag} field must be true or false.")),
        }
    }
    problems.into_result()?;
    // A concurrent edit changes the version: read again and retry; a
    // concurrent delete leaves nothing to read (404).
    let mut attempt = 0;
    loop {
        let app = apps::get(&cx.db, &team, cx.param("uuid")).await?;
        match apps::delete(&cx.db, &team, &app, &flags).await {
            Err(Error::Conflict(_)) if attempt < 3 => attempt += 1,
            other => break other?,
        }
    }
    cx.reply(
        StatusCode::OK,
        &json!({"message": "Application deletion request queued."}),
    )
}
