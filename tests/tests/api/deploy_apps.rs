//! Listing, reading, editing and deleting applications: team scope, name
//! order, 404s, secrets by ability, PATCH rules, DELETE flags and the
//! cleanup record it leaves.

use api_tests::deploy::Team;
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Value, json};
use shared::db;

const SECRETS: [&str; 7] = [
    "http_basic_auth_password",
    "dockerfile",
    "custom_labels",
    "manual_webhook_secret_provider_a",
    "manual_webhook_secret_provider_d",
    "docker_compose_raw",
    "private_key_uuid",
];

#[tokio::test]
async fn list_is_by_name_and_per_team() {
    let t = Team::new().await;
    let other = Team::new().await;
    for name in ["charlie", "alpha", "bravo"] {
        t.app(json!({"name": name})).await;
    }
    let foreign = other.app(json!({"name": "aardvark"})).await;
    let r = t.get("/applications").await;
    assert_eq!(r.status, 200);
    let names: Vec<&str> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "bravo", "charlie"]);
    // Another team's application does not exist for this one.
    let r = t.get(&format!("/applications/{foreign}")).await;
    assert_eq!(
        (r.status, r.body),
        (404, json!({"message": "Application not found."}))
    );
    for bad in ["00000000-0000-4000-8000-000000000000", "not-a-uuid", "%20"] {
        let r = t.get(&format!("/applications/{bad}")).await;
        assert_eq!(
            (r.status, r.body),
            (404, json!({"message": "Application not found."})),
            "{bad}"
        );
    }
    for (method, body) in [("PATCH", Some(json!({"name": "x"}))), ("DELETE", None)] {
        let r = t
            .call(method, &format!("/applications/{foreign}"), body)
            .await;
        assert_eq!(r.status, 404, "{method}");
    }
    assert_eq!(
        other.get(&format!("/applications/{foreign}")).await.body["name"],
        "aardvark",
        "untouched"
    );
}

#[tokio::test]
async fn the_record_and_its_secrets() {
    let t = Team::new().await;
    let uuid = t
        .created(
            "/applications/private-deploy-key",
            t.public(json!({
                "private_key_uuid": t.key,
                "name": "web",
                "description": "the web app",
                "domains": "https://web.example.com",
                "is_http_basic_auth_enabled": true,
                "http_basic_auth_username": "admin",
                "http_basic_auth_password": "s3cret-pass",
                "custom_labels": "traefik.enable=true",
                "health_check_enabled": true,
                "health_check_path": "/health",
            })),
        )
        .await;
    let full = t.get(&format!("/applications/{uuid}")).await.body;
    assert_eq!(full["uuid"], json!(uuid));
    assert_eq!(full["fqdn"], "https://web.example.com");
    assert_eq!(full["description"], "the web app");
    assert_eq!(
        full["git_repository"],
        "https://github.com/coollabsio/coolify-examples"
    );
    assert_eq!(full["health_check_path"], "/health");
    assert_eq!(full["health_check_enabled"], true);
    assert_eq!(full["http_basic_auth_password"], "s3cret-pass");
    assert_eq!(full["custom_labels"], "traefik.enable=true");
    assert_eq!(full["private_key_uuid"], json!(t.key));
    for field in [
        "created_at",
        "updated_at",
        "status",
        "environment_uuid",
        "destination_uuid",
    ] {
        assert!(full[field].is_string(), "{field}");
    }
    for field in [
        "instant_deploy",
        "force_domain_override",
        "autogenerate_domain",
        "domains",
    ] {
        assert!(
            full.get(field).is_none(),
            "{field} is not part of the record"
        );
    }

    let read = t.token_with(&["read"]).await;
    for r in [
        t.call_as(&read, "GET", &format!("/applications/{uuid}"), None)
            .await
            .body,
        t.call_as(&read, "GET", "/applications", None).await.body[0].clone(),
    ] {
        for secret in SECRETS {
            assert!(r.get(secret).is_none(), "{secret} hidden from a read token");
        }
        assert!(!r.to_string().contains("s3cret-pass"));
        assert_eq!(r["http_basic_auth_username"], "admin");
    }
    let sensitive = t.token_with(&["read", "read:sensitive"]).await;
    let r = t
        .call_as(&sensitive, "GET", &format!("/applications/{uuid}"), None)
        .await
        .body;
    assert_eq!(r["http_basic_auth_password"], "s3cret-pass");
    // write alone cannot read.
    let write = t.token_with(&["write"]).await;
    let r = t.call_as(&write, "GET", "/applications", None).await;
    assert_eq!(
        (r.status, r.body),
        (
            403,
            json!({"message": "Missing required permissions: read"})
        )
    );
}

