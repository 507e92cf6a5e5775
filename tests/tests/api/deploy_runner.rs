//! The runner protocol: credentials (made, listed, revoked), the claim
//! (one job to one of many racing runners, one run per application), the
//! run's moves (heartbeat, logs and their bound, end, cancel, a silent
//! runner) and a server's clean-ups; a runner sees its own server alone.

use std::time::Duration;

use api_tests::{
    Api, Auth,
    deploy::{
        Team,
        infra::*,
        runner::{Runner, deployment_of},
    },
};
use futures::future::join_all;
use serde_json::{Value, json};

/// How long the tests' runners may stay silent (scripts/test.sh sets
/// `RUNNER_SILENCE_SECONDS`), plus a margin.
fn past_silence() -> Duration {
    let secs: u64 = std::env::var("RUNNER_SILENCE_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    Duration::from_millis(secs * 1000 + 1500)
}

/// Queues a start of `app`; its deployment uuid.
async fn start(t: &Team, app: &str) -> String {
    deployment_of(&t.get(&format!("/applications/{app}/start")).await)
}

/// A second server of the team.
async fn other_server(t: &Team) -> String {
    t.created(
        "/servers",
        json!({"name": "srv2", "ip": "203.0.113.8", "private_key_uuid": t.key}),
    )
    .await
}

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

#[tokio::test]
async fn of_ten_racing_runners_exactly_one_gets_the_job() {
    let t = Team::new().await;
    let mut runners = Vec::new();
    for _ in 0..10 {
        runners.push(Runner::new(&t, &t.server).await);
    }
    let app = t
        .created(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": "RlJPTSBuZ2lueDphbHBpbmUKRVhQT1NFIDgw"})),
        )
        .await;
    let d = start(&t, &app).await;
    let claims = join_all(runners.iter().map(|r| r.call("/claim", None))).await;
    let won: Vec<_> = claims.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        won.len(),
        1,
        "{:?}",
        claims.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(claims.iter().all(|r| r.status == 200 || r.status == 204));
    let job = &won[0].body;
    assert_eq!(job["deployment_uuid"], json!(d));
    assert_eq!(job["application_uuid"], json!(app));
    assert_eq!(job["action"], "deploy");
    assert_eq!(job["build_pack"], "dockerfile");
    assert_eq!(job["container_name"], json!(app));
    assert_eq!(
        job["dockerfile"], "FROM nginx:alpine\nEXPOSE 80",
        "decoded text"
    );
    assert_eq!(job["docker_compose_raw"], Value::Null);
    assert_eq!(job["git_repository"], Value::Null);
    assert_eq!(job["env"], json!([]));
    assert_eq!(job["heartbeat_seconds"], 30);
    assert_eq!(job["timeout_seconds"], 3600);
    let got = t.get(&format!("/deployments/{d}")).await.body;
    assert_eq!(got["status"], "in_progress");
    let winner = claims.iter().position(|r| r.status == 200).unwrap();
    assert_eq!(got["runner_uuid"], json!(runners[winner].uuid));
    for r in &runners {
        assert_eq!(r.claim().await, None, "nothing left");
    }
}

#[tokio::test]
async fn an_application_runs_one_deployment_at_a_time() {
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let (a, b) = (t.app(json!({})).await, t.app(json!({})).await);
    let a1 = start(&t, &a).await;
    let a2 = start(&t, &a).await;
    let b1 = start(&t, &b).await;
    let first = runner.claim().await.expect("a job");
    assert_eq!(first["deployment_uuid"], json!(a1), "oldest first");
    // a2 waits behind a1; b1 is another application's.
    let next = runner.claim().await.expect("a job");
    assert_eq!(next["deployment_uuid"], json!(b1));
    assert_eq!(runner.claim().await, None, "a2 waits while a1 runs");
    assert_eq!(
        t.get(&format!("/deployments/{a2}")).await.body["status"],
        "queued"
    );

    let r = runner.end(&a1, "finished").await;
    assert_eq!((r.status, &r.body), (200, &json!({"status": "finished"})));
    let again = runner.end(&a1, "finished").await;
    assert_eq!(again.status, 409, "{:?}", again.body);
    assert_eq!(again.body["status"], "finished");
    let third = runner.claim().await.expect("a2 now");
    assert_eq!(third["deployment_uuid"], json!(a2));
    let r = runner
        .call(
            &format!("/deployments/{a2}/end"),
            Some(json!({"status": "failed", "error": "exit 1"})),
        )
        .await;
    assert_eq!((r.status, &r.body), (200, &json!({"status": "failed"})));
    let got = t.get(&format!("/deployments/{a2}")).await.body;
    assert_eq!(got["status"], "failed");
    let logs: Value = serde_json::from_str(got["logs"].as_str().unwrap()).unwrap();
    assert_eq!(logs[0]["output"], "Deployment failed: exit 1");
    // The list of running deployments holds b1 alone.
    assert_eq!(uuids(&t.get("/deployments").await.body), vec![b1.clone()]);

    for (body, field) in [
        (json!({"status": "done"}), "status"),
        (json!({}), "status"),
        (json!({"status": "finished", "error": 1}), "error"),
        (json!({"status": "finished", "extra": 1}), "extra"),
    ] {
        let r = runner
            .call(&format!("/deployments/{b1}/end"), Some(body.clone()))
            .await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
    }
    let r = runner.end(&nobody(), "finished").await;
    assert_eq!((r.status, r.body), (404, not_found("Deployment")));
}

#[tokio::test]
async fn a_silent_runner_s_run_fails_when_read_or_met_by_a_claim() {
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let (a, b) = (t.app(json!({})).await, t.app(json!({})).await);
    let read_one = start(&t, &a).await;
    let met_one = start(&t, &b).await;
    let met_next = start(&t, &b).await;
    assert_eq!(
        runner.claim().await.unwrap()["deployment_uuid"],
        json!(read_one)
    );
    assert_eq!(
        runner.claim().await.unwrap()["deployment_uuid"],
        json!(met_one)
    );
    // Heartbeats keep a run alive past the silence.
    let half = past_silence() / 2;
    tokio::time::sleep(half).await;
    let beat = runner.heartbeat(&read_one).await;
    assert_eq!((beat.status, &beat.body), (200, &json!({"cancel": false})));
    tokio::time::sleep(half).await;
    assert_eq!(
        t.get(&format!("/deployments/{read_one}")).await.body["status"],
        "in_progress"
    );
    tokio::time::sleep(past_silence()).await;

    let got = t.get(&format!("/deployments/{read_one}")).await.body;
    assert_eq!(got["status"], "failed", "{got}");
    let logs: Value = serde_json::from_str(got["logs"].as_str().unwrap()).unwrap();
    let last = logs.as_array().unwrap().last().unwrap()["output"]
        .as_str()
        .unwrap();
    assert!(last.contains("no heartbeat"), "{last}");
    let late = runner.heartbeat(&read_one).await;
    assert_eq!(late.status, 409, "{:?}", late.body);
    assert_eq!(late.body["status"], "failed");
    assert_eq!(runner.log(&read_one, &["late"]).await.status, 409);
    assert_eq!(runner.end(&read_one, "finished").await.status, 409);

    // The next claim meets b's silent run through b's lock: it fails it
    // and takes b's next deployment.
    let next = runner.claim().await.expect("b's next");
    assert_eq!(next["deployment_uuid"], json!(met_next));
    let got = t.get(&format!("/deployments/{met_one}")).await.body;
    assert_eq!(got["status"], "failed");
}

#[tokio::test]
async fn logs_are_kept_within_their_bound_and_shown_as_coolify_does() {
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let app = t.app(json!({})).await;
    let d = start(&t, &app).await;
    runner.claim().await.expect("the job");
    // Calls at once take distinct numbers: no line is lost.
    let at_once: Vec<_> = (0..5).map(|_| runner.log(&d, &["a", "b", "c"])).collect();
    for r in join_all(at_once).await {
        assert_eq!(r.body["accepted"], 3, "{:?}", r.body);
    }
    let got = t.get(&format!("/deployments/{d}")).await.body;
    let shown: Value = serde_json::from_str(got["logs"].as_str().unwrap()).unwrap();
    assert_eq!(shown.as_array().unwrap().len(), 15);
    let r = runner.log(&d, &["pulling", "started \"web\""]).await;
    assert_eq!(
        (r.status, &r.body),
        (200, &json!({"accepted": 2, "dropped": 0, "cancel": false}))
    );
    let got = t.get(&format!("/deployments/{d}")).await.body;
    let shown: Value = serde_json::from_str(got["logs"].as_str().expect("a JSON text")).unwrap();
    assert_eq!(shown.as_array().unwrap().len(), 17);
    assert_eq!(shown[16]["output"], "started \"web\"");
    assert_eq!(shown[16]["type"], "stdout");
    assert_eq!(shown[16]["hidden"], false);
    assert!(shown[16]["timestamp"].is_string());
    // Tokens without read:sensitive see no log, as in Coolify.
    let read = t.token_with(&["read"]).await;
    let plain = t
        .call_as(&read, "GET", &format!("/deployments/{d}"), None)
        .await;
    assert_eq!(plain.status, 200);
    assert!(plain.body.get("logs").is_none(), "{:?}", plain.body);

    // Bad calls are refused whole.
    let many: Vec<&str> = vec!["x"; 101];
    let long = "y".repeat(4097);
    for (body, field) in [
        (json!({"lines": many}), "lines"),
        (
            json!({"lines": [{"output": long, "type": "stdout"}]}),
            "lines.0.output",
        ),
        (
            json!({"lines": [{"output": "x", "type": "debug"}]}),
            "lines.0.type",
        ),
        (json!({"lines": "x"}), "lines"),
    ] {
        let r = runner
            .call(&format!("/deployments/{d}/logs"), Some(body))
            .await;
        assert_eq!(r.status, 400, "{field}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{field}: {:?}", r.body);
    }

    // 5,000 lines at most; the one after says so and is the last kept.
    let batch: Vec<String> = (0..100).map(|i| format!("line {i}")).collect();
    let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
    let (mut accepted, mut dropped) = (17, 0);
    for _ in 0..51 {
        let r = runner.log(&d, &batch).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        accepted += r.body["accepted"].as_u64().unwrap();
        dropped += r.body["dropped"].as_u64().unwrap();
    }
    assert_eq!((accepted, dropped), (4999, 118));
    let got = t.get(&format!("/deployments/{d}")).await.body;
    let shown: Value = serde_json::from_str(got["logs"].as_str().unwrap()).unwrap();
    let shown = shown.as_array().unwrap();
    assert_eq!(shown.len(), 5000);
    assert!(
        shown[4999]["output"]
            .as_str()
            .unwrap()
            .contains("reached its limit"),
        "{:?}",
        shown[4999]
    );
    let r = runner.log(&d, &["more"]).await;
    assert_eq!(
        r.body,
        json!({"accepted": 0, "dropped": 1, "cancel": false})
    );

    // Bytes: 4 KiB lines pass the MiB well before 5,000 lines.
    let d2 = start(&t, &t.app(json!({})).await).await;
    runner.claim().await.expect("the second job");
    let big = "z".repeat(4000);
    let lines: Vec<&str> = vec![big.as_str(); 100];
    let mut kept = 0;
    for _ in 0..3 {
        kept += runner.log(&d2, &lines).await.body["accepted"]
            .as_u64()
            .unwrap();
    }
    assert!(
        kept < 263 && kept > 250,
        "about 1 MiB of 4 KB lines: {kept}"
    );
    let got = t.get(&format!("/deployments/{d2}")).await;
    assert_eq!(got.status, 200);
    let text = got.body["logs"].as_str().unwrap();
    assert!(text.len() < (1 << 20) + 100_000, "{}", text.len());
}

#[tokio::test]
async fn a_cancel_mid_run_is_seen_at_the_next_heartbeat() {
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let app = t.app(json!({})).await;
    let d = start(&t, &app).await;
    let next = start(&t, &app).await;
    runner.claim().await.expect("the job");
    let r = t
        .call("POST", &format!("/deployments/{d}/cancel"), None)
        .await;
    assert_eq!(
        (r.status, &r.body["status"]),
        (200, &json!("cancelled-by-user"))
    );
    let beat = runner.heartbeat(&d).await;
    assert_eq!((beat.status, &beat.body), (200, &json!({"cancel": true})));
    assert_eq!(runner.log(&d, &["stopping"]).await.body["cancel"], true);
    // The application stays busy until the runner has stopped it.
    assert_eq!(runner.claim().await, None);
    let end = runner.end(&d, "finished").await;
    assert_eq!(
        (end.status, &end.body),
        (200, &json!({"status": "cancelled-by-user"}))
    );
    assert_eq!(runner.heartbeat(&d).await.status, 409);
    assert_eq!(
        runner.claim().await.expect("the next")["deployment_uuid"],
        json!(next)
    );
}

#[tokio::test]
async fn a_runner_acts_for_its_own_server_alone() {
    let t = Team::new().await;
    let server_b = other_server(&t).await;
    let runner_a = Runner::new(&t, &t.server).await;
    let runner_b = Runner::new(&t, &server_b).await;
    let app_b = t.app(json!({"server_uuid": server_b})).await;
    let d = start(&t, &app_b).await;
    assert_eq!(runner_a.claim().await, None, "B's job is not A's");
    let refused = |label: &'static str| {
        let (runner_a, d) = (&runner_a, d.clone());
        async move {
            for r in [
                runner_a.heartbeat(&d).await,
                runner_a.log(&d, &["x"]).await,
                runner_a.end(&d, "finished").await,
            ] {
                assert_eq!(
                    (r.status, &r.body),
                    (404, &not_found("Deployment")),
                    "{label}"
                );
            }
        }
    };
    refused("queued").await;
    assert!(runner_b.claim().await.is_some(), "B's runner gets it");
    refused("running").await;
    // A runner of the same server that did not claim it may not report it.
    let runner_b2 = Runner::new(&t, &server_b).await;
    let r = runner_b2.heartbeat(&d).await;
    assert_eq!((r.status, &r.body["status"]), (409, &json!("in_progress")));
    // Another team's runner sees nothing of this team.
    let other = Team::new().await;
    let stranger = Runner::new(&other, &other.server).await;
    assert_eq!(stranger.heartbeat(&d).await.status, 404);
    assert_eq!(runner_b.end(&d, "finished").await.status, 200);
}

