//! The stream consumer's DynamoDB calls fail (throttled, then timing out)
//! while issues and comments are written, with a webhook listening; the
//! API's own calls do not. Nothing may be lost, and no delivery may reach
//! the receiver after its answer was stored.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use api_tests::{Auth, IssueRepo, issue_repo, receiver::Receiver};
use serde_json::{Value, json};
use shared::db;
use tokio::sync::Mutex;

/// The faults, one after the other: the mode, the share of the stream
/// function's calls it hits, and for how long. Every call failing holds
/// the batches back (nothing can be parked either); half of them failing
/// parks what a handler failed on while other calls get through.
const FAULTS: [(&str, f64, Duration); 3] = [
    ("throttle", 1.0, Duration::from_secs(4)),
    ("throttle", 0.5, Duration::from_secs(4)),
    ("timeout", 0.5, Duration::from_secs(4)),
];
/// Writers at once, and the pause each makes between an issue and the
/// next (a few dozen writes in all).
const WRITERS: usize = 4;
const PAUSE: Duration = Duration::from_millis(700);
/// How long the consumer may take to catch up once the fault is lifted:
/// parked changes back off up to 8 s, unrecorded sends wait for their
/// 30 s lease.
const CONVERGE: Duration = Duration::from_secs(75);

/// Switches the proxy's fault for the stream function.
async fn fault(mode: &str, rate: f64) -> Value {
    let url = format!(
        "{}/__fault",
        std::env::var("FAULT_PROXY_URL").expect("FAULT_PROXY_URL")
    );
    reqwest::Client::new()
        .post(&url)
        .json(&json!({"app": "stream", "mode": mode, "rate": rate}))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .unwrap_or_else(|e| panic!("POST {url}: {e}"))
        .json()
        .await
        .unwrap()
}

/// The changes parked now (the table's counter).
async fn parked() -> i64 {
    api_tests::items_under("PARKED", "COUNT")
        .await
        .first()
        .map_or(0, |i| db::number(i, "n"))
}

/// What the writers made: issue numbers and comment ids.
#[derive(Default)]
struct Written {
    issues: Vec<i64>,
    comments: Vec<i64>,
}

async fn write_until(r: Arc<IssueRepo>, written: Arc<Mutex<Written>>, until: Instant) {
    let auth = Auth::Token(&r.owner.token);
    while Instant::now() < until {
        let made = r
            .api
            .call("POST", &r.base, auth, Some(json!({"title": "faulty"})))
            .await;
        assert_eq!(made.status, 201, "create: {:?}", made.body);
        let n = made.body["number"].as_i64().unwrap();
        written.lock().await.issues.push(n);
        let path = format!("{}/{n}/comments", r.base);
        let c = r
            .api
            .call("POST", &path, auth, Some(json!({"body": "noted"})))
            .await;
        assert_eq!(c.status, 201, "comment: {:?}", c.body);
        written
            .lock()
            .await
            .comments
            .push(c.body["id"].as_i64().unwrap());
        tokio::time::sleep(PAUSE).await;
    }
}

/// Every page of a listing (`path` with a query), as the owner reads it.
async fn all_of(r: &IssueRepo, path: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1.. {
        let got = r
            .api
            .call(
                "GET",
                &format!("{path}&limit=50&page={page}"),
                Auth::Token(&r.owner.token),
                None,
            )
            .await;
        assert_eq!(got.status, 200, "{path}: {:?}", got.body);
        let items = got.body.as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            return out;
        }
        out.extend(items);
    }
    out
}

fn ids(items: &[Value], field: &str) -> HashSet<i64> {
    items.iter().filter_map(|i| i[field].as_i64()).collect()
}

