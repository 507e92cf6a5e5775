//! In-process handler tests for listing, reading and deleting
//! applications, each on a table of its own.

use app_crud::Api;
use serde_json::json;
use shared::testing;

#[tokio::test]
async fn a_new_team_has_no_applications() {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "ivy", false, &["read", "write"]).await;
    let (status, body) =
        testing::call::<Api>(&app, "GET", "/api/v1/applications", Some(&token), None).await;
    assert_eq!((status, body), (200, json!([])));
    for uuid in ["not-a-uuid", "00000000-0000-4000-8000-000000000000"] {
        let uri = format!("/api/v1/applications/{uuid}");
        let (status, body) = testing::call::<Api>(&app, "GET", &uri, Some(&token), None).await;
        assert_eq!(
            (status, body),
            (404, json!({"message": "Application not found."})),
            "{uuid}"
        );
    }
}

#[tokio::test]
async fn delete_flags_are_checked_before_anything() {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "ivy", false, &["write"]).await;
    let uri = "/api/v1/applications/00000000-0000-4000-8000-000000000000?docker_cleanup=nope";
    let (status, body) = testing::call::<Api>(&app, "DELETE", uri, Some(&token), None).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["errors"]["docker_cleanup"],
        json!(["The docker_cleanup field must be true or false."])
    );
    let uri = "/api/v1/applications/00000000-0000-4000-8000-000000000000?docker_cleanup=false";
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", uri, Some(&token), None)
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn a_list_too_large_for_lambda_leaves_the_inline_texts_out() {
    let app = testing::app().await;
    let (token, team, placement) = testing::deploy_team(&app, "big", &["root"]).await;
    let dockerfile = format!("FROM nginx\n{}", "# padding line\n".repeat(8_500));
    for _ in 0..45 {
        let mut body = placement.clone();
        body["dockerfile"] = json!(dockerfile);
        let body = body.as_object().cloned().unwrap_or_default();
        shared::deploy::create::create(
            &app.db,
            &app.config,
            &team,
            shared::deploy::model::fields::Endpoint::Dockerfile,
            body,
        )
        .await
        .unwrap();
    }
    let req = testing::request("GET", "/api/v1/applications", Some(&token), None);
    let res = shared::http::handle::<Api>(&app, req).await;
    assert_eq!(
        res.headers()
            .get("x-omitted-fields")
            .and_then(|v| v.to_str().ok()),
        Some("dockerfile,docker_compose_raw,custom_labels,custom_nginx_configuration")
    );
    let (status, list) = testing::parts(&res);
    assert_eq!(status, 200);
    assert_eq!(list.as_array().unwrap().len(), 45);
    assert!(list[0].get("dockerfile").is_none());
    assert!(
        list[0]["http_basic_auth_password"].is_null(),
        "other fields stay"
    );
    // One application still shows its Dockerfile.
    let uri = format!("/api/v1/applications/{}", list[0]["uuid"].as_str().unwrap());
    let (_, one) = testing::call::<Api>(&app, "GET", &uri, Some(&token), None).await;
    assert_eq!(one["dockerfile"], json!(dockerfile));
}
