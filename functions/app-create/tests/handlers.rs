//! In-process handler tests for the application creates, each on a table
//! of its own. The placement is made straight through `shared::deploy`.

use app_create::Api;
use serde_json::{Value, json};
use shared::{
    deploy::{Team, apps, projects, servers, ssh_keys},
    http::App,
    testing,
};

const PEM: &str = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==\n-----END OPENSSH PRIVATE KEY-----\n";

/// A team `ada` with a root token, a key, a server and a project.
async fn setup() -> (App, String, Team, Value) {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "ada", false, &["root"]).await;
    let team = Team {
        name: "ada".into(),
        sensitive: true,
        can_deploy: true,
    };
    let mut body = serde_json::Map::new();
    body.insert("name".into(), json!("k"));
    body.insert("private_key".into(), json!(PEM));
    let key = ssh_keys::parse_new(body).unwrap();
    ssh_keys::create(&app.db, &team, &key).await.unwrap();
    let server = servers::parse(
        json!({"name": "s", "ip": "198.51.100.4", "private_key_uuid": key.uuid})
            .as_object()
            .unwrap()
            .clone(),
        None,
    )
    .unwrap();
    let server = servers::create(&app.db, &team, server).await.unwrap();
    let project = projects::create(&app.db, &team, "p".into(), None)
        .await
        .unwrap();
    let placement = json!({
        "project_uuid": project.uuid,
        "server_uuid": server.uuid,
        "environment_name": "production",
    });
    (app, token, team, placement)
}

fn with(mut base: Value, fields: Value) -> Value {
    base.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    base
}

#[tokio::test]
async fn an_image_create_stores_the_application() {
    let (app, token, team, placement) = setup().await;
    let body = with(
        placement,
        json!({"docker_registry_image_name": "ghcr.io/a/b:2", "ports_exposes": "80"}),
    );
    let (status, created) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/applications/dockerimage",
        Some(&token),
        Some(body),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let uuid = created["uuid"].as_str().unwrap();
    assert_eq!(
        created["domains"],
        json!(format!("http://{uuid}.198.51.100.4.sslip.io"))
    );
    let stored = apps::get(&app.db, &team, uuid).await.unwrap();
    assert_eq!(
        stored.setting_str("docker_registry_image_name"),
        Some("ghcr.io/a/b")
    );
    assert_eq!(stored.setting_str("docker_registry_image_tag"), Some("2"));
    assert_eq!(stored.build_pack, "dockerimage");
}

#[tokio::test]
async fn credentials_and_abilities_come_first() {
    let (app, _, _, placement) = setup().await;
    let (_, reader) = testing::seed_user(&app, "rob", false, &["read"]).await;
    let path = "/api/v1/applications/public";
    let (status, body) =
        testing::call::<Api>(&app, "POST", path, None, Some(placement.clone())).await;
    assert_eq!(
        (status, body),
        (401, json!({"message": "Unauthenticated."}))
    );
    let (status, body) =
        testing::call::<Api>(&app, "POST", path, Some(&reader), Some(placement)).await;
    assert_eq!(
        (status, body),
        (
            403,
            json!({"message": "Missing required permissions: write"})
        )
    );
}

#[tokio::test]
async fn instant_deploy_needs_the_deploy_ability() {
    let (app, _, _, placement) = setup().await;
    let (_, writer) = testing::seed_user(&app, "wes", false, &["write"]).await;
    let body = with(
        placement,
        json!({"dockerfile": "FROM nginx", "instant_deploy": true}),
    );
    let (status, body) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/applications/dockerfile",
        Some(&writer),
        Some(body),
    )
    .await;
    assert_eq!(
        (status, body),
        (
            403,
            json!({"message": "Missing required permissions: deploy"})
        )
    );
}
