//! Repository and organisation labels over HTTP.

use api_tests::{Api, Auth};
use serde_json::json;

#[tokio::test]
async fn repository_label_lifecycle() {
    let api = Api::from_env();
    let owner = api.new_user("lbl").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let base = format!("/api/v1/repos/{}/{repo}/labels", owner.name);
    let auth = Auth::Token(&owner.token);

    for (color, want) in [
        ("#abc", "aabbcc"),
        ("00FF00", "00ff00"),
        ("#123456", "123456"),
    ] {
        let r = api
            .call(
                "POST",
                &base,
                auth,
                Some(json!({"name": format!("c{want}"), "color": color})),
            )
            .await;
        assert_eq!(
            (r.status, r.body["color"].as_str()),
            (201, Some(want)),
            "{color}: {:?}",
            r.body
        );
    }
    for bad in [
        json!({"name": "x", "color": "red"}),
        json!({"name": "x", "color": "#12345"}),
        json!({"name": "", "color": "#fff"}),
        json!({"name": "x"}),
    ] {
        let r = api.call("POST", &base, auth, Some(bad.clone())).await;
        assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
    }
    let r = api
        .call("GET", &format!("{base}?limit=2"), Auth::None, None)
        .await;
    assert_eq!(
        (
            r.status,
            r.body.as_array().unwrap().len(),
            r.header("x-total-count")
        ),
        (200, 2, Some("3"))
    );
    let first = r.body[0].clone();
    let one = format!("{base}/{}", first["id"]);
    let r = api
        .call(
            "PATCH",
            &one,
            auth,
            Some(json!({"name": "renamed", "color": "fff", "exclusive": true})),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (
            r.body["name"].as_str(),
            r.body["color"].as_str(),
            r.body["exclusive"].as_bool()
        ),
        (Some("renamed"), Some("ffffff"), Some(true))
    );
    assert_eq!(
        api.call("PATCH", &one, auth, Some(json!({"color": "nope"})))
            .await
            .status,
        422
    );
    assert_eq!(
        api.call("GET", &one, Auth::None, None).await.body["color"],
        "ffffff",
        "the bad edit changed nothing"
    );
    assert_eq!(api.call("DELETE", &one, auth, None).await.status, 204);
    assert_eq!(api.call("GET", &one, Auth::None, None).await.status, 404);
    assert_eq!(
        api.call("GET", &format!("{base}/abc"), Auth::None, None)
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn organisation_labels() {
    let api = Api::from_env();
    let owner = api.new_user("olbl").await;
    let other = api.new_user("olbx").await;
    let org = api.new_org(&owner, "lorg", "public").await;
    let base = format!("/api/v1/orgs/{org}/labels");
    let body = json!({"name": "triage", "color": "#0e8a16"});
    assert_eq!(
        api.call("POST", &base, Auth::Token(&other.token), Some(body.clone()))
            .await
            .status,
        403
    );
    let r = api
        .call("POST", &base, Auth::Token(&owner.token), Some(body))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert!(
        r.body["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/orgs/{org}/labels/{}", r.body["id"]))
    );
    let r = api.call("GET", &base, Auth::None, None).await;
    assert_eq!((r.status, r.header("x-total-count")), (200, Some("1")));
}
