//! Fault tests, run one at a time by `scripts/fault-test.sh` against an
//! API and a DynamoDB Local of their own (freezing the shared one would
//! stall every other test), which sets `FAULT_DDB_PID` (the database
//! process), `FAULT_PROXY_URL` (the proxy the functions reach it by,
//! scripts/ddb-fault-proxy.py), `CHECK_DATA` (the operator's consistency
//! check), `PUMP_URL` (its stream pump) and the usual API variables.
//!
//! - The database stalls in the middle of a burst of concurrent writes:
//!   every answer must be a 2xx or a 503 (with `Retry-After`), none may
//!   hang, each 503 must come within 5 s of the stall (or of its request,
//!   if that came later), and afterwards the check must find no counter or
//!   claim that differs from what it counts.
//! - The stream consumer's calls alone are throttled, then time out, while
//!   issues and comments are written (a webhook listening): afterwards
//!   nothing is lost (0 drift, nothing parked or skipped, every write in
//!   the listings, every event delivered) and no delivery reached the
//!   receiver again after its answer was stored.

#[path = "fault/consumer.rs"]
mod consumer;

use std::{
    process::Command,
    sync::Arc,
    time::{Duration, Instant},
};

use api_tests::{Api, Auth, deploy::Team, issue_repo, unique};
use serde_json::{Value, json};
use tokio::sync::Mutex;

/// The longest any request may take before it counts as hanging.
const HANG: Duration = Duration::from_secs(20);

#[derive(Debug)]
struct Outcome {
    what: &'static str,
    status: u16,
    started: Instant,
    latency: Duration,
    retry_after: bool,
}

fn signal(pid: &str, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, pid])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "kill {sig} {pid}");
}

#[tokio::test]
async fn a_stalled_database_answers_503_and_leaves_no_drift() {
    let Ok(pid) = std::env::var("FAULT_DDB_PID") else {
        eprintln!("skipped: run by scripts/fault-test.sh");
        return;
    };
    let repo = Arc::new(issue_repo(false).await);
    let milestone = repo.milestone("m").await;
    let team = Arc::new(Team::new().await);
    let outcomes = Arc::new(Mutex::new(Vec::<Outcome>::new()));
    let stop_at = Instant::now() + Duration::from_secs(12);

    let mut workers = Vec::new();
    // Two workers per kind of request: within the emulator's 8 instances per
    // function, so no request waits for an instance (Lambda would start one).
    for w in 0..8 {
        let (repo, team, outcomes) = (repo.clone(), team.clone(), outcomes.clone());
        workers.push(tokio::spawn(async move {
            let mut created: Vec<i64> = Vec::new();
            let mut apps: Vec<String> = Vec::new();
            let mut round = 0;
            while Instant::now() < stop_at {
                round += 1;
                let (what, method, path, auth_token, body): (_, _, String, String, Option<Value>) =
                    match (w + round) % 4 {
                        0 => (
                            "create issue",
                            "POST",
                            repo.base.clone(),
                            repo.owner.token.clone(),
                            Some(json!({"title": unique("t"), "milestone": milestone})),
                        ),
                        1 if !created.is_empty() => (
                            "close issue",
                            "PATCH",
                            format!("{}/{}", repo.base, created[round % created.len()]),
                            repo.owner.token.clone(),
                            Some(json!({"state": if round % 2 == 0 { "closed" } else { "open" }})),
                        ),
                        2 => (
                            "create app",
                            "POST",
                            "/api/v1/applications/dockerimage".to_string(),
                            team.token.clone(),
                            Some(team.body(json!({
                                "docker_registry_image_name": "nginx",
                                "ports_exposes": "80",
                                "domains": format!("https://{}.fault.test", unique("d")),
                            }))),
                        ),
                        3 if !apps.is_empty() => (
                            "delete app",
                            "DELETE",
                            format!("/api/v1/applications/{}", apps.remove(0)),
                            team.token.clone(),
                            None,
                        ),
                        _ => continue,
                    };
                let started = Instant::now();
                let call = repo.api.call(method, &path, Auth::Token(&auth_token), body);
                let r = tokio::time::timeout(HANG, call)
                    .await
                    .unwrap_or_else(|_| panic!("{what} {path} hung for {HANG:?}"));
                if r.status < 300 {
                    match what {
                        "create issue" => created.extend(r.body["number"].as_i64()),
                        "create app" => apps.extend(r.body["uuid"].as_str().map(str::to_owned)),
                        _ => {}
                    }
                }
                outcomes.lock().await.push(Outcome {
                    what,
                    status: r.status,
                    started,
                    latency: started.elapsed(),
                    retry_after: r.header("retry-after").is_some(),
                });
            }
        }));
    }

    // Freeze the database for 8 s in the middle of the burst.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let frozen = Instant::now();
    signal(&pid, "-STOP");
    tokio::time::sleep(Duration::from_secs(8)).await;
    signal(&pid, "-CONT");
    for w in workers {
        w.await.expect("worker");
    }

    let outcomes = outcomes.lock().await;
    let unavailable: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == 503).collect();
    for o in outcomes.iter() {
        assert!(
            o.status < 300 || o.status == 503,
            "{} answered {} after {:?}",
            o.what,
            o.status,
            o.latency
        );
    }
    assert!(!unavailable.is_empty(), "the freeze produced no 503");
    // How long after the stall (or after the request, when it came later)
    // each 503 came.
    let waited = |o: &Outcome| (o.started + o.latency).duration_since(o.started.max(frozen));
    for o in &unavailable {
        assert!(o.retry_after, "a 503 without Retry-After: {o:?}");
        assert!(
            waited(o) < Duration::from_secs(5),
            "a 503 came {:?} after the stall or the request: {o:?}",
            waited(o)
        );
    }
    let slowest = unavailable
        .iter()
        .map(|o| waited(o))
        .max()
        .unwrap_or_default();
    eprintln!(
        "fault: {} requests, {} answered 503, the slowest {slowest:?} after the stall or its request",
        outcomes.len(),
        unavailable.len()
    );

    // Let what DynamoDB Local queued during the freeze finish, and the
    // stream consumer catch up with it (background work is part of what
    // the check checks), then check.
    tokio::time::sleep(Duration::from_secs(3)).await;
    api_tests::settle().await;
    check_data();
    let _ = Api::from_env();
}

/// Runs check-data, expects no drift, and answers its report. A change the
/// stall made the consumer park is retried at its due time, and what it
/// derives is missing until then: while changes are parked, drift is
/// looked at again (for up to a minute), not taken as lost.
pub fn check_data() -> Value {
    let check = std::env::var("CHECK_DATA").expect("CHECK_DATA names the check-data binary");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let out = Command::new(&check).output().expect("run check-data");
        let report: Value = serde_json::from_slice(&out.stdout).expect("check-data prints JSON");
        let parked = report["parked"]["changes"].as_u64().unwrap_or(0);
        if report["drift"] != json!([]) && parked > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_secs(2));
            continue;
        }
        assert_eq!(
            report["drift"],
            json!([]),
            "check-data found drift: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success());
        return report;
    }
}
