//! Webhook deliveries, end to end: changes made through the API reach a
//! real receiver on loopback through the table's stream (the pump and the
//! stream function, as on AWS), in Gitea's payloads and headers, signed
//! with the hook's secret. [`events`]: what each change sends;
//! [`delivery`]: retries, and a consumer frozen in a burst.

use std::time::Duration;

use api_tests::{Auth, issue_repo, receiver::Receiver};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

mod delivery;
mod events;

const SECRET: &str = "webhook-secret";
const WAIT: Duration = Duration::from_secs(90);

fn hook(url: &str, events: &[&str], content_type: &str) -> Value {
    json!({
        "type": "gitea",
        "config": {"url": url, "content_type": content_type, "secret": SECRET},
        "events": events,
        "authorization_header": "Bearer receiver-token",
        "active": true,
    })
}

fn hmac_hex(body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A hook on `r`'s repository, made by its owner, to `receiver`.
async fn repo_hook(
    r: &api_tests::IssueRepo,
    receiver: &Receiver,
    events: &[&str],
    content_type: &str,
) {
    let made = r
        .api
        .call(
            "POST",
            &format!("{}/hooks", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(hook(&receiver.url, events, content_type)),
        )
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
}

/// A repository with a hook on `issues` to `receiver`, and one issue
/// opened in it (the event the tests follow).
async fn one_opened_issue(receiver: &Receiver) -> api_tests::IssueRepo {
    let r = issue_repo(false).await;
    let owner = Auth::Token(&r.owner.token);
    repo_hook(&r, receiver, &["issues"], "json").await;
    let issue = json!({"title": "retry me"});
    assert_eq!(
        r.api.call("POST", &r.base, owner, Some(issue)).await.status,
        201
    );
    r
}
