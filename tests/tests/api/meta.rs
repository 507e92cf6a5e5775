//! The meta endpoints clients call first: version (Gitea's JSON or
//! Coolify's text, by the caller's token), the paging settings, health.

use api_tests::{Api, Auth};
use serde_json::json;

#[tokio::test]
async fn version_speaks_to_the_client_the_token_belongs_to() {
    let api = Api::from_env();
    let u = api.new_user("ver").await;
    let deploy = api.token(&u.name, &u.password, &["read", "deploy"]).await;
    let public_only = api
        .token(&u.name, &u.password, &["read:user", "public-only"])
        .await;
    let mixed = api
        .token(&u.name, &u.password, &["read:user", "root"])
        .await;
    let gitea = json!({"version": "1.25.0"});
    // (who, expected JSON; None: Coolify's text)
    let rows = [
        ("anonymous", Auth::None, Some(&gitea)),
        ("Gitea token", Auth::Token(&u.token), Some(&gitea)),
        ("bootstrap admin [all, root]", api.admin(), Some(&gitea)),
        ("mixed token", Auth::Token(&mixed), Some(&gitea)),
        ("public-only token", Auth::Token(&public_only), Some(&gitea)),
        ("deploy-only token", Auth::Token(&deploy), None),
    ];
    for (who, auth, json) in rows {
        let r = api.call("GET", "/api/v1/version", auth, None).await;
        assert_eq!(r.status, 200, "{who}: {:?}", r.body);
        match json {
            Some(v) => {
                assert_eq!(&r.body, v, "{who}");
                assert!(
                    r.header("content-type")
                        .unwrap_or("")
                        .starts_with("application/json"),
                    "{who}"
                );
            }
            None => {
                assert_eq!(r.body, json!("v4.0.0"), "{who}");
                assert!(
                    r.header("content-type")
                        .unwrap_or("")
                        .starts_with("text/html"),
                    "{who}"
                );
            }
        }
    }
    let r = api
        .call("GET", "/api/v1/version", Auth::Token("not-a-token"), None)
        .await;
    assert_eq!(r.status, 401, "a wrong token is still refused");
}

#[tokio::test]
async fn api_settings_are_the_paging_numbers_enforced() {
    let api = Api::from_env();
    let r = api
        .call("GET", "/api/v1/settings/api", Auth::None, None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let max = r.body["max_response_items"].as_u64().unwrap();
    let default = r.body["default_paging_num"].as_u64().unwrap();
    assert_eq!((default, max), (30, 50));
    // A repository with one issue more than the maximum: a list asked for
    // more gets the maximum, one asked for nothing the default.
    let (owner, repo) = api.user_repo("pg", false).await;
    for i in 0..=max {
        api.new_issue(&owner, &repo, &format!("issue {i}")).await;
    }
    let r = api
        .call(
            "GET",
            &format!("{repo}/issues?limit=1000"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.body.as_array().map(Vec::len), Some(max as usize));
    let r = api
        .call(
            "GET",
            &format!("{repo}/issues"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.body.as_array().map(Vec::len), Some(default as usize));
}

#[tokio::test]
async fn health_checks_answer_without_credentials() {
    let api = Api::from_env();
    let r = api.call("GET", "/api/v1/health", Auth::None, None).await;
    assert_eq!((r.status, &r.body), (200, &json!("OK")));
    assert!(
        r.header("content-type")
            .unwrap_or("")
            .starts_with("text/html")
    );
    let r = api.call("GET", "/api/healthz", Auth::None, None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["status"], "pass");
    assert_eq!(r.header("content-type"), Some("application/health+json"));
}

#[tokio::test]
async fn the_openapi_document_is_served_for_this_deployment() {
    let api = Api::from_env();
    let r = api.call("GET", "/swagger.v1.json", Auth::None, None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert!(r.body["openapi"].as_str().unwrap_or("").starts_with("3."));
    let base = std::env::var("API_URL").expect("API_URL");
    assert_eq!(
        r.body["servers"],
        json!([{"url": base.trim_end_matches('/'), "description": "this deployment"}])
    );
    for path in [
        "/api/v1/version",
        "/api/v1/repos/{owner}/{repo}/issues",
        "/api/v1/applications",
    ] {
        assert!(r.body["paths"].get(path).is_some(), "{path} documented");
    }
}
