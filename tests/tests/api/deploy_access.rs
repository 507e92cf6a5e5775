//! Deploy API resources: credentials (a runner's among them, good on the
//! runner routes alone), abilities and team isolation on every route of
//! `functions/infra`.

use api_tests::{
    Api, Auth,
    deploy::{Team, infra::*},
    unique,
};
use serde_json::{Value, json};

#[tokio::test]
async fn no_or_bad_credentials_are_unauthenticated() {
    let t = Team::new().await;
    let api = Api::from_env();
    let unauthenticated = message("Unauthenticated.");
    let routes = [
        ("GET", "/projects".to_string()),
        ("POST", "/projects".to_string()),
        ("GET", format!("/projects/{}", t.project)),
        ("DELETE", format!("/projects/{}", t.project)),
        ("GET", "/servers".to_string()),
        ("PATCH", format!("/servers/{}", t.server)),
        ("GET", "/security/keys".to_string()),
        ("DELETE", format!("/security/keys/{}", t.key)),
        ("GET", "/provider-apps".to_string()),
        ("POST", "/github-apps".to_string()),
        ("GET", "/deployments".to_string()),
    ];
    let bad = format!("{}x", t.token);
    let runner = api_tests::deploy::runner::Runner::new(&t, &t.server).await;
    let auths = [
        ("none", Auth::None),
        ("runner credential", Auth::Bearer(&runner.token)),
        ("garbage bearer", Auth::Bearer("not-a-token")),
        ("altered bearer", Auth::Bearer(&bad)),
        ("empty bearer", Auth::Bearer("")),
        ("password", Auth::Basic(&t.user.name, &t.user.password)),
        ("wrong password", Auth::Basic(&t.user.name, "wrong")),
    ];
    for (method, path) in &routes {
        for (label, auth) in auths {
            let body = (*method != "GET" && *method != "DELETE").then(|| json!({"name": "x"}));
            let r = api
                .call(method, &format!("/api/v1{path}"), auth, body)
                .await;
            assert_eq!(r.status, 401, "{label} {method} {path}: {:?}", r.body);
            assert_eq!(r.body, unauthenticated, "{label} {method} {path}");
        }
    }
    // Nothing was written or deleted by any of them.
    assert_eq!(count(&t.get("/projects").await), 1);
    assert_eq!(t.get(&format!("/projects/{}", t.project)).await.status, 200);
    assert_eq!(
        t.get(&format!("/security/keys/{}", t.key)).await.status,
        200
    );
    assert_eq!(
        t.get(&format!("/servers/{}", t.server)).await.body["name"],
        "srv"
    );
    // The same root token also works as `Authorization: token X`.
    let r = api
        .call("GET", "/api/v1/projects", Auth::Token(&t.token), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[tokio::test]
async fn abilities_gate_reads_and_writes() {
    let t = Team::new().await;
    let read = t.token_with(&["read"]).await;
    let write = t.token_with(&["write"]).await;
    let read_write = t.token_with(&["read", "write"]).await;
    let missing = |a: &str| message(&format!("Missing required permissions: {a}"));

    let reads = [
        "/projects".to_string(),
        format!("/projects/{}", t.project),
        format!("/projects/{}/environments", t.project),
        format!("/projects/{}/production", t.project),
        "/servers".to_string(),
        format!("/servers/{}", t.server),
        format!("/servers/{}/destinations", t.server),
        "/security/keys".to_string(),
        format!("/security/keys/{}", t.key),
        "/provider-apps".to_string(),
        "/github-apps".to_string(),
        "/deployments".to_string(),
    ];
    for path in &reads {
        for (label, token) in [
            ("read", &read),
            ("read+write", &read_write),
            ("root", &t.token),
        ] {
            let r = t.call_as(token, "GET", path, None).await;
            assert_eq!(r.status, 200, "{label} GET {path}: {:?}", r.body);
        }
        let r = t.call_as(&write, "GET", path, None).await;
        assert_eq!(r.status, 403, "write-only GET {path}: {:?}", r.body);
        assert_eq!(r.body, missing("read"), "write-only GET {path}");
    }

    let spare_key = t
        .created(
            "/security/keys",
            json!({"name": "spare", "private_key": fresh_pem()}),
        )
        .await;
    let writes = [
        (
            "POST",
            "/projects".to_string(),
            Some(json!({"name": unique("p")})),
        ),
        (
            "POST",
            format!("/projects/{}/environments", t.project),
            Some(json!({"name": "staging"})),
        ),
        ("DELETE", format!("/projects/{}", t.project), None),
        (
            "POST",
            "/servers".to_string(),
            Some(json!({"name": "s", "ip": "198.51.100.1", "private_key_uuid": t.key})),
        ),
        (
            "PATCH",
            format!("/servers/{}", t.server),
            Some(json!({"name": "renamed"})),
        ),
        ("DELETE", format!("/servers/{}", t.server), None),
        (
            "POST",
            format!("/servers/{}/destinations", t.server),
            Some(json!({"name": "d", "network": unique("n")})),
        ),
        (
            "POST",
            "/security/keys".to_string(),
            Some(json!({"name": "k", "private_key": fresh_pem()})),
        ),
        ("DELETE", format!("/security/keys/{spare_key}"), None),
        (
            "POST",
            "/provider-apps".to_string(),
            Some(provider_app_body(&t, "s1", "h1")),
        ),
        (
            "POST",
            "/github-apps".to_string(),
            Some(provider_app_body(&t, "s2", "h2")),
        ),
    ];
    for (method, path, body) in &writes {
        let r = t.call_as(&read, method, path, body.clone()).await;
        assert_eq!(r.status, 403, "read-only {method} {path}: {:?}", r.body);
        assert_eq!(r.body, missing("write"), "read-only {method} {path}");
    }
    // None of the refused writes happened.
    assert_eq!(count(&t.get("/projects").await), 1);
    assert_eq!(
        count(
            &t.get(&format!("/projects/{}/environments", t.project))
                .await
        ),
        1
    );
    assert_eq!(count(&t.get("/servers").await), 1);
    assert_eq!(
        t.get(&format!("/servers/{}", t.server)).await.body["name"],
        "srv"
    );
    assert_eq!(
        count(&t.get(&format!("/servers/{}/destinations", t.server)).await),
        1
    );
    assert_eq!(count(&t.get("/security/keys").await), 2);
    assert_eq!(count(&t.get("/provider-apps").await), 0);

    // `write` alone may write (Coolify's abilities do not nest, except root).
    let r = t
        .call_as(
            &write,
            "POST",
            "/projects",
            Some(json!({"name": "by-writer"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let p = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(
        t.get(&format!("/projects/{p}")).await.body["name"],
        "by-writer"
    );
    let r = t
        .call_as(
            &write,
            "DELETE",
            &format!("/security/keys/{spare_key}"),
            None,
        )
        .await;
    assert_eq!((r.status, r.body), (200, message("Private Key deleted.")));

    // A tracker-only token (Gitea's `all`) has no deploy abilities.
    let r = t.call_as(&t.user.token, "GET", "/projects", None).await;
    assert_eq!((r.status, r.body), (403, missing("read")));

    // root: everything, including deploy.
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert!(r.body["deployment_uuid"].is_string(), "{:?}", r.body);
}

#[tokio::test]
async fn teams_cannot_see_or_touch_each_others_resources() {
    let (a, b) = (Team::new().await, Team::new().await);
    let r = a
        .post(
            "/applications/public",
            a.public(json!({"instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let deployment = r.body["deployment_uuid"].as_str().unwrap().to_string();
    let provider_app = a
        .created(
            "/provider-apps",
            provider_app_body(&a, "iso-secret", "iso-hook"),
        )
        .await;

    let (project, server, key) = (&a.project, &a.server, &a.key);
    let probes: Vec<(&str, String, Option<Value>, Value)> = vec![
        (
            "GET",
            format!("/projects/{project}"),
            None,
            not_found("Project"),
        ),
        (
            "GET",
            format!("/projects/{project}/environments"),
            None,
            not_found("Project"),
        ),
        (
            "GET",
            format!("/projects/{project}/production"),
            None,
            not_found("Project"),
        ),
        (
            "GET",
            format!("/projects/{project}/{}", a.environment),
            None,
            not_found("Project"),
        ),
        (
            "POST",
            format!("/projects/{project}/environments"),
            Some(json!({"name": "stolen"})),
            not_found("Project"),
        ),
        (
            "DELETE",
            format!("/projects/{project}"),
            None,
            not_found("Project"),
        ),
        (
            "GET",
            format!("/servers/{server}"),
            None,
            not_found("Server"),
        ),
        (
            "GET",
            format!("/servers/{server}/destinations"),
            None,
            not_found("Server"),
        ),
        (
            "POST",
            format!("/servers/{server}/destinations"),
            Some(json!({"name": "x", "network": "stolen"})),
            not_found("Server"),
        ),
        (
            "PATCH",
            format!("/servers/{server}"),
            Some(json!({"name": "stolen"})),
            not_found("Server"),
        ),
        (
            "DELETE",
            format!("/servers/{server}"),
            None,
            not_found("Server"),
        ),
        (
            "GET",
            format!("/security/keys/{key}"),
            None,
            not_found("Private Key"),
        ),
        (
            "DELETE",
            format!("/security/keys/{key}"),
            None,
            not_found("Private Key"),
        ),
        (
            "GET",
            format!("/deployments/{deployment}"),
            None,
            not_found("Deployment"),
        ),
        (
            "GET",
            format!("/deployments/applications/{app}"),
            None,
            not_found("Application"),
        ),
    ];
    for (method, path, body, expected) in probes {
        let r = b.call(method, &path, body).await;
        assert_eq!(r.status, 404, "B {method} {path}: {:?}", r.body);
        assert_eq!(r.body, expected, "B {method} {path}");
    }

    // B's lists do not show A's objects (and do show B's own).
    for (path, a_uuid, b_uuid) in [
        ("/projects", project.clone(), Some(b.project.clone())),
        ("/servers", server.clone(), Some(b.server.clone())),
        ("/security/keys", key.clone(), Some(b.key.clone())),
        ("/provider-apps", provider_app.clone(), None),
        ("/github-apps", provider_app.clone(), None),
        ("/deployments", deployment.clone(), None),
    ] {
        let r = b.get(path).await;
        assert_eq!(r.status, 200, "{path}");
        let seen = uuids(&r.body);
        assert!(!seen.contains(&a_uuid), "B sees A's {a_uuid} in {path}");
        if let Some(own) = b_uuid {
            assert_eq!(seen, vec![own], "B's {path}");
        }
        assert!(
            uuids(&a.get(path).await.body).contains(&a_uuid),
            "A sees its own in {path}"
        );
    }

    // B cannot refer to A's objects either.
    let r = b
        .post(
            "/servers",
            json!({"name": "s", "ip": "198.51.100.2", "private_key_uuid": key}),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body,
        invalid(json!({"private_key_uuid": ["Private Key not found."]}))
    );
    let r = b
        .post(
            "/applications/public",
            with(
                b.public(json!({})),
                json!({"project_uuid": project, "server_uuid": server}),
            ),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body["errors"]["project_uuid"],
        json!(["Project not found."])
    );
    assert_eq!(
        r.body["errors"]["server_uuid"],
        json!(["Server not found."])
    );

    // A's objects are untouched.
    assert_eq!(
        count(&a.get(&format!("/projects/{project}/environments")).await),
        1
    );
    assert_eq!(
        a.get(&format!("/servers/{server}")).await.body["name"],
        "srv"
    );
    assert_eq!(
        count(&a.get(&format!("/servers/{server}/destinations")).await),
        1
    );
    assert_eq!(a.get(&format!("/security/keys/{key}")).await.status, 200);
    assert_eq!(
        a.get(&format!("/deployments/{deployment}")).await.status,
        200
    );
}

#[tokio::test]
async fn malformed_and_unknown_uuids_are_not_found() {
    let t = Team::new().await;
    let unknown = nobody();
    for bad in [
        "nope",
        "1",
        "00000000-0000-0000-0000-00000000000g",
        &format!("{}x", t.project),
        &unknown,
    ] {
        for (path, what) in [
            (format!("/projects/{bad}"), "Project"),
            (format!("/projects/{bad}/environments"), "Project"),
            (format!("/projects/{bad}/production"), "Project"),
            (format!("/servers/{bad}"), "Server"),
            (format!("/servers/{bad}/destinations"), "Server"),
            (format!("/security/keys/{bad}"), "Private Key"),
            (format!("/deployments/{bad}"), "Deployment"),
            (format!("/deployments/applications/{bad}"), "Application"),
        ] {
            let r = t.get(&path).await;
            assert_eq!((r.status, &r.body), (404, &not_found(what)), "GET {path}");
        }
        for (method, path, what) in [
            ("DELETE", format!("/projects/{bad}"), "Project"),
            ("DELETE", format!("/servers/{bad}"), "Server"),
            ("DELETE", format!("/security/keys/{bad}"), "Private Key"),
        ] {
            let r = t.call(method, &path, None).await;
            assert_eq!(
                (r.status, &r.body),
                (404, &not_found(what)),
                "{method} {path}"
            );
        }
        let r = t
            .patch(&format!("/servers/{bad}"), json!({"name": "x"}))
            .await;
        assert_eq!(
            (r.status, &r.body),
            (404, &not_found("Server")),
            "PATCH {bad}"
        );
    }
    // The canonical form is case-insensitive: an upper-case uuid names the same project.
    let r = t
        .get(&format!("/projects/{}", t.project.to_uppercase()))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["uuid"], json!(t.project));
}
