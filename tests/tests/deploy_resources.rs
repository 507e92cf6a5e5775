//! The deploy API's supporting resources (`functions/infra`): token
//! abilities, team isolation, projects and environments, servers and
//! destinations, deploy keys, provider apps and deployment records. Every
//! write is read back; refused writes are shown to have changed nothing.

use api_tests::{Api, Auth, Reply, deploy::Team, unique};
use serde_json::{Value, json};

const INVALID: &str = "Validation failed.";

fn message(m: &str) -> Value {
    json!({ "message": m })
}

/// The exact 400 body of a validation failure.
fn invalid(errors: Value) -> Value {
    json!({"message": INVALID, "errors": errors})
}

fn not_found(what: &str) -> Value {
    message(&format!("{what} not found."))
}

/// A PEM-encoded private key whose body is unique to this call.
fn fresh_pem() -> String {
    use base64::{Engine, engine::general_purpose::STANDARD};
    let seed = format!("{}{}{}{}", unique(""), unique(""), unique(""), unique(""));
    let body: Vec<u8> = seed.bytes().chain(seed.bytes().rev()).collect();
    format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
        STANDARD.encode(body)
    )
}

/// The base64 body of a PEM (what must never be echoed back).
fn pem_body(pem: &str) -> String {
    pem.lines().filter(|l| !l.starts_with("-----")).collect()
}

fn uuids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|v| {
            v["uuid"]
                .as_str()
                .or_else(|| v["deployment_uuid"].as_str())
                .unwrap_or_else(|| panic!("uuid in {v}"))
                .to_string()
        })
        .collect()
}

fn count(r: &Reply) -> usize {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
        .as_array()
        .unwrap_or_else(|| panic!("a list: {:?}", r.body))
        .len()
}

