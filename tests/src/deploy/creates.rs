//! Bodies for the application create tests.

use serde_json::{Value, json};

use super::Team;

pub const COMPOSE: &str = "services:\n  web:\n    image: nginx\n";

/// A valid body for each create endpoint.
pub fn valid(t: &Team, endpoint: &str) -> Value {
    match endpoint {
        "public" => t.public(json!({})),
        "private-deploy-key" => t.public(json!({"private_key_uuid": t.key, "git_repository": "git@github.com:acme/app.git"})),
        "dockerfile" => t.body(json!({"dockerfile": "FROM nginx\nEXPOSE 8080\n", "autogenerate_domain": false})),
        "dockerimage" => t.body(json!({"docker_registry_image_name": "nginx", "ports_exposes": "80", "autogenerate_domain": false})),
        "dockercompose" => t.body(json!({"docker_compose_raw": COMPOSE})),
        other => panic!("no body for {other}"),
    }
}

pub fn without(mut body: Value, field: &str) -> Value {
    body.as_object_mut().unwrap().remove(field);
    body
}

pub fn with(mut body: Value, field: &str, value: Value) -> Value {
    body.as_object_mut().unwrap().insert(field.into(), value);
    body
}

pub async fn count(t: &Team) -> usize {
    t.get("/applications").await.body.as_array().unwrap().len()
}
