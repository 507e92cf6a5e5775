//! A run's moves: the claim race, one run per application, a silent
//! runner, logs and their bound, and a cancel seen at the heartbeat.

use super::*;

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
async fn a_silent_runner_s_run_fails_on_its_own_or_when_met_by_a_claim() {
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
    // The sweeper (each scheduled run of the stream function; every second
    // here) fails it once its silence has passed; a read only shows it.
    let deadline = tokio::time::Instant::now() + past_silence() * 3;
    let got = loop {
        let got = t.get(&format!("/deployments/{read_one}")).await.body;
        if got["status"] != "in_progress" || tokio::time::Instant::now() > deadline {
            break got;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    };
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

    // b's silent run is failed (by the sweeper, or by the next claim that
    // meets its lock, whichever comes first), and b's next deployment is
    // claimed.
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
