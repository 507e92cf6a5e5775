//! In-process handler tests for the application creates, each on a table
//! of its own. The placement is made straight through `shared::deploy`.

use app_create::Api;
use serde_json::{Value, json};
use shared::{deploy::apps, testing};

fn with(mut base: Value, fields: Value) -> Value {
    if let (Some(b), Some(f)) = (base.as_object_mut(), fields.as_object()) {
        b.extend(f.clone());
    }
    base
}

#[tokio::test]
async fn an_image_create_stores_the_application() {
    let app = testing::app().await;
    let (token, team, placement) = testing::deploy_team(&app, "ada", &["root"]).await;
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
        json!(format!("http://{uuid}.203.0.113.7.sslip.io"))
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
    let app = testing::app().await;
    let (_, _, placement) = testing::deploy_team(&app, "ada", &["root"]).await;
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
    let app = testing::app().await;
    let (writer, _, placement) = testing::deploy_team(&app, "wes", &["write"]).await;
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

#[tokio::test]
async fn a_body_that_is_not_utf8_is_a_400_and_creates_nothing() {
    let app = testing::app().await;
    let (token, team, _) = testing::deploy_team(&app, "utf", &["root"]).await;
    let bad = [b'{', b'"', 0xc3, 0x28, b'"', b':', b'1', b'}'];
    let req = testing::base64_event("POST", "/api/v1/applications/dockerimage", &token, &bad);
    let (status, body) = testing::parts(&shared::http::handle::<Api>(&app, req).await);
    assert_eq!(status, 400, "{body}");
    assert!(apps::list(&app.db, &team).await.unwrap().is_empty());
}
