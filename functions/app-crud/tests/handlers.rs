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
