//! In-process handler tests for projects and servers, each on a table of
//! its own.

use infra::Api;
use serde_json::json;
use shared::testing;

#[tokio::test]
async fn a_new_project_has_a_production_environment() {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "kai", false, &["root"]).await;
    let (status, created) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/projects",
        Some(&token),
        Some(json!({"name": "shop"})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let uri = format!(
        "/api/v1/projects/{}/production",
        created["uuid"].as_str().unwrap()
    );
    let (status, env) = testing::call::<Api>(&app, "GET", &uri, Some(&token), None).await;
    assert_eq!((status, env["name"].as_str()), (200, Some("production")));
    assert_eq!(env["project_uuid"], created["uuid"]);
}

#[tokio::test]
async fn a_server_needs_a_key_of_the_team() {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "kai", false, &["root"]).await;
    let body = json!({"name": "s", "ip": "198.51.100.4", "private_key_uuid": "00000000-0000-4000-8000-000000000000"});
    let (status, body) =
        testing::call::<Api>(&app, "POST", "/api/v1/servers", Some(&token), Some(body)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"]["private_key_uuid"],
        json!(["Private Key not found."])
    );
    let (status, list) =
        testing::call::<Api>(&app, "GET", "/api/v1/servers", Some(&token), None).await;
    assert_eq!((status, list), (200, json!([])));
}