#[tokio::test]
async fn patch_rules() {
    let t = Team::new().await;
    let uuid = t.app(json!({"name": "before"})).await;
    let path = format!("/applications/{uuid}");
    let r = t
        .patch(
            &path,
            json!({
                "name": "after", "description": "d", "git_branch": "release/1.0",
                "ports_exposes": "8080", "health_check_interval": 30, "is_static": true,
                "limits_memory": "1g", "static_image": "nginx:alpine", "is_spa": true,
                "manual_webhook_secret_gitea": "hook-d", "redirect": "www",
            }),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["name"], "after");
    assert_eq!(r.body["uuid"], json!(uuid));
    let got = t.get(&path).await.body;
    for (field, want) in [
        ("name", json!("after")),
        ("description", json!("d")),
        ("git_branch", json!("release/1.0")),
        ("ports_exposes", json!("8080")),
        ("health_check_interval", json!(30)),
        ("is_static", json!(true)),
        ("limits_memory", json!("1g")),
        ("is_spa", json!(true)),
        ("manual_webhook_secret_provider_d", json!("hook-d")),
        ("redirect", json!("www")),
    ] {
        assert_eq!(got[field], want, "{field}");
    }
    // Bad values, unknown or create-only fields: 400 naming them, nothing changed.
    for (body, field) in [
        (json!({"name": 1}), "name"),
        (
            json!({"health_check_interval": "30"}),
            "health_check_interval",
        ),
        (json!({"build_pack": "rails"}), "build_pack"),
        (json!({"colour": "red"}), "colour"),
        (json!({"fqdn": "https://x.io"}), "fqdn"),
        (json!({"dockerfile": "FROM x"}), "dockerfile"),
        (json!({"autogenerate_domain": true}), "autogenerate_domain"),
        (json!({"private_key_uuid": t.key}), "private_key_uuid"),
        (json!({"domains": "not a url"}), "domains"),
        (
            json!({"project_uuid": "00000000-0000-4000-8000-000000000000"}),
            "project_uuid",
        ),
        (json!({"environment_name": "staging"}), "environment_name"),
        (
            json!({"is_http_basic_auth_enabled": true}),
            "http_basic_auth_password",
        ),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
    }
    let unchanged = t.get(&path).await.body;
    assert_eq!(
        unchanged["updated_at"], got["updated_at"],
        "refused PATCHes wrote nothing"
    );
    // Moving to another environment of the project, by name.
    let env = t
        .created(
            &format!("/projects/{}/environments", t.project),
            json!({"name": "staging"}),
        )
        .await;
    let r = t.patch(&path, json!({"environment_name": "staging"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (
            r.body["environment_uuid"].as_str(),
            r.body["environment_name"].as_str()
        ),
        (Some(env.as_str()), Some("staging"))
    );
    // Malformed bodies.
    for raw in [b"{".to_vec(), b"[]".to_vec(), Vec::new()] {
        let r = t
            .api
            .raw(
                "PATCH",
                &format!("/api/v1{path}"),
                api_tests::Auth::Bearer(&t.token),
                Some("application/json"),
                raw,
            )
            .await;
        assert_eq!(r.status, 400);
    }
    let r = t
        .patch(
            "/applications/00000000-0000-4000-8000-000000000000",
            json!({"name": "x"}),
        )
        .await;
    assert_eq!(
        (r.status, r.body),
        (404, json!({"message": "Application not found."}))
    );
}

#[tokio::test]
async fn delete_flags_and_cleanup_record() {
    let t = Team::new().await;
    let (client, table) = api_tests::table().await;
    let cleanup = |uuid: String| {
        let client = client.clone();
        let table = table.clone();
        let team = t.user.name.clone();
        async move {
            client
                .get_item()
                .table_name(table)
                .set_key(Some(db::keys::deploy(&team, &format!("CLEANUP#{uuid}"))))
                .send()
                .await
                .unwrap()
                .item
        }
    };
    let bool_of = |item: &db::Item, k: &str| match item.get(k) {
        Some(AttributeValue::Bool(b)) => *b,
        other => panic!("{k}: {other:?}"),
    };

    let uuid = t.app(json!({"domains": "https://gone.example.com"})).await;
    for bad in ["maybe", "yes", "TRUE", "", "1", "0"] {
        let r = t
            .delete(&format!("/applications/{uuid}?delete_volumes={bad}"))
            .await;
        assert_eq!(r.status, 400, "{bad:?}");
        assert!(r.body["errors"]["delete_volumes"].is_array());
    }
    assert_eq!(
        t.get(&format!("/applications/{uuid}")).await.status,
        200,
        "still there"
    );
    let r = t
        .delete(&format!(
            "/applications/{uuid}?delete_volumes=false&docker_cleanup=false"
        ))
        .await;
    assert_eq!(
        (r.status, r.body),
        (
            200,
            json!({"message": "Application deletion request queued."})
        )
    );
    assert_eq!(
        t.get(&format!("/applications/{uuid}")).await.status,
        404,
        "gone at once"
    );
    let item = cleanup(uuid.clone()).await.expect("cleanup record");
    assert!(bool_of(&item, "delete_configurations"));
    assert!(!bool_of(&item, "delete_volumes"));
    assert!(!bool_of(&item, "docker_cleanup"));
    assert!(bool_of(&item, "delete_connected_networks"));
    // Its domain is free again; deleting twice is a 404.
    t.app(json!({"domains": "https://gone.example.com"})).await;
    assert_eq!(t.delete(&format!("/applications/{uuid}")).await.status, 404);

    let uuid = t.app(json!({})).await;
    assert_eq!(t.delete(&format!("/applications/{uuid}")).await.status, 200);
    let item = cleanup(uuid).await.expect("cleanup record");
    for flag in [
        "delete_configurations",
        "delete_volumes",
        "docker_cleanup",
        "delete_connected_networks",
    ] {
        assert!(bool_of(&item, flag), "{flag} defaults to true");
    }
    let listed: Vec<Value> = t
        .get("/applications")
        .await
        .body
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), 1);
}

