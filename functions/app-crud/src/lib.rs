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

/// Lambda answers at most 6 MB. A list that would be larger leaves out,
/// step by step, the inline texts (Dockerfiles, compose files, labels,
/// nginx configuration), then everything but the summary, says which in
/// `X-Omitted-Fields`; GET of one application has it all.
const MAX_LIST_BYTES: usize = 5_000_000;
const LARGE_TEXTS: [&str; 4] = [
    "dockerfile",
    "docker_compose_raw",
    "custom_labels",
    "custom_nginx_configuration",
];
const SUMMARY: [&str; 11] = [
    "uuid",
    "name",
    "description",
    "fqdn",
    "build_pack",
    "status",
    "project_uuid",
    "environment_uuid",
    "environment_name",
    "server_uuid",
    "destination_uuid",
];

fn too_large(list: &[Value]) -> bool {
    serde_json::to_vec(list).map_or(0, |b| b.len()) > MAX_LIST_BYTES
}

async fn list(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let mut all: Vec<Value> = apps::list(&cx.db, &team)
        .await?
        .iter()
        .map(|a| views::application(a, team.sensitive))
        .collect();
    if !too_large(&all) {
        return cx.reply(StatusCode::OK, &all);
    }
    let mut omitted = "dockerfile,docker_compose_raw,custom_labels,custom_nginx_configuration";
    for app in all.iter_mut().filter_map(Value::as_object_mut) {
        LARGE_TEXTS.iter().for_each(|f| {
            app.remove(*f);
        });
    }
    if too_large(&all) {
        omitted = "all but the summary fields";
        for app in all.iter_mut().filter_map(Value::as_object_mut) {
            app.retain(|k, _| SUMMARY.contains(&k.as_str()));
        }
    }
    let mut res = cx.reply(StatusCode::OK, &all)?;
    res.headers_mut().insert(
        "x-omitted-fields",
        lambda_http::http::HeaderValue::from_static(omitted),
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
