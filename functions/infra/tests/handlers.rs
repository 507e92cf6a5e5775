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

/// A team holds at most 1,000 projects (and as many of each other kind), so
/// Coolify's unpaged lists always fit one response. The count is kept in
/// the create and delete transactions.
#[tokio::test]
async fn a_team_holds_at_most_a_thousand_of_each_kind() {
    use shared::deploy::store::quota::{COUNTS_SK, MAX_PER_TEAM};
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "qua", false, &["root"]).await;
    let create = || {
        testing::call::<Api>(
            &app,
            "POST",
            "/api/v1/projects",
            Some(&token),
            Some(json!({"name": "p"})),
        )
    };
    let (status, first) = create().await;
    assert_eq!(status, 201, "{first}");
    let counts = shared::db::keys::deploy("qua", COUNTS_SK);
    let stored = |item: Option<shared::db::Item>| {
        item.and_then(|i| i.get("projects").and_then(|v| v.as_n().ok()).cloned())
    };
    assert_eq!(
        stored(app.db.get(counts.clone()).await.unwrap()),
        Some("1".into())
    );

    // As if 998 more had been made: one more fits, the next does not.
    app.db
        .change(
            counts.clone(),
            shared::db::Change::new().set("projects", shared::db::n(MAX_PER_TEAM - 1)),
            None,
            shared::db::Returns::Nothing,
        )
        .await
        .unwrap();
    let (status, last) = create().await;
    assert_eq!(status, 201, "{last}");
    let (status, refused) = create().await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(
        refused["message"],
        json!("The team already has 1000 projects; delete some first.")
    );
    let (_, list) = testing::call::<Api>(&app, "GET", "/api/v1/projects", Some(&token), None).await;
    assert_eq!(
        list.as_array().unwrap().len(),
        2,
        "the refused create wrote nothing"
    );

    // A delete frees a place.
    let uri = format!("/api/v1/projects/{}", last["uuid"].as_str().unwrap());
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", &uri, Some(&token), None)
            .await
            .0,
        200
    );
    assert_eq!(create().await.0, 201);
}
