//! What no route serves, and what does not exist: the API's own 404 and
//! 405 in the dialect of the path (the catch-all `fallback` function), and
//! not-found messages that carry no internal ids.

use api_tests::{Api, Auth};
use serde_json::json;

#[tokio::test]
async fn unknown_paths_and_methods_answer_in_the_dialect_of_the_path() {
    let api = Api::from_env();
    // (method, path, status, message, Allow)
    let rows = [
        ("GET", "/api/v1/nothing/here", 404, "not found", None),
        ("GET", "/api/v1/repos/a/b/c/d/e/f", 404, "not found", None),
        ("GET", "/elsewhere", 404, "not found", None),
        (
            "POST",
            "/api/v1/user",
            405,
            "method not allowed",
            Some("GET"),
        ),
        (
            "DELETE",
            "/api/v1/repos/issues/search",
            405,
            "method not allowed",
            Some("GET"),
        ),
        ("GET", "/api/v1/applications/a/b/c", 404, "Not found.", None),
        ("GET", "/api/v1/security/nothing", 404, "Not found.", None),
        (
            "PUT",
            "/api/v1/projects",
            405,
            "Method not allowed.",
            Some("GET, POST"),
        ),
        (
            "POST",
            "/api/v1/applications/some-uuid",
            405,
            "Method not allowed.",
            Some("GET, PATCH, DELETE"),
        ),
    ];
    for (method, path, status, message, allow) in rows {
        let r = api.call(method, path, Auth::None, None).await;
        let row = format!("{method} {path}: {:?}", r.body);
        assert_eq!(r.status, status, "{row}");
        assert_eq!(r.message(), message, "{row}");
        assert_eq!(r.header("allow"), allow, "{row}");
        assert!(r.header("x-request-id").is_some(), "{row}");
        // Gitea's bodies link to the API document; Coolify's do not.
        assert_eq!(
            r.body.get("url").is_some(),
            !message.ends_with('.'),
            "{row}"
        );
    }
}

#[tokio::test]
async fn not_found_messages_name_only_what_the_caller_sent() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("nf", false).await;
    let auth = Auth::Token(&owner.token);

    let r = api
        .call("GET", &format!("{repo}/issues/99999"), auth, None)
        .await;
    assert_eq!((r.status, r.message()), (404, "not found"), "{:?}", r.body);
    assert!(!r.body.to_string().contains("repo_id"), "{:?}", r.body);

    let r = api
        .call("GET", &format!("{repo}/milestones/no-such"), auth, None)
        .await;
    assert_eq!(
        (r.status, r.message()),
        (404, "milestone does not exist [name: no-such]")
    );

    let r = api
        .call(
            "GET",
            "/api/v1/repos/issues/search?owner=nobody-nf9",
            auth,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.message()),
        (400, "user does not exist [name: nobody-nf9]")
    );

    let org = api.new_org(&owner, "nforg", "public").await;
    let teams = format!("/api/v1/orgs/{org}/teams");
    let team = json!({"name": "crew", "permission": "read", "units": ["repo.issues"]});
    let r = api.call("POST", &teams, auth, Some(team.clone())).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let r = api.call("POST", &teams, auth, Some(team)).await;
    assert_eq!(
        (r.status, r.message()),
        (422, "team already exists [name: crew]")
    );
}
