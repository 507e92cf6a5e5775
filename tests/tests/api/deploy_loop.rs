//! The whole loop, as a user runs it: an application with environment
//! variables, `/deploy`, and the reference runner (`tools/runner`, the
//! built binary) claiming the job and carrying it out against the
//! stand-in `docker` (`tools/runner/tests/fake/docker`), which records
//! its arguments. The deployment ends `finished` with its log; no secret
//! value is in any argument or log line; a failing step ends `failed`.

use std::path::PathBuf;

use api_tests::{
    deploy::{Team, runner::Runner},
    unique,
};
use serde_json::{Value, json};

/// The runner binary beside this test's executable (`target/debug`).
fn runner_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let debug = exe.parent().and_then(|d| d.parent()).expect("target/debug");
    let bin = debug.join("runner");
    assert!(bin.exists(), "{} (cargo build -p runner)", bin.display());
    bin
}

fn fake_docker() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tools/runner/tests/fake/docker")
}

/// Runs the runner once (claim, carry out, report) with `env` added; its
/// exit status and the stand-in docker's record.
async fn run_once(api: &str, token: &str, env: &[(&str, &str)]) -> (bool, String) {
    let dir = std::env::temp_dir().join(unique("loop"));
    std::fs::create_dir_all(&dir).unwrap();
    let token_file = dir.join("token");
    std::fs::write(&token_file, token).unwrap();
    let record = dir.join("docker.log");
    let mut cmd = tokio::process::Command::new(runner_binary());
    cmd.arg("--api")
        .arg(api)
        .arg("--token-file")
        .arg(&token_file)
        .arg("--once")
        .arg("--docker")
        .arg(fake_docker())
        .arg("--work-dir")
        .arg(dir.join("work"))
        .env("FAKE_DOCKER_LOG", &record)
        .env("NO_PROXY", "127.0.0.1")
        .env_remove("RUNNER_TOKEN")
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(std::time::Duration::from_secs(90), cmd.output())
        .await
        .expect("the runner ends within 90 s")
        .expect("the runner starts");
    let record_text = std::fs::read_to_string(&record).unwrap_or_default();
    // Shown with a failing test's output.
    println!("runner: {}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "runner: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), record_text)
}

