//! App-crud function: list, read, update and delete the team's
//! applications. Reads need `read`, writes `write`; secrets show only for
//! `read:sensitive` or `root`.

use lambda_http::http::StatusCode;
use serde_json::{Value, json};
use shared::{
    Error, Result,
    auth::scope::Ability::{Read, Write},
    deploy::{Team, apps, patch, views},
    http::{Ctx, Guard::Ability, Limits, Response, Sees, limits::ListFitter},
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
    ],
};

shared::routes! {
    dialect: Deploy;
    GET "/api/v1/applications" {
        guard: Ability(Read), sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => list;
    GET "/api/v1/applications/{uuid}" {
        guard: Ability(Read), sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => get;
    PATCH "/api/v1/applications/{uuid}" {
        guard: Ability(Write), sees: Sees::DEPLOY, idempotent: false, limits: Limits::FILES,
    } => update;
    DELETE "/api/v1/applications/{uuid}" {
        guard: Ability(Write), sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => delete;
}

/// The team's applications by name. Each is trimmed to the route's limits
/// as it arrives, so memory holds about one response however large the
/// stored applications are.
async fn list(cx: &Ctx) -> Result<Response> {
    let team = Team::of(cx)?;
    let mut fitter = ListFitter::new(cx.limits);
    apps::each(&cx.db, &team, |a| {
        fitter.push(views::application(&a, team.sensitive))
    })
    .await?;
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