/// Waits for `done` to hold, checking every half second; panics with
/// `what` after [`CONVERGE`].
async fn converge<F: std::future::Future<Output = bool>>(what: &str, mut done: impl FnMut() -> F) {
    let until = Instant::now() + CONVERGE;
    while !done().await {
        assert!(Instant::now() < until, "{what} after {CONVERGE:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

#[tokio::test]
async fn consumer_faults_lose_nothing_and_send_no_stored_delivery_again() {
    if std::env::var("FAULT_PROXY_URL").is_err() {
        eprintln!("skipped: run by scripts/fault-test.sh");
        return;
    }
    let started = Instant::now();
    let epoch = SystemTime::now();
    let r = Arc::new(issue_repo(false).await);
    let receiver = Receiver::start().await;
    let hooks = format!("{}/hooks", r.repo_path);
    let hook = r
        .api
        .call(
            "POST",
            &hooks,
            Auth::Token(&r.owner.token),
            Some(json!({
                "type": "gitea",
                "config": {"url": receiver.url, "content_type": "json"},
                "events": ["issues", "issue_comment"],
                "active": true,
            })),
        )
        .await;
    assert_eq!(hook.status, 201, "{:?}", hook.body);
    let hook_id = hook.body["id"].as_i64().unwrap();
    api_tests::settle().await;

    // Write through both faults.
    let written = Arc::new(Mutex::new(Written::default()));
    let until = Instant::now() + FAULTS.iter().map(|f| f.2).sum::<Duration>();
    let writers: Vec<_> = (0..WRITERS)
        .map(|_| tokio::spawn(write_until(r.clone(), written.clone(), until)))
        .collect();
    let mut most_parked = 0;
    for (mode, rate, lasting) in FAULTS {
        fault(mode, rate).await;
        tokio::time::sleep(lasting).await;
        most_parked = most_parked.max(parked().await);
    }
    let proxy = fault("off", 0.0).await;
    for w in writers {
        w.await.expect("writer");
    }
    let lifted = Instant::now();
    let written = written.lock().await;
    let (issues, comments) = (written.issues.len(), written.comments.len());
    assert!(
        proxy["faulted"]["throttle"].as_u64() > Some(0)
            && proxy["faulted"]["timeout"].as_u64() > Some(0),
        "the consumer's calls were not faulted: {proxy}"
    );

    // Caught up: nothing parked, every change delivered, every event sent.
    converge("changes still parked", || async { parked().await == 0 }).await;
    api_tests::settle().await;
    let events = issues + comments;
    converge("webhook events missing", || {
        let got: HashSet<String> = receiver
            .received()
            .iter()
            .map(|x| x.header("x-gitea-delivery").to_string())
            .collect();
        async move { got.len() >= events }
    })
    .await;
    api_tests::settle().await;
    let caught_up = lifted.elapsed();

    let report = super::check_data();
    assert_eq!(report["parked"]["changes"], 0, "{report}");
    let stats = api_tests::pump_stats().await;
    assert_eq!(stats["skipped_records"], 0, "{stats}");

    // Every write in the listings (the plain one, one the search index
    // serves, and the repository's comments).
    let want: HashSet<i64> = written.issues.iter().copied().collect();
    let listed = all_of(&r, &format!("{}?state=all&type=issues", r.base)).await;
    assert_eq!(ids(&listed, "number"), want, "the issue list");
    let by_owner = format!(
        "{}?state=all&type=issues&created_by={}",
        r.base, r.owner.name
    );
    assert_eq!(
        ids(&all_of(&r, &by_owner).await, "number"),
        want,
        "created_by="
    );
    let notes = all_of(&r, &format!("{}/issues/comments?state=all", r.repo_path)).await;
    assert_eq!(
        ids(&notes, "id"),
        written.comments.iter().copied().collect(),
        "the repository's comments"
    );

    // Every event delivered: an opening per issue, a comment per comment.
    let got = receiver.received();
    let mut opened = HashSet::new();
    let mut commented = HashSet::new();
    for x in &got {
        let body = x.json();
        match (x.header("x-gitea-event-type"), body["action"].as_str()) {
            ("issues", Some("opened")) => opened.extend(body["issue"]["number"].as_i64()),
            ("issue_comment", Some("created")) => commented.extend(body["comment"]["id"].as_i64()),
            _ => {}
        }
    }
    assert_eq!(opened, want, "issue events");
    assert_eq!(
        commented,
        written.comments.iter().copied().collect(),
        "comment events"
    );

    // None sent again once its answer was stored: no receipt of a delivery
    // after the end of its successful attempt as recorded.
    let at_ms = |x: &api_tests::receiver::Received| {
        let since = x.at.saturating_duration_since(started);
        (epoch + since)
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64
    };
    let mut receipts: HashMap<String, Vec<i64>> = HashMap::new();
    for x in &got {
        receipts
            .entry(x.header("x-gitea-delivery").to_string())
            .or_default()
            .push(at_ms(x));
    }
    let stored = api_tests::items_under(&format!("HOOKDLV#{hook_id:020}"), "D#").await;
    let mut answered = 0;
    for attempt in stored.iter().filter(|i| db::text(i, "sk").contains("#A#")) {
        let status = db::number(attempt, "status");
        if !(200..300).contains(&status) {
            continue;
        }
        answered += 1;
        let id = db::text(attempt, "delivery");
        let end = db::number(attempt, "at") + db::number(attempt, "millis");
        let later: Vec<&i64> = receipts
            .get(id)
            .into_iter()
            .flatten()
            .filter(|&&t| t > end + 1_000)
            .collect();
        assert!(
            later.is_empty(),
            "delivery {id} was sent again after its answer was stored (at {end}): {later:?}"
        );
    }
    assert_eq!(answered, events, "one stored answer per event");
    let duplicates: usize = receipts.values().map(|r| r.len() - 1).sum();
    eprintln!(
        "consumer fault: {issues} issues and {comments} comments written through {FAULTS:?} \
         ({proxy}); at most {most_parked} changes parked; caught up {caught_up:?} after the \
         fault; {} deliveries, {duplicates} sent twice (answers not stored); 0 drift; the \
         whole test {:?}",
        got.len(),
        started.elapsed()
    );
}