async fn deploy(t: &Team, app: &str) -> String {
    let r = t.get(&format!("/deploy?uuid={app}")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["deployments"][0]["deployment_uuid"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_deployment_runs_on_the_reference_runner_and_keeps_its_secrets() {
    let t = Team::new().await;
    let app = t
        .created(
            "/applications/dockerfile",
            t.body(json!({"dockerfile": "FROM nginx:alpine\nEXPOSE 80\n", "ports_mappings": "8080:80"})),
        )
        .await;
    let envs = format!("/applications/{app}/envs");
    let runtime_secret = unique("pw-runtime");
    let build_secret = unique("npm-build");
    let both_secret = unique("both");
    for (key, value, runtime, buildtime) in [
        ("DB_PASSWORD", runtime_secret.as_str(), true, false),
        ("NPM_TOKEN", build_secret.as_str(), false, true),
        ("SHARED_SECRET", both_secret.as_str(), true, true),
    ] {
        let r = t
            .post(&envs, json!({"key": key, "value": value, "is_runtime": runtime, "is_buildtime": buildtime}))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    let runner = Runner::new(&t, &t.server).await;
    let d = deploy(&t, &app).await;
    let (_, record) = run_once(&t.api.base, &runner.token, &[]).await;

    let got = t.get(&format!("/deployments/{d}")).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    assert_eq!(got.body["status"], "finished", "{}", got.body);
    let logs: Vec<Value> = serde_json::from_str(got.body["logs"].as_str().expect("logs")).unwrap();
    assert!(logs.len() >= 3, "{logs:?}");
    let all_logs = got.body["logs"].as_str().unwrap();
    assert!(all_logs.contains("build"), "{all_logs}");
    // The stand-in docker built with the build-time variables in its
    // environment, ran with the runtime ones in an env file, published
    // the port; and no value is on any command line or in any log line.
    assert!(record.contains("env:NPM_TOKEN=set"), "{record}");
    assert!(record.contains("env:SHARED_SECRET=set"), "{record}");
    assert!(record.contains("envfile:DB_PASSWORD=set"), "{record}");
    assert!(record.contains("envfile:SHARED_SECRET=set"), "{record}");
    assert!(record.contains("8080:80"), "{record}");
    for secret in [&runtime_secret, &build_secret, &both_secret] {
        assert!(
            !record.contains(secret.as_str()),
            "{secret} in the docker record"
        );
        assert!(!all_logs.contains(secret.as_str()), "{secret} in the log");
    }
    // The stand-in echoes build args' values: the log shows them masked.
    assert!(all_logs.contains("********"), "{all_logs}");

    // A failing step fails the deployment, with the step named.
    let d = deploy(&t, &app).await;
    let (_, _) = run_once(
        &t.api.base,
        &runner.token,
        &[("FAKE_DOCKER_EXIT_build", "3")],
    )
    .await;
    let got = t.get(&format!("/deployments/{d}")).await;
    assert_eq!(got.body["status"], "failed", "{}", got.body);
    let log = got.body["logs"].as_str().unwrap_or_default();
    assert!(log.contains('3'), "{log}");
}

/// The job carries the variables of its scope, opened; the API masks
/// their values in the lines a runner sends, whatever the runner does.
#[tokio::test]
async fn a_job_carries_its_variables_and_the_api_masks_them_in_logs() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let envs = format!("/applications/{app}/envs");
    let secret = unique("s3cret");
    for body in [
        json!({"key": "API_KEY", "value": secret, "is_buildtime": false}),
        json!({"key": "API_KEY", "value": "preview-only", "is_preview": true}),
        json!({"key": "EMPTY", "value": null}),
    ] {
        assert_eq!(t.post(&envs, body).await.status, 201);
    }
    let runner = Runner::new(&t, &t.server).await;
    let d = deploy(&t, &app).await;
    let job = runner.claim().await.expect("the job");
    assert_eq!(job["deployment_uuid"], json!(d));
    let mut env = job["env"].as_array().expect("env").clone();
    env.sort_by_key(|e| e["key"].as_str().unwrap_or_default().to_string());
    assert_eq!(
        env,
        [
            json!({"key": "API_KEY", "value": secret, "is_buildtime": false, "is_runtime": true, "is_multiline": false, "is_literal": false}),
            json!({"key": "EMPTY", "value": "", "is_buildtime": true, "is_runtime": true, "is_multiline": false, "is_literal": false}),
        ]
    );
    let r = runner
        .log(&d, &[&format!("echo {secret} done"), "plain line"])
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let got = t.get(&format!("/deployments/{d}")).await.body;
    let logs = got["logs"].as_str().unwrap();
    assert!(!logs.contains(&secret), "{logs}");
    assert!(
        logs.contains("echo ******** done") && logs.contains("plain line"),
        "{logs}"
    );
    // A value changed, and a shown-once one created, while the run goes on
    // are masked from the next line on (every instance reads the
    // variables' version on each call; none keeps old values).
    let changed = unique("n3w-value");
    let r = t
        .patch(&envs, json!({"key": "API_KEY", "value": changed}))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let once = unique("0nce-value");
    let r = t
        .post(
            &envs,
            json!({"key": "ONCE", "value": once, "is_shown_once": true}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let r = runner
        .log(&d, &[&format!("now {changed} and {once}")])
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let logs = t.get(&format!("/deployments/{d}")).await.body["logs"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!logs.contains(&changed) && !logs.contains(&once), "{logs}");
    assert!(logs.contains("now ******** and ********"), "{logs}");
    // The shown-once value reaches no reader of the API, root included.
    let listed = t.get(&envs).await;
    assert!(
        !listed.body.to_string().contains(&once),
        "{:?}",
        listed.body
    );
    // The reason an end gives is masked too.
    let r = runner
        .call(
            &format!("/deployments/{d}/end"),
            Some(json!({"status": "failed", "error": format!("bad key {changed}")})),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let logs = t.get(&format!("/deployments/{d}")).await.body["logs"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        !logs.contains(&changed) && logs.contains("bad key ********"),
        "{logs}"
    );
}

/// A running container's last lines come from the server's runner, on
/// request: a read files an ask and answers 503 with `Retry-After`; the
/// runner's next claim hands the ask over; the runner's answer is masked
/// and kept, and the next read gets it.
#[tokio::test]
async fn application_logs_come_from_the_server_s_runner_masked() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let secret = unique("l0g-secret");
    let envs = format!("/applications/{app}/envs");
    let r = t
        .post(&envs, json!({"key": "API_KEY", "value": secret}))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let path = format!("/applications/{app}/logs?lines=3");

    // No runner of the server has called yet: said so, with when to retry.
    let r = t.get(&path).await;
    assert_eq!(r.status, 503, "{:?}", r.body);
    assert!(
        r.message()
            .starts_with("No runner of this application's server has been heard from"),
        "{:?}",
        r.body
    );
    assert_eq!(r.headers["retry-after"], "10");

    // A claim that says it reads asks gets this one; an older runner's
    // claim (no body) gets none.
    let runner = Runner::new(&t, &t.server).await;
    assert_eq!(runner.call("/claim", None).await.status, 204);
    let r = runner
        .call("/claim", Some(json!({"log_requests": true})))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let asks = r.body["log_requests"].as_array().expect("asks").clone();
    assert_eq!(asks.len(), 1, "{asks:?}");
    assert_eq!(asks[0]["application_uuid"], json!(app));
    assert_eq!(asks[0]["lines"], 3);
    assert_eq!(asks[0]["show_timestamps"], false);
    let r = t.get(&path).await;
    assert_eq!(r.status, 503, "{:?}", r.body);
    assert!(r.message().contains("has been asked"), "{:?}", r.body);

    // The reference runner answers it from `docker logs`.
    let api = t.api.base.clone();
    let say = format!("token is {secret}");
    let (_, record) = run_once(
        &api,
        &runner.token,
        &[("FAKE_DOCKER_LINES", "4"), ("FAKE_DOCKER_SAY", &say)],
    )
    .await;
    assert!(
        record.contains(&format!(
            "args\tinspect\t--format\t{{{{.State.Running}}}}\t{app}"
        )),
        "{record}"
    );
    assert!(
        record.contains(&format!("args\tlogs\t--tail\t3\t{app}")),
        "{record}"
    );
    let r = t.get(&path).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let logs = r.body["logs"].as_str().expect("logs").to_string();
    assert!(!logs.contains(&secret), "{logs}");
    assert!(logs.contains("token is ********"), "{logs}");
    assert_eq!(logs.lines().count(), 3, "{logs}");
    // Answered: the ask is gone.
    let r = runner
        .call("/claim", Some(json!({"log_requests": true})))
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    // Fewer lines are served from what is kept; more are asked for again.
    let r = t.get(&format!("/applications/{app}/logs?lines=1")).await;
    assert_eq!(
        (
            r.status,
            r.body["logs"].as_str().map(str::lines).map(Iterator::count)
        ),
        (200, Some(1))
    );
    assert_eq!(
        t.get(&format!("/applications/{app}/logs")).await.status,
        503
    );

    // No running container: Coolify's 400.
    run_once(&api, &runner.token, &[("FAKE_DOCKER_RUNNING", "false")]).await;
    let r = t.get(&format!("/applications/{app}/logs")).await;
    assert_eq!(
        (r.status, r.body),
        (400, json!({"message": "Application is not running."}))
    );
}

/// What a reader or a runner may send, and who may read.
#[tokio::test]
async fn application_logs_refuse_bad_input_and_other_callers() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    for (query, field) in [
        ("lines=0", "lines"),
        ("lines=10001", "lines"),
        ("lines=ten", "lines"),
        ("show_timestamps=maybe", "show_timestamps"),
    ] {
        let r = t.get(&format!("/applications/{app}/logs?{query}")).await;
        assert_eq!(r.status, 400, "{query}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{query}: {:?}", r.body);
    }
    let r = t
        .get(&format!(
            "/applications/{}/logs",
            api_tests::deploy::infra::nobody()
        ))
        .await;
    assert_eq!(r.status, 404, "{:?}", r.body);
    let other = Team::new().await;
    assert_eq!(
        other.get(&format!("/applications/{app}/logs")).await.status,
        404
    );
    let write = t.token_with(&["write"]).await;
    let r = t
        .call_as(&write, "GET", &format!("/applications/{app}/logs"), None)
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);

    let runner = Runner::new(&t, &t.server).await;
    let sent = format!("/applications/{app}/logs");
    for (body, field) in [
        (json!({"logs": "x"}), "running"),
        (json!({"running": "yes"}), "running"),
        (json!({"running": true, "logs": 5}), "logs"),
        (json!({"running": true, "lines": 0}), "lines"),
        (json!({"running": true, "extra": 1}), "extra"),
        (json!({"log_requests": "yes"}), "log_requests"),
    ] {
        let path = if field == "log_requests" {
            "/claim".to_string()
        } else {
            sent.clone()
        };
        let r = runner.call(&path, Some(body.clone())).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
    }
    // A runner of another server may not answer for this application.
    let elsewhere = Runner::new(&other, &other.server).await;
    let r = elsewhere
        .call(&sent, Some(json!({"running": true, "logs": "forged"})))
        .await;
    assert_eq!(r.status, 404, "{:?}", r.body);
    let r = t.get(&format!("/applications/{app}/logs")).await;
    assert_eq!(r.status, 503, "nothing was kept: {:?}", r.body);
}