/// A token for `user` acting for `team`, with `scopes`.
async fn team_token(
    api: &api_tests::Api,
    user: &api_tests::TestUser,
    team: &str,
    scopes: &[&str],
) -> String {
    let r = api
        .call(
            "POST",
            &format!("/api/v1/users/{}/tokens", user.name),
            api_tests::Auth::Basic(&user.name, &user.password),
            Some(json!({"name": api_tests::unique("t"), "scopes": scopes, "team": team})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body["sha1"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn organisation_teams_share_and_leavers_lose_access() {
    let t = Team::new().await;
    let api = &t.api;
    let owner = &t.user;
    let member = api.new_user("mem").await;
    let org = api.new_org(owner, "dorg", "private").await;
    let teams = api
        .call(
            "GET",
            &format!("/api/v1/orgs/{org}/teams"),
            api_tests::Auth::Token(&owner.token),
            None,
        )
        .await;
    let owners = teams.body[0]["id"].as_i64().unwrap();
    let members = format!("/api/v1/teams/{owners}/members/{}", member.name);
    let r = api
        .call("PUT", &members, api_tests::Auth::Token(&owner.token), None)
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);

    let owner_org = team_token(api, owner, &org, &["root"]).await;
    let member_org = team_token(api, &member, &org, &["root"]).await;
    let project = t
        .call_as(
            &owner_org,
            "POST",
            "/projects",
            Some(json!({"name": "shared"})),
        )
        .await;
    assert_eq!(project.status, 201);
    let uuid = project.body["uuid"].as_str().unwrap();
    // The member's org token sees the org's project; the owner's own team does not.
    assert_eq!(
        t.call_as(&member_org, "GET", &format!("/projects/{uuid}"), None)
            .await
            .status,
        200
    );
    assert_eq!(t.get(&format!("/projects/{uuid}")).await.status, 404);

    // Removed from the organisation, the member's org token stops working.
    let r = api
        .call(
            "DELETE",
            &members,
            api_tests::Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    let r = t
        .call_as(&member_org, "GET", &format!("/projects/{uuid}"), None)
        .await;
    assert_eq!(
        (r.status, r.body),
        (401, json!({"message": "Unauthenticated."}))
    );
    assert_eq!(
        t.call_as(&owner_org, "GET", &format!("/projects/{uuid}"), None)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn deleting_an_application_cancels_its_queued_deployments() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let (app, deployment) = (
        r.body["uuid"].as_str().unwrap().to_string(),
        r.body["deployment_uuid"].as_str().unwrap().to_string(),
    );
    let queued = |body: &Value| {
        body.as_array()
            .unwrap()
            .iter()
            .any(|d| d["deployment_uuid"] == json!(deployment))
    };
    assert!(queued(&t.get("/deployments").await.body));
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    let d = t.get(&format!("/deployments/{deployment}")).await;
    assert_eq!(
        (d.status, d.body["status"].as_str()),
        (200, Some("cancelled-by-user"))
    );
    assert!(!queued(&t.get("/deployments").await.body), "left the queue");
}

#[tokio::test]
async fn organisation_members_without_admin_access_only_read() {
    let t = Team::new().await;
    let api = &t.api;
    let owner = &t.user;
    let viewer = api.new_user("view").await;
    let org = api.new_org(owner, "vorg", "public").await;
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            api_tests::Auth::Token(&owner.token),
            Some(json!({"name": "viewers", "permission": "read"})),
        )
        .await;
    assert_eq!(team.status, 201, "{:?}", team.body);
    let id = team.body["id"].as_i64().unwrap();
    let r = api
        .call(
            "PUT",
            &format!("/api/v1/teams/{id}/members/{}", viewer.name),
            api_tests::Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);

    let owner_org = team_token(api, owner, &org, &["root"]).await;
    let project = t
        .call_as(&owner_org, "POST", "/projects", Some(json!({"name": "p"})))
        .await;
    assert_eq!(project.status, 201, "an owner writes");

    // The viewer's root token for the organisation is refused; a read token reads.
    let root = team_token(api, &viewer, &org, &["root"]).await;
    let r = t.call_as(&root, "GET", "/projects", None).await;
    assert_eq!(
        (r.status, r.body),
        (403, json!({"message": "Missing required team role."}))
    );
    let read = team_token(api, &viewer, &org, &["read"]).await;
    let r = t.call_as(&read, "GET", "/projects", None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body.as_array().unwrap().len(), 1);
}
