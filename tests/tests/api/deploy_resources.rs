//! Coolify's resource lists: `GET /resources` (the team's applications,
//! typed), `GET /databases` and `GET /services` (none in this product).

use api_tests::deploy::{Team, infra::*};
use serde_json::json;

#[tokio::test]
async fn resources_list_the_teams_applications_with_their_type() {
    let t = Team::new().await;
    assert_eq!(t.get("/resources").await.body, json!([]));
    let b = t.app(json!({"name": "b-app"})).await;
    let a = t.app(json!({"name": "a-app"})).await;
    let other = Team::new().await;
    other.app(json!({"name": "elsewhere"})).await;

    let r = t.get("/resources").await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        uuids(&r.body),
        [a.clone(), b.clone()],
        "the team's, by name"
    );
    let envs = t.get(&format!("/projects/{}", t.project)).await.body;
    for row in r.body.as_array().unwrap() {
        assert_eq!(row["type"], "application");
        assert_eq!(row["status"], "exited:unhealthy");
        assert_eq!(row["environment_id"], envs["environments"][0]["id"]);
        // The rest is the application as GET /applications shows it.
        let mut app = t
            .get(&format!("/applications/{}", row["uuid"].as_str().unwrap()))
            .await
            .body;
        app["type"] = json!("application");
        assert_eq!(row, &app);
    }
    for path in ["/databases", "/services"] {
        let r = t.get(path).await;
        assert_eq!((r.status, r.body), (200, json!([])), "{path}");
    }
}

#[tokio::test]
async fn resource_lists_need_a_token_with_read() {
    let t = Team::new().await;
    let deploy_only = t.token_with(&["deploy"]).await;
    let read = t.token_with(&["read"]).await;
    for path in ["/resources", "/databases", "/services"] {
        let r = t.call_as(&read, "GET", path, None).await;
        assert_eq!(r.status, 200, "{path}");
        let r = t.call_as(&deploy_only, "GET", path, None).await;
        assert_eq!(r.status, 403, "{path}: {:?}", r.body);
        let r = t
            .api
            .call(
                "GET",
                &format!("/api/v1{path}"),
                api_tests::Auth::None,
                None,
            )
            .await;
        assert_eq!(r.status, 401, "{path}: {:?}", r.body);
    }
}
