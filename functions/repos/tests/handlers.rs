//! In-process handler tests for repositories and labels.

use repos::Api;
use serde_json::json;
use shared::testing;

#[tokio::test]
async fn create_rename_and_delete() {
    let app = testing::app().await;
    let (_, token) = testing::seed_user(&app, "rita", false, &["write:repository"]).await;
    let (status, repo) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/user/repos",
        Some(&token),
        Some(json!({"name": "one"})),
    )
    .await;
    assert_eq!(status, 201, "{repo}");
    assert_eq!(repo["url"], "http://forge.test/api/v1/repos/rita/one");
    assert_eq!(repo["open_issues_count"], 0);
    let (status, _) = testing::call::<Api>(
        &app,
        "PATCH",
        "/api/v1/repos/rita/one",
        Some(&token),
        Some(json!({"name": "two"})),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/repos/rita/one", Some(&token), None)
            .await
            .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/repos/RITA/TWO", Some(&token), None)
            .await
            .0,
        200,
        "case-insensitive"
    );
    // Renaming onto an existing name is refused and changes nothing.
    testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/user/repos",
        Some(&token),
        Some(json!({"name": "three"})),
    )
    .await;
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PATCH",
            "/api/v1/repos/rita/two",
            Some(&token),
            Some(json!({"name": "three"}))
        )
        .await
        .0,
        422
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/repos/rita/two", Some(&token), None)
            .await
            .0,
        200
    );
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", "/api/v1/repos/rita/two", Some(&token), None)
            .await
            .0,
        204
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/repos/rita/two", Some(&token), None)
            .await
            .0,
        404
    );
}

#[tokio::test]
async fn labels_need_write_access() {
    let app = testing::app().await;
    let (_, owner) = testing::seed_user(&app, "olga", false, &["all"]).await;
    let (_, other) = testing::seed_user(&app, "oscar", false, &["all"]).await;
    testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/user/repos",
        Some(&owner),
        Some(json!({"name": "r"})),
    )
    .await;
    let base = "/api/v1/repos/olga/r/labels";
    let body = json!({"name": "bug", "color": "f00"});
    assert_eq!(
        testing::call::<Api>(&app, "POST", base, Some(&other), Some(body.clone()))
            .await
            .0,
        403
    );
    assert_eq!(
        testing::call::<Api>(&app, "POST", base, None, Some(body.clone()))
            .await
            .0,
        401
    );
    let (status, label) = testing::call::<Api>(&app, "POST", base, Some(&owner), Some(body)).await;
    assert_eq!((status, label["color"].as_str()), (201, Some("ff0000")));
    let (status, list) = testing::call::<Api>(&app, "GET", base, None, None).await;
    assert_eq!((status, list.as_array().map(Vec::len)), (200, Some(1)));
}
