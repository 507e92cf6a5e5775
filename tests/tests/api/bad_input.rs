//! Bad input over HTTP: malformed JSON, wrong types, wrong content types,
//! oversized bodies, unknown routes. Each is a 4xx naming the problem, and
//! nothing is written.

use api_tests::{Api, unique};
use serde_json::json;

#[tokio::test]
async fn malformed_and_mistyped_bodies_are_422() {
    let api = Api::from_env();
    let name = unique("bad");
    let cases: Vec<(String, &str)> = vec![
        ("{\"username\":".into(), "malformed JSON"),
        ("not json".into(), "malformed JSON"),
        ("42".into(), "must be a JSON object"),
        (
            format!("{{\"username\": [\"{name}\"], \"email\": \"a@b.io\"}}"),
            "username: invalid type: sequence",
        ),
        (
            format!("{{\"username\": \"{name}\", \"email\": 7}}"),
            "email: invalid type: integer",
        ),
        (
            format!("{{\"username\": \"{name}\"}}"),
            "missing field `email`",
        ),
        (
            format!("{{\"username\": \"{name}\", \"email\": \"x@y.io\", \"visibility\": 1}}"),
            "visibility: invalid type",
        ),
    ];
    for (body, text) in cases {
        let r = api
            .raw(
                "POST",
                "/api/v1/admin/users",
                api.admin(),
                Some("application/json"),
                body.clone().into_bytes(),
            )
            .await;
        assert_eq!(r.status, 422, "{body}: {:?}", r.body);
        assert!(
            r.message().contains(text),
            "{body}: {:?} should mention {text:?}",
            r.body
        );
        assert!(r.body["url"].as_str().is_some(), "Gitea error shape");
    }
    assert_eq!(
        api.call("GET", &format!("/api/v1/users/{name}"), api.admin(), None)
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn content_type_and_size_limits() {
    let api = Api::from_env();
    let name = unique("ct");
    let body = json!({"username": name, "email": format!("{name}@example.com")}).to_string();
    let r = api
        .raw(
            "POST",
            "/api/v1/admin/users",
            api.admin(),
            Some("application/x-www-form-urlencoded"),
            body.clone().into_bytes(),
        )
        .await;
    assert_eq!(r.status, 415, "{:?}", r.body);
    assert!(
        r.message()
            .contains("Content-Type must be application/json")
    );

    let huge = format!(
        "{{\"username\":\"{name}\",\"email\":\"{name}@example.com\",\"full_name\":\"{}\"}}",
        "x".repeat(1_100_000)
    );
    let r = api
        .raw(
            "POST",
            "/api/v1/admin/users",
            api.admin(),
            Some("application/json"),
            huge.into_bytes(),
        )
        .await;
    assert_eq!(r.status, 413, "{:?}", r.body);
    assert!(r.message().contains("larger than"));
    assert_eq!(
        api.call("GET", &format!("/api/v1/users/{name}"), api.admin(), None)
            .await
            .status,
        404
    );

    // The same body with a JSON content type (with parameters) is fine.
    let r = api
        .raw(
            "POST",
            "/api/v1/admin/users",
            api.admin(),
            Some("application/json; charset=utf-8"),
            body.into_bytes(),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}

#[tokio::test]
async fn invalid_ids_are_404() {
    let api = Api::from_env();
    for path in [
        "/api/v1/teams/abc",
        "/api/v1/teams/-1",
        "/api/v1/teams/99999999999999999999",
    ] {
        let r = api.call("GET", path, api.admin(), None).await;
        assert_eq!(r.status, 404, "{path}: {:?}", r.body);
    }
}
