//! The six application creates: required and accepted fields per
//! endpoint, the environment rule, Coolify's aliases, references, bad
//! bodies and credentials.

use api_tests::{
    Auth,
    deploy::{Team, creates::*},
};
use serde_json::{Value, json};

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
