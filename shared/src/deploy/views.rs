//! The Application record as list, get and PATCH return it: Coolify's
//! record names (its domains in `fqdn`), the seed's names for the renamed
//! fields, every stored setting with Coolify's defaults for the unset ones,
//! and the placement by uuid. Secrets only for `read:sensitive` or `root`.

use serde_json::{Map, Value, json};

use super::{
    apps::AppRecord,
    fields::{FIELDS, Kind, Role},
};

/// Coolify's column default of a setting the client never set.
fn default_of(name: &str) -> Value {
    match name {
        "git_commit_sha" => json!("HEAD"),
        "static_image" => json!("nginx:alpine"),
        "base_directory" => json!("/"),
        "health_check_path" => json!("/"),
        "health_check_host" => json!("localhost"),
        "health_check_method" => json!("GET"),
        "health_check_return_code" => json!(200),
        "health_check_scheme" => json!("http"),
        "health_check_type" => json!("http"),
        "health_check_interval" | "health_check_timeout" | "health_check_start_period" => json!(5),
        "health_check_retries" => json!(10),
        "limits_memory" | "limits_memory_swap" | "limits_memory_reservation" | "limits_cpus" => {
            json!("0")
        }
        "limits_memory_swappiness" => json!(60),
        "limits_cpu_shares" => json!(1024),
        "redirect" => json!("both"),
        "docker_compose_location" => json!("/docker-compose.yaml"),
        "dockerfile_location" => json!("/Dockerfile"),
        "is_auto_deploy_enabled"
        | "is_force_https_enabled"
        | "is_container_label_escape_enabled" => {
            json!(true)
        }
        _ => match super::fields::field(name).map(|f| f.kind) {
            Some(Kind::Bool) => json!(false),
            _ => Value::Null,
        },
    }
}

/// The record for a caller; `sensitive` shows the secrets.
pub fn application(app: &AppRecord, sensitive: bool) -> Value {
    let mut out = Map::new();
    for f in FIELDS.iter().filter(|f| f.role == Role::Setting) {
        if f.secret && !sensitive
            || matches!(f.name, "domains" | "name" | "description" | "build_pack")
        {
            continue;
        }
        let value = app
            .settings
            .get(f.name)
            .cloned()
            .unwrap_or_else(|| default_of(f.name));
        out.insert(f.name.to_string(), value);
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
    if sensitive {
        out.insert("private_key_uuid".into(), json!(app.private_key_uuid));
    }
    Value::Object(out)
}
