//! Deploy triggers as Coolify serves them (`/deploy`, start, stop,
//! restart, cancel), with their error cases, abilities and
//! `Idempotency-Key`.

use api_tests::{
    deploy::{
        Team,
        infra::*,
        runner::{Runner, deployment_of},
    },
    unique,
};
use futures::future::join_all;
use serde_json::{Value, json};

fn deployments_of(r: &api_tests::Reply) -> Vec<Value> {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["deployments"].as_array().unwrap().clone()
}

#[tokio::test]
async fn deploy_queues_each_named_application_as_coolify_answers() {
    let t = Team::new().await;
    let a = t.app(json!({"name": "alpha"})).await;
    let b = t.app(json!({"name": "beta"})).await;

    let r = t
        .get(&format!("/deploy?uuid={a},{}&force=true", nobody()))
        .await;
    let listed = deployments_of(&r);
    assert_eq!(listed.len(), 1, "an unknown uuid is left out: {listed:?}");
    assert_eq!(listed[0]["message"], "Application alpha deployment queued.");
    assert_eq!(listed[0]["resource_uuid"], json!(a));
    let d = listed[0]["deployment_uuid"].as_str().unwrap();
    let got = t.get(&format!("/deployments/{d}")).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    assert_eq!(
        (
            &got.body["status"],
            &got.body["force_rebuild"],
            &got.body["application_uuid"]
        ),
        (&json!("queued"), &json!(true), &json!(a))
    );

    // POST, with the uuids in the body as 4.2 takes them.
    let r = t.post("/deploy", json!({"uuid": format!("{a},{b}")})).await;
    let listed = deployments_of(&r);
    let resources: Vec<&Value> = listed.iter().map(|d| &d["resource_uuid"]).collect();
    assert_eq!(resources, [&json!(a), &json!(b)]);
    assert!(listed.iter().all(|d| d["deployment_uuid"].is_string()));
    // POST with the query, and no body at all.
    let r = t.call("POST", &format!("/deploy?uuid={b}"), None).await;
    assert_eq!(deployments_of(&r).len(), 1);

    let mine = t.get(&format!("/deployments/applications/{a}")).await;
    assert_eq!(mine.body["count"], 2, "{:?}", mine.body);
    let mine = t.get(&format!("/deployments/applications/{b}")).await;
    assert_eq!(mine.body["count"], 2, "{:?}", mine.body);

    for (path, status, want) in [
        ("/deploy".to_string(), 400, "You must provide uuid or tag."),
        (
            format!("/deploy?uuid={a}&tag=web"),
            400,
            "You can only use uuid or tag, not both.",
        ),
        (
            "/deploy?tag=web&pr=3".into(),
            400,
            "You can only use tag or pr, not both.",
        ),
        ("/deploy?uuid=,".into(), 400, "No UUIDs provided."),
        ("/deploy?tag=,".into(), 400, "No TAGs provided."),
        (
            "/deploy?tag=web".into(),
            404,
            "No resources found with this tag.",
        ),
        (
            format!("/deploy?uuid={}", nobody()),
            404,
            "No resources found.",
        ),
        ("/deploy?uuid=not-a-uuid".into(), 404, "No resources found."),
    ] {
        let r = t.get(&path).await;
        assert_eq!((r.status, r.body), (status, message(want)), "GET {path}");
    }
    for (path, field) in [
        (format!("/deploy?uuid={a}&force=maybe"), "force"),
        (format!("/deploy?uuid={a}&pr=-2"), "pr"),
    ] {
        let r = t.get(&path).await;
        assert_eq!(r.status, 400, "{path}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{path}: {:?}", r.body);
    }
    let r = t.post("/deploy", json!({"uuid": a, "what": 1})).await;
    assert_eq!(
        (r.status, &r.body),
        (
            400,
            &invalid(json!({"what": ["This field is not allowed."]}))
        )
    );
    let many: Vec<String> = (0..51).map(|_| nobody()).collect();
    let r = t.get(&format!("/deploy?uuid={}", many.join(","))).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    // None of the refused requests queued anything.
    assert_eq!(
        t.get(&format!("/deployments/applications/{a}")).await.body["count"],
        2
    );
}

