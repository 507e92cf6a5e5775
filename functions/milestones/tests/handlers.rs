//! In-process handler tests for milestones, each on a table of its own.

use milestones::Api;
use serde_json::json;
use shared::{
    accounts::users,
    http::App,
    repos::{self, NewRepo},
    testing,
};

async fn setup(private: bool) -> (App, String, String) {
    let app = testing::app().await;
    let (user, token) = testing::seed_user(&app, "mia", false, &["write:issue"]).await;
    let owner = users::get(&app.db, &user.name).await.unwrap().unwrap();
    let new = NewRepo {
        name: "proj".into(),
        description: String::new(),
        private,
        default_branch: "main".into(),
    };
    repos::create(&app.db, &owner, new).await.unwrap();
    (app, token, "/api/v1/repos/mia/proj/milestones".into())
}

#[tokio::test]
async fn create_then_read_back_by_id_and_title() {
    let (app, token, base) = setup(false).await;
    let (status, m) = testing::call::<Api>(
        &app,
        "POST",
        &base,
        Some(&token),
        Some(json!({"title": "v1", "due_on": "2030-01-01"})),
    )
    .await;
    assert_eq!(status, 201, "{m}");
    assert_eq!(m["due_on"], "2030-01-01T23:59:59Z");
    let (status, by_id) =
        testing::call::<Api>(&app, "GET", &format!("{base}/{}", m["id"]), None, None).await;
    assert_eq!((status, by_id["title"].as_str()), (200, Some("v1")));
    let (status, by_title) =
        testing::call::<Api>(&app, "GET", &format!("{base}/v1"), None, None).await;
    assert_eq!((status, by_title["id"].clone()), (200, m["id"].clone()));
}

#[tokio::test]
async fn private_repositories_are_not_found_by_strangers() {
    let (app, token, base) = setup(true).await;
    let (_, stranger) = testing::seed_user(&app, "sam", false, &["write:issue"]).await;
    assert_eq!(
        testing::call::<Api>(&app, "GET", &base, Some(&token), None)
            .await
            .0,
        200
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", &base, None, None).await.0,
        404
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", &base, Some(&stranger), None)
            .await
            .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "POST",
            &base,
            Some(&stranger),
            Some(json!({"title": "x"}))
        )
        .await
        .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "GET",
            "/api/v1/repos/mia/none/milestones",
            Some(&token),
            None
        )
        .await
        .0,
        404
    );
}

#[tokio::test]
async fn delete_removes_it() {
    let (app, token, base) = setup(false).await;
    let (_, m) = testing::call::<Api>(
        &app,
        "POST",
        &base,
        Some(&token),
        Some(json!({"title": "gone"})),
    )
    .await;
    let one = format!("{base}/{}", m["id"]);
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", &one, Some(&token), None)
            .await
            .0,
        204
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", &one, None, None).await.0,
        404
    );
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", &one, Some(&token), None)
            .await
            .0,
        404
    );
}
