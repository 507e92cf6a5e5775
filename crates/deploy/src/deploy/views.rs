//! The Coolify JSON of each deploy record. The Application record as
//! list, get and PATCH return it: Coolify's
//! record names (its domains in `fqdn`), the seed's names for the renamed
//! fields, every stored setting with Coolify's defaults for the unset ones,
//! and the placement by uuid. Secrets only for `read:sensitive` or `root`.

use serde_json::{Map, Value, json};

use super::{
    deployments::DeploymentRecord,
    model::{
        app::AppRecord,
        fields::{FIELDS, Role},
    },
    projects::Project,
    provider_apps::ProviderAppRecord,
    servers::Server,
    ssh_keys::KeyRecord,
};

/// The record for a caller; `sensitive` shows the secrets.
pub fn application(app: &AppRecord, sensitive: bool) -> Value {
    let mut out = Map::new();
    for f in FIELDS.iter().filter(|f| f.role == Role::Setting) {
        if f.secret && !sensitive {
            continue;
        }
        out.insert(f.name.to_string(), app.settings.shown(f));
    }
    // Coolify keeps compose domains as a JSON text of {service: {domain}}.
    let compose: Map<String, Value> = app
        .settings
        .get("docker_compose_domains")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| {
            Some((
                i.get("name")?.as_str()?.to_string(),
                json!({"domain": i.get("domain")}),
            ))
        })
        .collect();
    out.insert(
        "docker_compose_domains".into(),
        if compose.is_empty() {
            Value::Null
        } else {
            Value::String(Value::Object(compose).to_string())
        },
    );
    let placement = json!({
        "uuid": app.uuid,
        "name": app.name,
        "description": app.description,
        "fqdn": app.fqdn,
        "build_pack": app.build_pack,
        "source": app.source,
        "project_uuid": app.project_uuid,
        "environment_uuid": app.environment_uuid,
        "environment_name": app.environment_name,
        "server_uuid": app.server_uuid,
        "destination_uuid": app.destination_uuid,
        "provider_app_uuid": app.provider_app_uuid,
        "status": app.status,
        "created_at": app.created_at,
        "updated_at": app.updated_at,
    });
    if let Value::Object(p) = placement {
        out.extend(p);
    }
    // Coolify's numeric ids, when the record has them (see `store::ids`):
    // absent rather than 0 or null, so no client matches two unknowns.
    for (name, id) in [("id", app.id), ("environment_id", app.environment_id)] {
        if let Some(id) = id {
            out.insert(name.into(), json!(id));
        }
    }
    if sensitive {
        out.insert("private_key_uuid".into(), json!(app.private_key_uuid));
    }
    Value::Object(out)
}

/// An application as `GET /resources` lists it: the record, with Coolify's
/// resource `type`.
pub fn resource(app: &AppRecord, sensitive: bool) -> Value {
    let mut v = application(app, sensitive);
    v["type"] = json!("application");
    v
}

/// An application as `GET /servers/{uuid}/resources` lists it (Coolify's
/// short form; `id` once it has one).
pub fn server_resource(app: &AppRecord) -> Value {
    let mut v = json!({
        "uuid": app.uuid,
        "name": app.name,
        "type": "application",
        "created_at": app.created_at,
        "updated_at": app.updated_at,
        "status": app.status,
    });
    if let Some(id) = app.id {
        v["id"] = json!(id);
    }
    v
}

/// `GET /servers/{uuid}/domains`: the server's address and the hosts its
/// applications answer on (each once, sorted, without scheme or path).
pub fn server_domains(server: &Server, apps: &[AppRecord]) -> Value {
    let hosts: std::collections::BTreeSet<String> = apps
        .iter()
        .filter_map(|a| a.fqdn.as_deref())
        .flat_map(|f| f.split(','))
        .filter_map(|d| url::Url::parse(d.trim()).ok())
        .filter_map(|u| u.host_str().map(str::to_owned))
        .collect();
    json!([{ "ip": server.server.ip, "domains": hosts }])
}

/// The project as Coolify shows it, with its environments.
pub fn project(p: &Project) -> Value {
    let mut v = serde_json::to_value(&p.project).unwrap_or_default();
    v["environments"] = serde_json::to_value(&p.environments).unwrap_or_default();
    v
}

pub fn server(s: &Server) -> Value {
    let mut v = serde_json::to_value(&s.server).unwrap_or_default();
    v["destinations"] = serde_json::to_value(&s.destinations).unwrap_or_default();
    v
}

/// The app without its secrets.
pub fn provider_app(a: &ProviderAppRecord) -> Value {
    json!({
        "uuid": a.uuid,
        "name": a.name,
        "organization": a.organization,
        "api_url": a.api_url,
        "html_url": a.html_url,
        "custom_user": a.custom_user,
        "custom_port": a.custom_port,
        "app_id": a.app_id,
        "installation_id": a.installation_id,
        "client_id": a.client_id,
        "private_key_uuid": a.private_key_uuid,
        "is_system_wide": false,
        "created_at": a.created_at,
        "updated_at": a.updated_at,
    })
}

/// The key without its secret.
pub fn key(k: &KeyRecord) -> Value {
    json!({
        "uuid": k.uuid,
        "name": k.name,
        "description": k.description,
        "digest": k.digest,
        "is_git_related": false,
        "created_at": k.created_at,
        "updated_at": k.updated_at,
    })
}

/// An environment variable as Coolify shows it. `value` and `real_value`
/// (the same here: there are no shared variables to resolve) only when
/// the caller may see them ([`super::envs::Shown`]).
pub fn env(e: &super::envs::Shown) -> Value {
    let r = &e.record;
    let mut v = json!({
        "uuid": r.uuid,
        "key": r.key,
        "is_preview": r.is_preview,
        "is_literal": r.is_literal,
        "is_multiline": r.is_multiline,
        "is_shown_once": r.is_shown_once,
        "is_runtime": r.is_runtime,
        "is_buildtime": r.is_buildtime,
        "is_shared": false,
        "is_required": false,
        "comment": r.comment,
        "order": null,
        "application_uuid": r.application_uuid,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
    });
    if let Some(value) = &e.value {
        v["value"] = json!(value);
        v["real_value"] = json!(value);
    }
    v
}

/// A deployment as Coolify shows it: the record without its log's
/// counters. `logs` (Coolify's JSON text of lines, `null` before any) is
/// added by the reads that show it.
pub fn deployment(d: &DeploymentRecord) -> Value {
    let mut v = serde_json::to_value(d).unwrap_or_default();
    if let Value::Object(m) = &mut v {
        m.remove("log_lines");
        m.remove("log_bytes");
    }
    v
}
