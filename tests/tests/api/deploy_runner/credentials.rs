//! Runner credentials: made, listed, revoked (also with their server),
//! and each kind of credential opening its own routes only.

use super::*;

#[tokio::test]
async fn runner_credentials_are_shown_once_listed_and_revoked() {
    let t = Team::new().await;
    let path = format!("/servers/{}/runners", t.server);
    let r = t.post(&path, json!({"name": "edge-1"})).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let token = r.body["token"].as_str().unwrap().to_string();
    let hex = token.strip_prefix("runner_").expect("runner_ prefix");
    assert!(
        hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token}"
    );
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body["name"], "edge-1");
    assert!(r.body["created_at"].is_string());

    let runner = Runner {
        api: Api::from_env(),
        uuid: uuid.clone(),
        token: token.clone(),
    };
    assert_eq!(runner.claim().await, None, "nothing queued");
    let listed = t.get(&path).await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    let list = listed.body.as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["uuid"], json!(uuid));
    assert!(
        list[0]["last_seen_at"].is_string(),
        "the claim was seen: {list:?}"
    );
    assert!(
        !listed.body.to_string().contains(hex),
        "the secret is shown once"
    );

    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": ""}), "name"),
        (json!({"name": 5}), "name"),
        (json!({"name": "x".repeat(256)}), "name"),
        (json!({"name": "x", "token": "mine"}), "token"),
    ] {
        let r = t.post(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
    }
    let r = t
        .post(
            &format!("/servers/{}/runners", nobody()),
            json!({"name": "x"}),
        )
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Server")));
    let r = Team::new().await.get(&path).await;
    assert_eq!(
        (r.status, r.body),
        (404, not_found("Server")),
        "another team's"
    );

    // At most 20 a server, however many ask at once.
    let made: Vec<_> = (1..30)
        .map(|i| t.post(&path, json!({"name": format!("r{i}")})))
        .collect();
    let made = join_all(made).await;
    assert_eq!(made.iter().filter(|r| r.status == 201).count(), 19);
    for r in made.iter().filter(|r| r.status != 201) {
        assert_eq!(
            (r.status, &r.body),
            (400, &message("A server can have at most 20 runners."))
        );
    }
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 20);

    let gone = t.delete(&format!("{path}/{uuid}")).await;
    assert_eq!((gone.status, gone.body), (200, message("Runner revoked.")));
    let r = runner.call("/claim", None).await;
    assert_eq!((r.status, r.body), (401, message("Unauthenticated.")));
    let again = t.delete(&format!("{path}/{uuid}")).await;
    assert_eq!((again.status, again.body), (404, not_found("Runner")));
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 19);
    // Room again for one.
    assert_eq!(t.post(&path, json!({"name": "after"})).await.status, 201);
}

/// A runner receives every variable of what it claims, shown-once ones
/// too, so `write` alone may not mint one: `read:sensitive` too, or `root`.
#[tokio::test]
async fn minting_a_runner_takes_write_and_read_sensitive() {
    let t = Team::new().await;
    let path = format!("/servers/{}/runners", t.server);
    let missing = |a: &str| message(&format!("Missing required permissions: {a}"));
    for (abilities, missing_one) in [
        (&["write"][..], Some("read:sensitive")),
        (&["write", "deploy"][..], Some("read:sensitive")),
        (&["read", "read:sensitive"][..], Some("write")),
        (&["write", "read:sensitive"][..], None),
        (&["root"][..], None),
    ] {
        let token = t.token_with(abilities).await;
        let r = t
            .call_as(&token, "POST", &path, Some(json!({"name": "r"})))
            .await;
        match missing_one {
            Some(m) => assert_eq!((r.status, &r.body), (403, &missing(m)), "{abilities:?}"),
            None => assert_eq!(r.status, 201, "{abilities:?}: {:?}", r.body),
        }
    }
    // Refused ones made nothing: the root and write+read:sensitive ones only.
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_deleted_server_s_runners_are_revoked() {
    let t = Team::new().await;
    let server = other_server(&t).await;
    let gone = Runner::new(&t, &server).await;
    let kept = Runner::new(&t, &t.server).await;
    assert_eq!(gone.claim().await, None);
    let r = t.delete(&format!("/servers/{server}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = gone.call("/claim", None).await;
    assert_eq!((r.status, r.body), (401, message("Unauthenticated.")));
    assert_eq!(
        kept.claim().await,
        None,
        "another server's runner still works"
    );
}

#[tokio::test]
async fn runner_and_user_credentials_each_open_their_own_routes_only() {
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let app = t.app(json!({})).await;
    let d = start(&t, &app).await;
    let api = Api::from_env();
    // A runner's credential is refused on the deploy and tracker APIs.
    for (method, path) in [
        ("GET", "/api/v1/applications".to_string()),
        ("GET", format!("/api/v1/deployments/{d}")),
        ("POST", format!("/api/v1/deployments/{d}/cancel")),
        ("GET", format!("/api/v1/servers/{}/runners", t.server)),
        ("GET", "/api/v1/user".to_string()),
    ] {
        for auth in [Auth::Bearer(&runner.token), Auth::Token(&runner.token)] {
            let r = api.call(method, &path, auth, None).await;
            assert_eq!(r.status, 401, "runner {method} {path}: {:?}", r.body);
        }
    }
    // No user credential (nor none) is good for a runner call.
    let calls = [
        "/claim".to_string(),
        format!("/deployments/{d}/heartbeat"),
        format!("/deployments/{d}/logs"),
        format!("/deployments/{d}/end"),
        "/cleanups/claim".to_string(),
        format!("/cleanups/{app}/done"),
    ];
    let fake = format!("runner_{}", "0".repeat(64));
    for path in &calls {
        for (label, auth) in [
            ("root token", Auth::Bearer(&t.token)),
            ("password", Auth::Basic(&t.user.name, &t.user.password)),
            ("none", Auth::None),
            ("unknown runner", Auth::Bearer(&fake)),
            ("runner in the query", Auth::Query(&runner.token)),
        ] {
            let r = api
                .call("POST", &format!("/runner/v1{path}"), auth, Some(json!({})))
                .await;
            assert_eq!(
                (r.status, &r.body),
                (401, &message("Unauthenticated.")),
                "{label} {path}"
            );
        }
    }
    assert_eq!(
        t.get(&format!("/deployments/{d}")).await.body["status"],
        "queued"
    );
}