/// A random, well-formed uuid that names nothing.
fn nobody() -> String {
    let hex = format!("{}{}{}", unique(""), unique(""), unique(""));
    let h = &hex[..32];
    format!(
        "{}-{}-4{}-8{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

fn provider_app_body(t: &Team, secret: &str, hook: &str) -> Value {
    json!({
        "name": unique("gh"),
        "api_url": "https://api.github.com",
        "html_url": "https://github.com",
        "app_id": 12345,
        "installation_id": 67890,
        "client_id": "Iv1.0123456789abcdef",
        "client_secret": secret,
        "webhook_secret": hook,
        "private_key_uuid": t.key,
    })
}

/// `base` with `fields` set; a key `-name` (with any value) removes `name`.
fn with(mut base: Value, fields: Value) -> Value {
    if let (Some(b), Some(f)) = (base.as_object_mut(), fields.as_object()) {
        for (k, v) in f {
            if let Some(gone) = k.strip_prefix('-') {
                b.remove(gone);
            } else {
                b.insert(k.clone(), v.clone());
            }
        }
    }
    base
}

// --- 1. Authentication and abilities ------------------------------------

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
    let auths = [
        ("none", Auth::None),
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

// --- 2. Team isolation ----------------------------------------------------

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

// --- 3. Projects and environments ----------------------------------------

#[tokio::test]
async fn projects_create_read_list_and_environments() {
    let t = Team::new().await;
    let name = unique("proj");
    let r = t
        .post(
            "/projects",
            json!({"name": format!("  {name}  "), "description": "first"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": uuid}), "201 carries only the uuid");

    let p = t.get(&format!("/projects/{uuid}")).await;
    assert_eq!(p.status, 200);
    assert_eq!(p.body["uuid"], json!(uuid));
    assert_eq!(p.body["name"], json!(name), "trimmed");
    assert_eq!(p.body["description"], "first");
    let envs = p.body["environments"]
        .as_array()
        .expect("environments")
        .clone();
    assert_eq!(envs.len(), 1);
    assert_eq!(envs[0]["name"], "production");
    assert_eq!(envs[0]["project_uuid"], json!(uuid));
    let production = envs[0]["uuid"].as_str().unwrap().to_string();
    let listed = t.get(&format!("/projects/{uuid}/environments")).await;
    assert_eq!(listed.body, json!(envs));

    // The list is sorted by name.
    for n in ["zeta", "alpha", "Mid", "beta"] {
        t.created("/projects", json!({"name": n})).await;
    }
    let all = t.get("/projects").await.body;
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 6);
    assert!(uuids(&all).contains(&uuid));
    assert!(
        all.as_array()
            .unwrap()
            .iter()
            .all(|p| p.get("environments").is_none()),
        "{all}"
    );

    // Environments: create, read by name and by uuid.
    let r = t
        .post(
            &format!("/projects/{uuid}/environments"),
            json!({"name": "staging"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let staging = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": staging}));
    for key in ["staging", staging.as_str()] {
        let r = t.get(&format!("/projects/{uuid}/{key}")).await;
        assert_eq!(r.status, 200, "{key}: {:?}", r.body);
        assert_eq!(r.body["uuid"], json!(staging));
        assert_eq!(r.body["name"], "staging");
        assert_eq!(r.body["project_uuid"], json!(uuid));
    }
    let r = t.get(&format!("/projects/{uuid}/{production}")).await;
    assert_eq!(r.body["name"], "production");
    let names: Vec<Value> = t.get(&format!("/projects/{uuid}")).await.body["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("production"), json!("staging")]);

    // Duplicates conflict, by exact name.
    for dup in ["staging", "production", " staging "] {
        let r = t
            .post(
                &format!("/projects/{uuid}/environments"),
                json!({"name": dup}),
            )
            .await;
        assert_eq!(r.status, 409, "{dup}: {:?}", r.body);
        assert_eq!(
            r.body,
            message("Environment with this name already exists.")
        );
    }
    // Invalid environment bodies.
    for (body, errors) in [
        (json!({}), json!({"name": ["This field is required."]})),
        (
            json!({"name": ""}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": 7}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": "a/b"}),
            json!({"name": ["The name may contain letters, digits, spaces, '-', '_' and '.' only."]}),
        ),
        (
            json!({"name": "qa", "color": "red"}),
            json!({"color": ["This field is not allowed."]}),
        ),
    ] {
        let r = t
            .post(&format!("/projects/{uuid}/environments"), body.clone())
            .await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(
        count(&t.get(&format!("/projects/{uuid}/environments")).await),
        2
    );

    // Unknown environments.
    for missing in ["nope", "Staging", &nobody()] {
        let r = t.get(&format!("/projects/{uuid}/{missing}")).await;
        assert_eq!(
            (r.status, r.body),
            (404, message("Environment not found.")),
            "{missing}"
        );
    }

    // An application can be placed in the new environment.
    let app = t
        .app(json!({"project_uuid": uuid, "environment_name": "staging"}))
        .await;
    let got = t.get(&format!("/applications/{app}")).await;
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body["environment_uuid"],
        json!(staging),
        "{:?}",
        got.body
    );
    assert_eq!(got.body["environment_name"], "staging");
    assert_eq!(got.body["project_uuid"], json!(uuid));
}

#[tokio::test]
async fn project_bodies_are_validated() {
    let t = Team::new().await;
    let long = "a".repeat(256);
    let cases = [
        (json!({}), json!({"name": ["This field is required."]})),
        (
            json!({"name": null}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": "   "}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": "p", "color": "red"}),
            json!({"color": ["This field is not allowed."]}),
        ),
        (
            json!({"color": "red", "size": 1}),
            json!({"name": ["This field is required."], "color": ["This field is not allowed."], "size": ["This field is not allowed."]}),
        ),
        (
            json!({"name": 5}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": ["p"]}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": "p", "description": true}),
            json!({"description": ["The description field must be a string."]}),
        ),
        (
            json!({"name": long}),
            json!({"name": ["The name field must not be greater than 255 characters."]}),
        ),
        (
            json!({"name": "a\u{0}b"}),
            json!({"name": ["The name field must not contain NUL characters."]}),
        ),
    ];
    for (body, errors) in cases {
        let r = t.post("/projects", body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    // 255 characters is fine.
    let ok = t
        .created("/projects", json!({"name": "b".repeat(255)}))
        .await;
    assert_eq!(
        t.get(&format!("/projects/{ok}")).await.body["name"],
        json!("b".repeat(255))
    );

    // Bodies that are not a JSON object.
    for (content_type, raw) in [
        (Some("application/json"), "{\"name\": "),
        (Some("application/json"), "{\"name\": \"p\",}"),
        (Some("application/json"), "[{\"name\": \"p\"}]"),
        (Some("application/json"), "\"p\""),
        (Some("application/json"), ""),
        (Some("text/plain"), "{\"name\": \"p\"}"),
    ] {
        let r = t
            .api
            .raw(
                "POST",
                "/api/v1/projects",
                Auth::Bearer(&t.token),
                content_type,
                raw.as_bytes().to_vec(),
            )
            .await;
        assert_eq!(r.status, 400, "{content_type:?} {raw:?}: {:?}", r.body);
        assert!(!r.message().is_empty(), "{raw:?}: {:?}", r.body);
    }
    // Only the team's first project and the 255-character one exist.
    assert_eq!(count(&t.get("/projects").await), 2);
}

#[tokio::test]
async fn a_project_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let staging = t
        .created(
            &format!("/projects/{}/environments", t.project),
            json!({"name": "staging"}),
        )
        .await;
    let app = t.app(json!({})).await;
    let second = t.app(json!({"environment_name": "staging"})).await;
    let path = format!("/projects/{}", t.project);
    for left in [2, 1] {
        let r = t.delete(&path).await;
        assert_eq!(r.status, 400, "{left} apps left: {:?}", r.body);
        assert_eq!(
            r.body,
            message("Project has resources, so it cannot be deleted.")
        );
        assert_eq!(t.get(&path).await.status, 200);
        assert_eq!(count(&t.get(&format!("{path}/environments")).await), 2);
        let gone = if left == 2 { &app } else { &second };
        let r = t.delete(&format!("/applications/{gone}")).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (200, message("Project deleted.")));
    assert_eq!(
        (t.get(&path).await.status, t.get(&path).await.body),
        (404, not_found("Project"))
    );
    for sub in ["environments", "production", "staging", staging.as_str()] {
        assert_eq!(t.get(&format!("{path}/{sub}")).await.status, 404, "{sub}");
    }
    assert!(!uuids(&t.get("/projects").await.body).contains(&t.project));
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (404, not_found("Project")));
    // Nothing can be placed in it any more.
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body["errors"]["project_uuid"],
        json!(["Project not found."])
    );
    // An unused project deletes straight away.
    let empty = t.created("/projects", json!({"name": "empty"})).await;
    assert_eq!(t.delete(&format!("/projects/{empty}")).await.status, 200);
    assert_eq!(t.get(&format!("/projects/{empty}")).await.status, 404);
}

// --- 4. Servers and destinations -------------------------------------------

#[tokio::test]
async fn servers_get_defaults_and_a_default_destination() {
    let t = Team::new().await;
    let uuid = t
        .created(
            "/servers",
            json!({"name": "plain", "ip": "198.51.100.10", "private_key_uuid": t.key}),
        )
        .await;
    let s = t.get(&format!("/servers/{uuid}")).await;
    assert_eq!(s.status, 200);
    let b = &s.body;
    assert_eq!(
        (
            &b["uuid"],
            &b["name"],
            &b["ip"],
            &b["port"],
            &b["user"],
            &b["proxy_type"]
        ),
        (
            &json!(uuid),
            &json!("plain"),
            &json!("198.51.100.10"),
            &json!(22),
            &json!("root"),
            &json!("traefik")
        )
    );
    assert_eq!(
        (
            &b["private_key_uuid"],
            &b["wildcard_domain"],
            &b["is_build_server"]
        ),
        (&json!(t.key), &Value::Null, &json!(false))
    );
    let dests = b["destinations"].as_array().unwrap();
    assert_eq!(dests.len(), 1);
    assert_eq!(
        (
            &dests[0]["name"],
            &dests[0]["network"],
            &dests[0]["server_uuid"]
        ),
        (&json!("default"), &json!("default"), &json!(uuid))
    );
    assert_eq!(
        t.get(&format!("/servers/{uuid}/destinations")).await.body,
        json!(dests)
    );
    assert!(
        !s.body
            .to_string()
            .contains(&pem_body(&api_tests::deploy::pem())),
        "no key text"
    );

    // Every field set, in other spellings.
    let full = t
        .created(
            "/servers",
            json!({"name": "full", "description": "d", "ip": "2001:db8::1", "port": 2222, "user": "deploy",
                   "private_key_uuid": t.key, "proxy_type": "CADDY", "wildcard_domain": "https://apps.example.com",
                   "is_build_server": false}),
        )
        .await;
    let b = t.get(&format!("/servers/{full}")).await.body;
    assert_eq!(
        (
            &b["ip"],
            &b["port"],
            &b["user"],
            &b["proxy_type"],
            &b["wildcard_domain"],
            &b["description"]
        ),
        (
            &json!("2001:db8::1"),
            &json!(2222),
            &json!("deploy"),
            &json!("caddy"),
            &json!("https://apps.example.com"),
            &json!("d")
        )
    );
    let host = t
        .created("/servers", json!({"name": "by-name", "ip": "host-1.example.com", "private_key_uuid": t.key, "proxy_type": "none"}))
        .await;
    assert_eq!(
        t.get(&format!("/servers/{host}")).await.body["proxy_type"],
        "none"
    );

    // The list is sorted by name and shows all four.
    let names: Vec<Value> = t
        .get("/servers")
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![
            json!("by-name"),
            json!("full"),
            json!("plain"),
            json!("srv")
        ]
    );
}

#[tokio::test]
async fn server_bodies_are_validated() {
    let t = Team::new().await;
    let base = json!({"name": "s", "ip": "198.51.100.20", "private_key_uuid": t.key});
    let proxy = "The selected proxy type is invalid. Allowed: traefik, caddy, none.";
    let wildcard = "The wildcard domain must be an http(s) URL, such as https://apps.example.com.";
    let ip = "The ip field must be an IP address or a host name.";
    let cases = [
        (
            json!({}),
            json!({"name": ["This field is required."], "ip": ["This field is required."], "private_key_uuid": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-name": null})),
            json!({"name": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-ip": null})),
            json!({"ip": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-private_key_uuid": null})),
            json!({"private_key_uuid": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"ip": "not an ip"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "1.2.3.4;reboot"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "-bad.example.com"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "a..b"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": 1234})),
            json!({"ip": ["The ip field must be a string."]}),
        ),
        (
            with(base.clone(), json!({"proxy_type": "nginx"})),
            json!({"proxy_type": [proxy]}),
        ),
        (
            with(base.clone(), json!({"proxy_type": "traefik2"})),
            json!({"proxy_type": [proxy]}),
        ),
        (
            with(base.clone(), json!({"ip": "300.1.1.1"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "a-.example.com"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "10.0.0"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"name": "  "})),
            json!({"name": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"wildcard_domain": "apps.example.com"})),
            json!({"wildcard_domain": [wildcard]}),
        ),
        (
            with(
                base.clone(),
                json!({"wildcard_domain": "ftp://apps.example.com"}),
            ),
            json!({"wildcard_domain": [wildcard]}),
        ),
        (
            with(base.clone(), json!({"port": 0})),
            json!({"port": ["The port field must be between 1 and 65535."]}),
        ),
        (
            with(base.clone(), json!({"port": 65536})),
            json!({"port": ["The port field must be between 1 and 65535."]}),
        ),
        (
            with(base.clone(), json!({"port": "22"})),
            json!({"port": ["The port field must be an integer."]}),
        ),
        (
            with(base.clone(), json!({"port": 22.5})),
            json!({"port": ["The port field must be an integer."]}),
        ),
        (
            with(base.clone(), json!({"user": "ro ot"})),
            json!({"user": ["The user field format is invalid."]}),
        ),
        (
            with(base.clone(), json!({"user": "$(id)"})),
            json!({"user": ["The user field format is invalid."]}),
        ),
        (
            with(base.clone(), json!({"is_build_server": "yes"})),
            json!({"is_build_server": ["The is build server field must be true or false."]}),
        ),
        (
            with(base.clone(), json!({"password": "hunter2"})),
            json!({"password": ["This field is not allowed."]}),
        ),
        (
            with(base.clone(), json!({"private_key_uuid": nobody()})),
            json!({"private_key_uuid": ["Private Key not found."]}),
        ),
        (
            with(base.clone(), json!({"private_key_uuid": "nope"})),
            json!({"private_key_uuid": ["Private Key not found."]}),
        ),
        (
            with(
                base.clone(),
                json!({"ip": "x y", "proxy_type": "nginx", "port": -1}),
            ),
            json!({"ip": [ip], "proxy_type": [proxy], "port": ["The port field must be between 1 and 65535."]}),
        ),
    ];
    for (body, errors) in cases {
        let r = t.post("/servers", body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(
        count(&t.get("/servers").await),
        1,
        "no refused create wrote a server"
    );
    // The refused creates took no reference on the key: once the team's own
    // server is gone, the key deletes.
    let r = t
        .api
        .raw(
            "POST",
            "/api/v1/servers",
            Auth::Bearer(&t.token),
            Some("application/json"),
            b"{\"name\":".to_vec(),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!((r.status, r.body), (200, message("Private Key deleted.")));
}

#[tokio::test]
async fn patching_a_server_changes_only_what_is_sent() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let before = t.get(&path).await.body;
    let r = t
        .patch(
            &path,
            json!({"name": "renamed", "description": "edge box", "port": 2200, "user": "admin",
                   "proxy_type": "Caddy", "wildcard_domain": "https://w.example.com"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let expect = |b: &Value| {
        assert_eq!(b["uuid"], json!(t.server));
        assert_eq!(b["name"], "renamed");
        assert_eq!(b["description"], "edge box");
        assert_eq!(b["port"], 2200);
        assert_eq!(b["user"], "admin");
        assert_eq!(b["proxy_type"], "caddy");
        assert_eq!(b["wildcard_domain"], "https://w.example.com");
        assert_eq!(b["ip"], "203.0.113.7", "not sent, kept");
        assert_eq!(b["private_key_uuid"], json!(t.key));
        assert_eq!(b["created_at"], before["created_at"]);
        assert_eq!(b["destinations"], before["destinations"]);
    };
    expect(&r.body);
    let stored = t.get(&path).await.body;
    expect(&stored);
    assert_eq!(stored, r.body, "the reply is the stored record");

    // Refused edits change nothing.
    for (body, field) in [
        (json!({"ip": "not an ip"}), "ip"),
        (json!({"port": 0}), "port"),
        (json!({"proxy_type": "nginx"}), "proxy_type"),
        (
            json!({"wildcard_domain": "w.example.com"}),
            "wildcard_domain",
        ),
        (json!({"uuid": "x"}), "uuid"),
        (json!({"private_key_uuid": nobody()}), "private_key_uuid"),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body["message"], INVALID);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
        assert_eq!(t.get(&path).await.body, stored, "{body} changed nothing");
    }

    // null clears the optional fields.
    let r = t
        .patch(&path, json!({"wildcard_domain": null, "description": null}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let b = t.get(&path).await.body;
    assert_eq!(
        (&b["wildcard_domain"], &b["description"], &b["name"]),
        (&Value::Null, &Value::Null, &json!("renamed"))
    );

    // Moving to another key moves the reference: the old key frees up.
    let k2 = t
        .created(
            "/security/keys",
            json!({"name": "second", "private_key": fresh_pem()}),
        )
        .await;
    let r = t.patch(&path, json!({"private_key_uuid": k2})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(t.get(&path).await.body["private_key_uuid"], json!(k2));
    assert_eq!(
        t.delete(&format!("/security/keys/{k2}")).await.status,
        400,
        "now in use"
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200,
        "no longer in use"
    );
}

#[tokio::test]
async fn a_patched_server_with_an_application_still_cannot_be_deleted() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let app = t.app(json!({})).await;
    let r = t
        .patch(&path, json!({"name": "patched", "port": 2022}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t.delete(&path).await;
    assert_eq!(
        r.status, 400,
        "the PATCH must not forget the server is in use: {:?}",
        r.body
    );
    assert_eq!(
        r.body,
        message("Server has resources, so you need to delete them before.")
    );
    assert_eq!(t.get(&path).await.status, 200);
    assert_eq!(t.get(&format!("/applications/{app}")).await.status, 200);
    // Same for a PATCH that moves the server to another key.
    let k2 = t
        .created(
            "/security/keys",
            json!({"name": "k2", "private_key": fresh_pem()}),
        )
        .await;
    assert_eq!(
        t.patch(&path, json!({"private_key_uuid": k2})).await.status,
        200
    );
    assert_eq!(t.delete(&path).await.status, 400);
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    assert_eq!(t.delete(&path).await.status, 200);
}

#[tokio::test]
async fn destinations_and_application_placement() {
    let t = Team::new().await;
    let dests = format!("/servers/{}/destinations", t.server);
    let network = unique("net");
    let r = t
        .post(&dests, json!({"name": "second", "network": network}))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let second = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": second}));
    let list = t.get(&dests).await.body;
    assert_eq!(
        uuids(&list),
        vec![t.destination.clone(), second.clone()],
        "oldest first"
    );
    assert_eq!(
        (
            &list[1]["name"],
            &list[1]["network"],
            &list[1]["server_uuid"]
        ),
        (&json!("second"), &json!(network), &json!(t.server))
    );
    assert_eq!(
        t.get(&format!("/servers/{}", t.server)).await.body["destinations"],
        list
    );

    for taken in [network.as_str(), "default"] {
        let r = t
            .post(&dests, json!({"name": "again", "network": taken}))
            .await;
        assert_eq!(r.status, 409, "{taken}: {:?}", r.body);
        assert_eq!(
            r.body,
            message(&format!(
                "A destination with network {taken} already exists on this server."
            ))
        );
    }
    let bad_network = "The network field format is invalid.";
    for (body, errors) in [
        (
            json!({}),
            json!({"name": ["This field is required."], "network": ["This field is required."]}),
        ),
        (
            json!({"name": "x"}),
            json!({"network": ["This field is required."]}),
        ),
        (
            json!({"name": "x", "network": "-lead"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "a b"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "n;rm"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "ok", "driver": "bridge"}),
            json!({"driver": ["This field is not allowed."]}),
        ),
    ] {
        let r = t.post(&dests, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(count(&t.get(&dests).await), 2);

    // Two destinations: the create must say which.
    let before = count(&t.get("/applications").await);
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body,
        invalid(
            json!({"destination_uuid": ["Server has multiple destinations and you do not set destination_uuid."]})
        )
    );
    // A destination of another server of the team does not do.
    let other = t
        .created(
            "/servers",
            json!({"name": "other", "ip": "198.51.100.30", "private_key_uuid": t.key}),
        )
        .await;
    let other_dest = uuids(&t.get(&format!("/servers/{other}/destinations")).await.body)[0].clone();
    for wrong in [other_dest.as_str(), &nobody()] {
        let r = t
            .post(
                "/applications/public",
                t.public(json!({"destination_uuid": wrong})),
            )
            .await;
        assert_eq!(r.status, 400, "{:?}", r.body);
        assert_eq!(
            r.body,
            invalid(
                json!({"destination_uuid": ["Provided destination_uuid does not belong to the specified server."]})
            )
        );
    }
    assert_eq!(
        count(&t.get("/applications").await),
        before,
        "nothing created"
    );
    let app = t.app(json!({"destination_uuid": second})).await;
    assert_eq!(
        t.get(&format!("/applications/{app}")).await.body["destination_uuid"],
        json!(second)
    );
}

#[tokio::test]
async fn a_server_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let app = t.app(json!({})).await;
    let r = t.delete(&path).await;
    assert_eq!(
        (r.status, r.body),
        (
            400,
            message("Server has resources, so you need to delete them before.")
        )
    );
    assert_eq!(t.get(&path).await.status, 200);
    assert_eq!(count(&t.get(&format!("{path}/destinations")).await), 1);
    // Its key is in use too.
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!(r.status, 400);

    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (200, message("Server deleted.")));
    for p in [path.clone(), format!("{path}/destinations")] {
        let r = t.get(&p).await;
        assert_eq!((r.status, r.body), (404, not_found("Server")), "{p}");
    }
    assert_eq!(count(&t.get("/servers").await), 0);
    assert_eq!(t.delete(&path).await.status, 404);
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(
        r.body["errors"]["server_uuid"],
        json!(["Server not found."])
    );
    // Deleting the server released the key.
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200
    );
}

// --- 5. Deploy keys ---------------------------------------------------------

#[tokio::test]
async fn deploy_keys_are_checked_and_never_shown() {
    let t = Team::new().await;
    let bad = "The private key must be a PEM-encoded private key (-----BEGIN … PRIVATE KEY-----).";
    let good = fresh_pem();
    let body = pem_body(&good);
    let cases = [
        (json!("not a key"), bad),
        (
            json!(format!(
                "-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----"
            )),
            bad,
        ),
        (
            json!(format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
            )),
            bad,
        ),
        (
            json!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n!!!not base64!!!\n-----END OPENSSH PRIVATE KEY-----"
            ),
            bad,
        ),
        (
            json!("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----"),
            bad,
        ),
        (
            json!(format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{body}")),
            bad,
        ),
        (
            json!(format!(
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n{body}\n-----END RSA PRIVATE KEY-----"
            )),
            "The private key must not be protected by a passphrase.",
        ),
        (json!(""), "This field is required."),
        (json!(42), "The private key field must be a string."),
    ];
    for (pem, expected) in cases {
        let r = t
            .post("/security/keys", json!({"name": "k", "private_key": pem}))
            .await;
        assert_eq!(r.status, 400, "{pem}: {:?}", r.body);
        assert_eq!(r.body, invalid(json!({"private_key": [expected]})), "{pem}");
    }
    let r = t
        .post(
            "/security/keys",
            json!({"private_key": good, "passphrase": "x"}),
        )
        .await;
    assert_eq!(
        r.body,
        invalid(
            json!({"name": ["This field is required."], "passphrase": ["This field is not allowed."]})
        )
    );
    assert_eq!(count(&t.get("/security/keys").await), 1, "nothing stored");

    // A good key: the 201, the read and the list never carry its text.
    let r = t
        .post(
            "/security/keys",
            json!({"name": "good", "description": "ci", "private_key": good}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": uuid}));
    let one = t.get(&format!("/security/keys/{uuid}")).await;
    assert_eq!(one.status, 200);
    assert_eq!(
        (
            &one.body["uuid"],
            &one.body["name"],
            &one.body["description"]
        ),
        (&json!(uuid), &json!("good"), &json!("ci"))
    );
    let digest = one.body["digest"].as_str().expect("digest").to_string();
    assert!(
        digest.starts_with("SHA256:") && digest.len() > 40,
        "{digest}"
    );
    assert!(one.body.get("private_key").is_none(), "{:?}", one.body);
    let list = t.get("/security/keys").await;
    for text in [one.body.to_string(), list.body.to_string()] {
        assert!(!text.contains(&body), "key text leaked: {text}");
        assert!(!text.contains("PRIVATE KEY"), "key text leaked: {text}");
        assert!(!text.contains("\"private_key\""), "{text}");
    }
    let listed = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["uuid"] == json!(uuid))
        .unwrap()
        .clone();
    assert_eq!(listed, one.body);

    // The digest identifies the key text: same text, same digest.
    let again = t
        .created(
            "/security/keys",
            json!({"name": "again", "private_key": format!("  {good}  ")}),
        )
        .await;
    assert_eq!(
        t.get(&format!("/security/keys/{again}")).await.body["digest"],
        json!(digest)
    );
    let other = t
        .created(
            "/security/keys",
            json!({"name": "other", "private_key": fresh_pem()}),
        )
        .await;
    assert_ne!(
        t.get(&format!("/security/keys/{other}")).await.body["digest"],
        json!(digest)
    );

    // Listed by name.
    let names: Vec<Value> = t
        .get("/security/keys")
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![
            json!("again"),
            json!("deploy key"),
            json!("good"),
            json!("other")
        ]
    );
}

#[tokio::test]
async fn keys_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let in_use = message("Private Key is in use by a server, an application or a provider app.");
    // Used by the team's server.
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!((r.status, &r.body), (400, &in_use));
    assert_eq!(
        t.get(&format!("/security/keys/{}", t.key)).await.status,
        200
    );

    // Used by a deploy-key application until it is deleted.
    let k = t
        .created(
            "/security/keys",
            json!({"name": "repo key", "private_key": fresh_pem()}),
        )
        .await;
    let r = t
        .post(
            "/applications/private-deploy-key",
            t.body(json!({"private_key_uuid": k, "git_repository": "git@github.com:coollabsio/coolify-examples.git",
                          "git_branch": "main", "build_pack": "nixpacks", "ports_exposes": "3000", "autogenerate_domain": false})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let r = t.delete(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, &r.body), (400, &in_use));
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);

    // An unused key deletes, once.
    let r = t.delete(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, r.body), (200, message("Private Key deleted.")));
    let r = t.get(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, r.body), (404, not_found("Private Key")));
    assert_eq!(t.delete(&format!("/security/keys/{k}")).await.status, 404);
    assert_eq!(
        uuids(&t.get("/security/keys").await.body),
        vec![t.key.clone()]
    );
    // A deleted key cannot be used.
    let r = t
        .post(
            "/servers",
            json!({"name": "s", "ip": "198.51.100.40", "private_key_uuid": k}),
        )
        .await;
    assert_eq!(
        r.body,
        invalid(json!({"private_key_uuid": ["Private Key not found."]}))
    );
}

// --- 6. Provider apps --------------------------------------------------------

#[tokio::test]
async fn provider_apps_hide_their_secrets() {
    let t = Team::new().await;
    let (secret, hook) = (unique("clientsecret"), unique("webhooksecret"));
    let mut created = Vec::new();
    for path in ["/provider-apps", "/github-apps"] {
        let body = provider_app_body(&t, &secret, &hook);
        let r = t.post(path, body.clone()).await;
        assert_eq!(r.status, 201, "{path}: {:?}", r.body);
        let text = r.body.to_string();
        assert!(
            !text.contains(&secret) && !text.contains(&hook),
            "secret in {text}"
        );
        assert!(
            r.body.get("client_secret").is_none() && r.body.get("webhook_secret").is_none(),
            "{text}"
        );
        for field in [
            "name",
            "api_url",
            "html_url",
            "app_id",
            "installation_id",
            "client_id",
            "private_key_uuid",
        ] {
            assert_eq!(r.body[field], body[field], "{path} {field}");
        }
        assert_eq!(
            (&r.body["custom_user"], &r.body["custom_port"]),
            (&json!("git"), &json!(22))
        );
        created.push(r.body.clone());
    }
    let a = t.get("/provider-apps").await;
    let b = t.get("/github-apps").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body, b.body, "one list, two names");
    let mut expected = created.clone();
    expected.sort_by(|x, y| x["name"].as_str().cmp(&y["name"].as_str()));
    assert_eq!(
        a.body,
        json!(expected),
        "the list shows what the creates returned"
    );
    let text = a.body.to_string();
    assert!(
        !text.contains(&secret) && !text.contains(&hook),
        "secret in {text}"
    );
    // Not even a token that may read secrets (`read:sensitive`) gets them.
    let sensitive = t.token_with(&["read", "read:sensitive"]).await;
    let text = t
        .call_as(&sensitive, "GET", "/provider-apps", None)
        .await
        .body
        .to_string();
    assert!(
        !text.contains(&secret) && !text.contains(&hook),
        "secret in {text}"
    );

    // The key is now in use by the provider apps.
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        400
    );
}

#[tokio::test]
async fn provider_app_bodies_are_validated() {
    let t = Team::new().await;
    let base = provider_app_body(&t, "s", "h");
    let url = "The value must be an http(s) URL.";
    let mut cases = Vec::new();
    for required in [
        "name",
        "api_url",
        "html_url",
        "app_id",
        "installation_id",
        "client_id",
        "client_secret",
        "private_key_uuid",
    ] {
        cases.push((
            with(base.clone(), json!({ format!("-{required}"): null })),
            json!({ required: ["This field is required."] }),
        ));
    }
    cases.extend([
        (with(base.clone(), json!({"api_url": "api.github.com"})), json!({"api_url": [url]})),
        (with(base.clone(), json!({"html_url": "javascript:alert(1)"})), json!({"html_url": [url]})),
        (with(base.clone(), json!({"app_id": "12"})), json!({"app_id": ["The app id field must be an integer."]})),
        (
            with(base.clone(), json!({"installation_id": 0})),
            json!({"installation_id": [format!("The installation id field must be between 1 and {}.", i64::MAX)]}),
        ),
        (with(base.clone(), json!({"custom_port": 70000})), json!({"custom_port": ["The custom port field must be between 1 and 65535."]})),
        (with(base.clone(), json!({"client_secret": 5})), json!({"client_secret": ["The client secret field must be a string."]})),
        (with(base.clone(), json!({"is_system_wide": true})), json!({"is_system_wide": ["This field is not allowed."]})),
        (with(base.clone(), json!({"private_key_uuid": nobody()})), json!({"private_key_uuid": ["Private Key not found."]})),
    ]);
    for (body, errors) in cases {
        for path in ["/provider-apps", "/github-apps"] {
            let r = t.post(path, body.clone()).await;
            assert_eq!(r.status, 400, "{path} {body}: {:?}", r.body);
            assert_eq!(r.body, invalid(errors.clone()), "{path} {body}");
        }
    }
    assert_eq!(count(&t.get("/provider-apps").await), 0, "nothing stored");
    // No refused create holds the key.
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200
    );
}

#[tokio::test]
async fn applications_are_created_through_a_provider_app() {
    let t = Team::new().await;
    let pa = t
        .created("/provider-apps", provider_app_body(&t, "s", "h"))
        .await;
    let body = |provider: &str| {
        t.body(json!({
            "provider_app_uuid": provider,
            "git_repository": "coollabsio/coolify-examples",
            "git_branch": "main",
            "build_pack": "nixpacks",
            "ports_exposes": "3000",
            "autogenerate_domain": false,
        }))
    };
    let mut apps = Vec::new();
    for path in [
        "/applications/private-provider-app",
        "/applications/private-github-app",
    ] {
        let r = t.post(path, body(&pa)).await;
        assert_eq!(r.status, 201, "{path}: {:?}", r.body);
        let uuid = r.body["uuid"].as_str().unwrap().to_string();
        let got = t.get(&format!("/applications/{uuid}")).await;
        assert_eq!(got.status, 200);
        assert_eq!(got.body["provider_app_uuid"], json!(pa));
        apps.push(uuid);
    }
    let before = count(&t.get("/applications").await);
    for unknown in [nobody(), "nope".to_string()] {
        let r = t
            .post("/applications/private-provider-app", body(&unknown))
            .await;
        assert_eq!(r.status, 400, "{unknown}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(json!({"provider_app_uuid": ["Provider app not found."]}))
        );
    }
    // Another team's provider app is unknown here too.
    let other = Team::new().await;
    let theirs = other
        .created("/provider-apps", provider_app_body(&other, "s", "h"))
        .await;
    let r = t
        .post("/applications/private-provider-app", body(&theirs))
        .await;
    assert_eq!(
        r.body,
        invalid(json!({"provider_app_uuid": ["Provider app not found."]}))
    );
    assert_eq!(
        count(&t.get("/applications").await),
        before,
        "nothing created"
    );
}

// --- 7. Deployments --------------------------------------------------------

#[tokio::test]
async fn instant_deploy_queues_a_deployment() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "deployed", "instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let d = r.body["deployment_uuid"]
        .as_str()
        .expect("deployment_uuid")
        .to_string();

    let got = t.get(&format!("/deployments/{d}")).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let g = &got.body;
    assert_eq!(g["deployment_uuid"], json!(d));
    assert_eq!(g["status"], "queued");
    assert_eq!(g["application_uuid"], json!(app));
    assert_eq!(g["application_name"], "deployed");
    assert_eq!(g["server_uuid"], json!(t.server));
    assert_eq!(g["destination_uuid"], json!(t.destination));
    assert!(
        g["deployment_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/deployments/{d}")),
        "{g}"
    );
    // Upper case names the same deployment.
    assert_eq!(
        t.get(&format!("/deployments/{}", d.to_uppercase()))
            .await
            .body,
        got.body
    );

    let running = t.get("/deployments").await;
    assert_eq!(running.status, 200);
    assert_eq!(running.body, json!([got.body]));
    let mine = t.get(&format!("/deployments/applications/{app}")).await;
    assert_eq!((mine.status, &mine.body), (200, &json!([got.body])));

    // Without instant_deploy nothing is queued.
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": false})),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(r.body.get("deployment_uuid").is_none(), "{:?}", r.body);
    let quiet = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(
        t.get(&format!("/deployments/applications/{quiet}"))
            .await
            .body,
        json!([])
    );
    assert_eq!(count(&t.get("/deployments").await), 1);

    let r = t.get(&format!("/deployments/{}", nobody())).await;
    assert_eq!((r.status, r.body), (404, not_found("Deployment")));
    let r = t.get(&format!("/deployments/{app}")).await;
    assert_eq!(
        (r.status, r.body),
        (404, not_found("Deployment")),
        "an application uuid is no deployment"
    );
}

#[tokio::test]
async fn deployments_of_an_application_page_newest_first() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let mut queued = vec![r.body["deployment_uuid"].as_str().unwrap().to_string()];
    for i in 0..4 {
        let r = t
            .patch(
                &format!("/applications/{app}"),
                json!({"description": format!("v{i}"), "instant_deploy": true}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    // The PATCH reply is the application; find the new deployments by listing.
    let path = format!("/deployments/applications/{app}");
    let all = t.get(&path).await;
    assert_eq!(all.status, 200, "{:?}", all.body);
    let listed = uuids(&all.body);
    assert_eq!(listed.len(), 5, "{:?}", all.body);
    assert_eq!(
        listed.last(),
        Some(&queued[0]),
        "the create's deployment is the oldest"
    );
    let times: Vec<&str> = all
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["created_at"].as_str().unwrap())
        .collect();
    let mut newest_first = times.clone();
    newest_first.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, newest_first);
    assert!(
        all.body
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["application_uuid"] == json!(app) && d["status"] == "queued")
    );
    queued = listed;

    for (query, expected) in [
        ("?take=2", &queued[..2]),
        ("?skip=1&take=2", &queued[1..3]),
        ("?skip=3", &queued[3..]),
        ("?skip=5", &queued[5..]),
        ("?skip=100&take=100", &queued[5..]),
        ("?take=0", &queued[..0]),
        ("?take=100", &queued[..]),
    ] {
        let r = t.get(&format!("{path}{query}")).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        assert_eq!(uuids(&r.body), expected.to_vec(), "{query}");
    }
    for (query, field, max) in [
        ("?take=abc", "take", 100),
        ("?take=-1", "take", 100),
        ("?take=101", "take", 100),
        ("?take=1.5", "take", 100),
        ("?skip=abc", "skip", 10_000),
        ("?skip=-1", "skip", 10_000),
    ] {
        let r = t.get(&format!("{path}{query}")).await;
        assert_eq!(r.status, 400, "{query}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(
                json!({ field: [format!("The {field} field must be an integer between 0 and {max}.")] })
            ),
            "{query}"
        );
    }
    // Every queued deployment shows in the team's list.
    let running = uuids(&t.get("/deployments").await.body);
    for d in &queued {
        assert!(running.contains(d), "{d} not in {running:?}");
    }
    let r = t
        .get(&format!("/deployments/applications/{}", nobody()))
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Application")));
}

#[tokio::test]
async fn deploying_needs_the_deploy_ability() {
    let t = Team::new().await;
    let read_write = t.token_with(&["read", "write"]).await;
    let deploy_only = t.token_with(&["deploy"]).await;
    let apps_before = count(&t.get("/applications").await);
    let body = t.public(json!({"name": "nodeploy", "instant_deploy": true}));
    let r = t
        .call_as(
            &read_write,
            "POST",
            "/applications/public",
            Some(body.clone()),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: deploy"))
    );
    let r = t
        .call_as(
            &deploy_only,
            "POST",
            "/applications/public",
            Some(body.clone()),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: write"))
    );
    let r = t.call_as(&deploy_only, "GET", "/deployments", None).await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: read"))
    );
    assert_eq!(
        count(&t.get("/applications").await),
        apps_before,
        "nothing created"
    );
    assert_eq!(count(&t.get("/deployments").await), 0, "nothing queued");

    // The same token creates without deploying, but cannot deploy by PATCH.
    let r = t
        .call_as(
            &read_write,
            "POST",
            "/applications/public",
            Some(t.public(json!({"instant_deploy": false}))),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let r = t
        .call_as(
            &read_write,
            "PATCH",
            &format!("/applications/{app}"),
            Some(json!({"description": "x", "instant_deploy": true})),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: deploy"))
    );
    assert_eq!(
        t.get(&format!("/applications/{app}")).await.body["description"],
        Value::Null,
        "the refused PATCH wrote nothing"
    );
    assert_eq!(
        t.get(&format!("/deployments/applications/{app}"))
            .await
            .body,
        json!([])
    );
    // With `deploy` added it works.
    let all = t.token_with(&["read", "write", "deploy"]).await;
    let r = t
        .call_as(&all, "POST", "/applications/public", Some(body))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let d = r.body["deployment_uuid"].as_str().unwrap().to_string();
    assert_eq!(uuids(&t.get("/deployments").await.body), vec![d]);
}

// --- Empty strings ------------------------------------------------------------

/// An empty string is `null`: optional fields take their default, and no
/// record is left without an attribute it needs (which would make it, and
/// every list holding it, unreadable).
#[tokio::test]
async fn empty_strings_never_break_a_record() {
    let t = Team::new().await;
    // Optional server fields sent empty take their defaults.
    let r = t
        .post(
            "/servers",
            json!({"name": "blanks", "ip": "198.51.100.50", "private_key_uuid": t.key,
                   "user": "", "proxy_type": "", "wildcard_domain": "", "description": ""}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let blanks = r.body["uuid"].as_str().unwrap().to_string();
    let b = t.get(&format!("/servers/{blanks}")).await;
    assert_eq!(b.status, 200, "{:?}", b.body);
    assert_eq!(
        (
            &b.body["user"],
            &b.body["proxy_type"],
            &b.body["wildcard_domain"],
            &b.body["description"]
        ),
        (
            &json!("root"),
            &json!("traefik"),
            &Value::Null,
            &Value::Null
        )
    );

    // A PATCH cannot take a server's name away; the server stays readable.
    let path = format!("/servers/{}", t.server);
    let r = t.patch(&path, json!({"description": "kept"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    for body in [
        json!({"name": ""}),
        json!({"name": "   "}),
        json!({"name": null}),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(json!({"name": ["This field is required."]})),
            "{body}"
        );
    }
    // Empty optional fields: user keeps its value, description and the
    // wildcard domain are cleared.
    let r = t
        .patch(
            &path,
            json!({"wildcard_domain": "https://w.example.com", "user": "deploy"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t
        .patch(
            &path,
            json!({"user": "", "description": "", "wildcard_domain": "", "proxy_type": ""}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let s = t.get(&path).await;
    assert_eq!(s.status, 200, "{:?}", s.body);
    assert_eq!(
        (
            &s.body["name"],
            &s.body["user"],
            &s.body["description"],
            &s.body["wildcard_domain"],
            &s.body["proxy_type"]
        ),
        (
            &json!("srv"),
            &json!("deploy"),
            &Value::Null,
            &Value::Null,
            &json!("traefik")
        )
    );
    let list = t.get("/servers").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert_eq!(uuids(&list.body).len(), 2);

    // A provider app's custom_user sent empty is the default `git`.
    let r = t
        .post(
            "/provider-apps",
            with(
                provider_app_body(&t, "s", "h"),
                json!({"custom_user": "", "organization": "", "webhook_secret": ""}),
            ),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(
        (&r.body["custom_user"], &r.body["organization"]),
        (&json!("git"), &Value::Null)
    );
    let list = t.get("/provider-apps").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert_eq!(list.body[0]["custom_user"], "git");

    // Projects and keys with empty descriptions read back as null.
    let p = t
        .created("/projects", json!({"name": "p", "description": ""}))
        .await;
    assert_eq!(
        t.get(&format!("/projects/{p}")).await.body["description"],
        Value::Null
    );
    let k = t
        .created(
            "/security/keys",
            json!({"name": "k", "description": " ", "private_key": fresh_pem()}),
        )
        .await;
    assert_eq!(
        t.get(&format!("/security/keys/{k}")).await.body["description"],
        Value::Null
    );
    assert_eq!(t.get("/projects").await.status, 200);
    assert_eq!(t.get("/security/keys").await.status, 200);
}

#[tokio::test]
async fn environment_and_destination_limits_hold_under_concurrency() {
    let t = Team::new().await;
    // 45 concurrent environments on a project that has one: 39 fit.
    let project = t.created("/projects", json!({"name": "many"})).await;
    let path = format!("/projects/{project}/environments");
    let replies = futures::future::join_all(
        (0..45).map(|i| t.post(&path, json!({"name": format!("env-{i:02}")}))),
    )
    .await;
    let made = replies.iter().filter(|r| r.status == 201).count();
    assert_eq!(
        made,
        39,
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(replies.iter().all(|r| r.status == 201 || r.status == 400));
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 40);
    // Deleted in one transaction with all of them.
    assert_eq!(t.delete(&format!("/projects/{project}")).await.status, 200);
    assert_eq!(t.get(&format!("/projects/{project}")).await.status, 404);

    // Concurrent destinations with one network name: one wins.
    let path = format!("/servers/{}/destinations", t.server);
    let replies = futures::future::join_all((0..10).map(|i| {
        t.post(
            &path,
            json!({"name": format!("d{i}"), "network": "shared-net"}),
        )
    }))
    .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 2);
}
