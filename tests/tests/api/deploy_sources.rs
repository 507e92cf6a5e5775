//! What each source stores: Dockerfile and compose text (plain or
//! base64), exposed ports, default names and image tags.

use api_tests::deploy::{Team, creates::*};
use base64::{Engine, engine::general_purpose::STANDARD};
use serde_json::{Value, json};

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
