//! Delivery under failure: retries on the schedule, and a consumer
//! frozen in the middle of a burst.

use super::*;

#[tokio::test]
async fn a_failing_receiver_is_retried_under_the_same_delivery_id_until_it_recovers() {
    let receiver = Receiver::start().await;
    receiver.answer_with(&[500, 503]);
    one_opened_issue(&receiver).await;
    let got = receiver.wait_for(3, WAIT).await;
    let ids: std::collections::HashSet<&str> =
        got.iter().map(|d| d.header("x-gitea-delivery")).collect();
    assert_eq!(ids.len(), 1, "retries keep X-Gitea-Delivery");
    assert!(got.iter().all(|d| d.body == got[0].body), "the same bytes");
    for pair in got.windows(2) {
        let waited = pair[1].at - pair[0].at;
        // HOOK_RETRY_SECONDS=1,1,1 under `make test`.
        assert!(
            waited >= Duration::from_millis(900),
            "retried after {waited:?}"
        );
    }
    // Delivered on the third attempt: nothing more comes.
    api_tests::settle().await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(receiver.received().len(), 3);
}

#[tokio::test]
async fn a_receiver_that_never_recovers_gets_the_schedule_s_attempts_and_no_more() {
    let receiver = Receiver::start().await;
    receiver.answer_with(&[500; 10]);
    one_opened_issue(&receiver).await;
    // One attempt and the schedule's three retries.
    let got = receiver.wait_for(4, WAIT).await;
    api_tests::settle().await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(receiver.received().len(), 4, "{} attempts", got.len());
}

/// The processes of this run's stream function (its binary, started by
/// `cargo lambda watch`, with this run's TABLE_NAME): other runs on the
/// machine are left alone.
fn stream_function_pids() -> Vec<String> {
    let table = std::env::var("TABLE_NAME").expect("TABLE_NAME, as make test sets it");
    let wanted = format!("TABLE_NAME={table}");
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let program = cmdline.split(|&b| b == 0).next().unwrap_or_default();
        if !program.ends_with(b"/stream") {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes()) {
            pids.push(pid);
        }
    }
    pids
}

fn signal(name: &str, pids: &[String]) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .args(pids)
        .status()
        .unwrap();
    assert!(status.success(), "kill -{name} {pids:?}");
}

#[tokio::test]
async fn a_consumer_frozen_mid_burst_loses_nothing_and_sends_nothing_twice() {
    const BURST: usize = 20;
    let receiver = Receiver::start().await;
    let r = one_opened_issue(&receiver).await;
    // The first delivery: the consumer is running (and started).
    receiver.wait_for(1, WAIT).await;
    let pids = stream_function_pids();
    assert!(!pids.is_empty(), "no stream function process of this run");
    let owner = Auth::Token(&r.owner.token);
    let (api, base) = (&r.api, &r.base);
    let burst = futures::future::join_all((0..BURST).map(|i| async move {
        tokio::time::sleep(Duration::from_millis(20 * i as u64)).await;
        let issue = json!({"title": format!("burst {i}")});
        api.call("POST", base, owner, Some(issue)).await.status
    }));
    let freeze = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        signal("STOP", &pids);
        tokio::time::sleep(Duration::from_secs(3)).await;
        signal("CONT", &pids);
    };
    let (statuses, ()) = tokio::join!(burst, freeze);
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    let got = receiver.wait_for(1 + BURST, WAIT).await;
    api_tests::settle().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let got_all = receiver.received();
    assert_eq!(
        got_all.len(),
        got.len().max(1 + BURST),
        "nothing sent twice"
    );
    let ids: std::collections::HashSet<&str> = got_all
        .iter()
        .map(|d| d.header("x-gitea-delivery"))
        .collect();
    assert_eq!(ids.len(), 1 + BURST, "one id per event");
    let mut numbers: Vec<i64> = got_all
        .iter()
        .map(|d| d.json()["issue"]["number"].as_i64().unwrap())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    assert_eq!(numbers.len(), 1 + BURST, "every issue's event, once");
}