#[tokio::test]
async fn a_deleted_application_s_clean_up_goes_to_its_server_s_runner() {
    let t = Team::new().await;
    let server_b = other_server(&t).await;
    let runner = Runner::new(&t, &t.server).await;
    let elsewhere = Runner::new(&t, &server_b).await;
    let app = t.app(json!({"name": "doomed"})).await;
    let queued = start(&t, &app).await;
    let r = t
        .delete(&format!("/applications/{app}?delete_volumes=false"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        t.get(&format!("/deployments/{queued}")).await.body["status"],
        "cancelled-by-user"
    );
    assert_eq!(
        runner.claim().await,
        None,
        "the cancelled run is not claimed"
    );

    assert_eq!(
        elsewhere.claim_cleanup().await.status,
        204,
        "another server's"
    );
    let mut job = runner.claim_cleanup().await;
    // The server's index of clean-ups is eventually consistent.
    for _ in 0..20 {
        if job.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        job = runner.claim_cleanup().await;
    }
    assert_eq!(job.status, 200, "{:?}", job.body);
    assert_eq!(
        job.body,
        json!({"id": app, "application_uuid": app, "application_name": "doomed",
               "delete_configurations": true, "delete_volumes": false,
               "docker_cleanup": true, "delete_connected_networks": true})
    );
    assert_eq!(
        runner.claim_cleanup().await.status,
        204,
        "leased to the runner"
    );
    assert_eq!(elsewhere.cleanup_done(&app).await.status, 404);
    let r = runner.cleanup_done(&app).await;
    assert_eq!((r.status, r.body), (200, message("Cleanup done.")));
    let r = runner.cleanup_done(&app).await;
    assert_eq!((r.status, r.body), (404, not_found("Cleanup")));
}

#[tokio::test]
async fn what_an_older_release_wrote_is_found_by_runners_after_the_repair() {
    use shared::{
        db,
        doctor::{self, Finding, Fix, Report},
    };
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let (client, table) = api_tests::table().await;
    let pk = db::keys::deploy_team_pk(&t.user.name);
    // A queued deployment without its queue entry, as instant_deploy
    // wrote it before runners.
    let app = t.app(json!({})).await;
    let d = start(&t, &app).await;
    let entries = client
        .query()
        .table_name(&table)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", db::s(db::keys::server_queue_pk(&t.server)))
        .send()
        .await
        .unwrap();
    for e in entries.items.unwrap_or_default() {
        let key = db::keys::key(db::text(&e, "pk"), db::text(&e, "sk"));
        client
            .delete_item()
            .table_name(&table)
            .set_key(Some(key))
            .send()
            .await
            .unwrap();
    }
    assert_eq!(runner.claim().await, None, "no runner finds it");
    // A clean-up without its server's index entry.
    let gone = t.app(json!({})).await;
    assert_eq!(t.delete(&format!("/applications/{gone}")).await.status, 200);
    client
        .update_item()
        .table_name(&table)
        .set_key(Some(db::keys::key(&pk, &format!("CLEANUP#{gone}"))))
        .update_expression("REMOVE gsi1pk, gsi1sk")
        .send()
        .await
        .unwrap();
    assert_eq!(runner.claim_cleanup().await.status, 204);

    let config = shared::Config::from_env().unwrap();
    let store = db::Db::new(db::connect(&config).await, config.table_name.clone());
    let finding = |sk: String, fix| Finding {
        what: "older record",
        pk: pk.clone(),
        sk,
        fix,
    };
    let mut report = Report {
        drift: vec![
            finding(format!("DEPLOYMENT#{d}"), Fix::Enqueue),
            finding(format!("CLEANUP#{gone}"), Fix::IndexCleanup),
        ],
        ..Report::default()
    };
    doctor::repair(&store, &mut report).await.unwrap();
    assert_eq!((report.repaired, report.skipped), (2, 0));
    let job = runner.claim().await.expect("found again");
    assert_eq!(job["deployment_uuid"], json!(d));
    let mut cleanup = runner.claim_cleanup().await;
    for _ in 0..20 {
        if cleanup.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        cleanup = runner.claim_cleanup().await;
    }
    assert_eq!(cleanup.body["id"], json!(gone), "{:?}", cleanup.body);
    // Again: nothing left to do (the deployment is no longer queued, the
    // clean-up is indexed).
    doctor::repair(&store, &mut report).await.unwrap();
    assert_eq!((report.repaired, report.skipped), (2, 2));
}