#[tokio::test]
async fn start_restart_and_stop_queue_runs_and_list_as_count_and_deployments() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let started = deployment_of(
        &t.get(&format!("/applications/{app}/start?force=true"))
            .await,
    );
    let r = t
        .call("POST", &format!("/applications/{app}/restart"), None)
        .await;
    assert_eq!(r.body["message"], "Restart request queued.");
    let restarted = deployment_of(&r);
    let r = t
        .call(
            "POST",
            &format!("/applications/{app}/stop?docker_cleanup=false"),
            None,
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (200, &message("Application stopping request queued."))
    );
    let r = t.get(&format!("/applications/{app}/start")).await;
    assert_eq!(r.body["message"], "Deployment request queued.");

    // Coolify queues no deployment for a stop: it is neither listed nor
    // counted, here or among the team's running ones.
    let all = t.get(&format!("/deployments/applications/{app}")).await;
    assert_eq!(all.status, 200, "{:?}", all.body);
    assert_eq!(all.body["count"], 3);
    let list = all.body["deployments"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    let by = |u: &str| {
        list.iter()
            .find(|d| d["deployment_uuid"] == json!(u))
            .unwrap()
    };
    assert_eq!(by(&started)["force_rebuild"], true);
    assert_eq!(by(&started)["restart_only"], false);
    assert_eq!(by(&restarted)["restart_only"], true);
    assert_eq!(by(&restarted)["action"], "restart");
    assert!(list.iter().all(|d| d["action"] != "stop"), "{list:?}");
    assert!(
        list.iter()
            .all(|d| d["status"] == "queued" && d.get("log_lines").is_none())
    );
    let running = t.get("/deployments").await.body;
    assert_eq!(running.as_array().map(Vec::len), Some(3), "{running}");
    // Paged: count is every deployment, the list the window.
    let page = t
        .get(&format!("/deployments/applications/{app}?skip=1&take=2"))
        .await;
    assert_eq!(page.body["count"], 3);
    assert_eq!(page.body["deployments"].as_array().unwrap().len(), 2);

    // The server's runner still receives the stop, in its turn, and
    // reports on it by its uuid.
    let runner = Runner::new(&t, &t.server).await;
    let mut actions = Vec::new();
    while let Some(job) = runner.claim().await {
        let d = job["deployment_uuid"].as_str().unwrap().to_string();
        actions.push((job["action"].clone(), job["docker_cleanup"].clone()));
        assert_eq!(runner.end(&d, "finished").await.status, 200);
    }
    assert_eq!(
        actions.iter().map(|a| a.0.clone()).collect::<Vec<_>>(),
        [
            json!("deploy"),
            json!("restart"),
            json!("stop"),
            json!("deploy")
        ]
    );
    assert_eq!(actions[2].1, json!(false), "the stop's docker_cleanup");

    for action in ["start", "stop", "restart"] {
        let r = t.get(&format!("/applications/{}/{action}", nobody())).await;
        assert_eq!(
            (r.status, r.body),
            (404, not_found("Application")),
            "{action}"
        );
    }
    let r = t.get(&format!("/applications/{app}/start?force=2")).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
}

#[tokio::test]
async fn cancel_moves_only_open_deployments() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let d = deployment_of(&t.get(&format!("/applications/{app}/start")).await);
    // Of cancels at once, one moves it; the others meet it ended (400).
    let path = format!("/deployments/{d}/cancel");
    let all = join_all((0..5).map(|_| t.call("POST", &path, None))).await;
    assert_eq!(all.iter().filter(|r| r.status == 200).count(), 1, "{all:?}");
    assert!(
        all.iter().all(|r| r.status == 200 || r.status == 400),
        "{all:?}"
    );
    let r = all.iter().find(|r| r.status == 200).unwrap();
    assert_eq!(
        r.body,
        json!({"message": "Deployment cancelled successfully.", "deployment_uuid": d,
               "status": "cancelled-by-user"})
    );
    assert_eq!(
        t.get(&format!("/deployments/{d}")).await.body["status"],
        "cancelled-by-user"
    );
    assert!(
        !uuids(&t.get("/deployments").await.body).contains(&d),
        "a cancelled deployment is not running"
    );
    let again = t
        .call("POST", &format!("/deployments/{d}/cancel"), None)
        .await;
    assert_eq!(
        (again.status, again.body),
        (
            400,
            json!({"message": "Deployment cannot be cancelled. Current status: cancelled-by-user"})
        )
    );
    let r = t
        .call("POST", &format!("/deployments/{}/cancel", nobody()), None)
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Deployment")));
}

#[tokio::test]
async fn deploy_tokens_trigger_and_cancel_but_edit_nothing() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let read = t.token_with(&["read"]).await;
    let deploy = t.token_with(&["deploy"]).await;
    let missing = |a: &str| message(&format!("Missing required permissions: {a}"));
    let d = deployment_of(&t.get(&format!("/applications/{app}/start")).await);

    let triggers = [
        ("GET", format!("/deploy?uuid={app}")),
        ("POST", format!("/deploy?uuid={app}")),
        ("GET", format!("/applications/{app}/start")),
        ("POST", format!("/applications/{app}/restart")),
        ("GET", format!("/applications/{app}/stop")),
        ("POST", format!("/deployments/{d}/cancel")),
    ];
    for (method, path) in &triggers {
        let r = t.call_as(&read, method, path, None).await;
        assert_eq!(
            (r.status, &r.body),
            (403, &missing("deploy")),
            "read {method} {path}"
        );
    }
    for (method, path) in &triggers {
        let r = t.call_as(&deploy, method, path, None).await;
        assert_eq!(r.status, 200, "deploy {method} {path}: {:?}", r.body);
    }
    // `deploy` alone edits nothing and reads nothing.
    let r = t
        .call_as(
            &deploy,
            "PATCH",
            &format!("/applications/{app}"),
            Some(json!({"description": "x"})),
        )
        .await;
    assert_eq!((r.status, &r.body), (403, &missing("write")));
    let r = t
        .call_as(&deploy, "DELETE", &format!("/applications/{app}"), None)
        .await;
    assert_eq!((r.status, &r.body), (403, &missing("write")));
    let r = t
        .call_as(&deploy, "GET", &format!("/deployments/{d}"), None)
        .await;
    assert_eq!((r.status, &r.body), (403, &missing("read")));
    let r = t
        .call_as(
            &deploy,
            "POST",
            &format!("/servers/{}/runners", t.server),
            Some(json!({"name": "r"})),
        )
        .await;
    assert_eq!((r.status, &r.body), (403, &missing("write")));
    // (`write` alone would not do either: deploy_runner::credentials.)
    assert_eq!(
        t.get(&format!("/deployments/{d}")).await.body["status"],
        "cancelled-by-user"
    );
    // Another team's deployment is not found, not cancelled.
    let other = Team::new().await;
    let r = other
        .call("POST", &format!("/deployments/{d}/cancel"), None)
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Deployment")));
    let r = other.get(&format!("/deploy?uuid={app}")).await;
    assert_eq!((r.status, r.body), (404, message("No resources found.")));
}

/// A bodiless trigger with an `Idempotency-Key`: status, whether it was
/// replayed, body.
async fn keyed(t: &Team, method: &str, path: &str, key: &str) -> (u16, bool, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let r = reqwest::Client::new()
        .request(method, format!("{}/api/v1{path}", t.api.base))
        .header("authorization", format!("Bearer {}", t.token))
        .header("idempotency-key", key)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let replayed = r.headers().get("idempotent-replayed").is_some();
    (status, replayed, r.json::<Value>().await.unwrap())
}

#[tokio::test]
async fn a_trigger_resent_with_its_idempotency_key_queues_once() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let deploy = format!("/deploy?uuid={app}");
    let key = unique("k");
    let first = keyed(&t, "GET", &deploy, &key).await;
    let again = keyed(&t, "GET", &deploy, &key).await;
    assert_eq!(first.0, 200, "{:?}", first.2);
    assert_eq!((again.0, &again.2), (200, &first.2), "the same answer");
    assert!(again.1 && !first.1, "the second is the replay");
    let start = format!("/applications/{app}/start");
    let key = unique("k");
    let s1 = keyed(&t, "POST", &start, &key).await;
    let s2 = keyed(&t, "POST", &start, &key).await;
    assert_eq!(s1.2, s2.2);
    let d = s1.2["deployment_uuid"].as_str().unwrap().to_string();
    let cancel = format!("/deployments/{d}/cancel");
    let key = unique("k");
    let c1 = keyed(&t, "POST", &cancel, &key).await;
    let c2 = keyed(&t, "POST", &cancel, &key).await;
    assert_eq!(
        (c1.0, c2.0),
        (200, 200),
        "the replay is the first answer, not a 409"
    );
    let all = t.get(&format!("/deployments/applications/{app}")).await;
    assert_eq!(
        all.body["count"], 2,
        "one deploy and one start: {:?}",
        all.body
    );
}
