//! The local stand-in for the stream function's schedule (template.yaml's
//! `Sweep` event, every minute on AWS): every `--sweep-ms` (a second by
//! default) the pump invokes the function with EventBridge's scheduled
//! event, so webhook retries fall due under `make dev` and `make test` as
//! they do on AWS, only sooner.

use std::time::Duration;

use serde_json::json;

/// The event EventBridge sends for a schedule rule (the fields the
/// function reads, and the ones Lambda's documents show).
pub fn event() -> serde_json::Value {
    json!({
        "version": "0",
        "id": "00000000-0000-0000-0000-000000000000",
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "000000000000",
        "time": "1970-01-01T00:00:00Z",
        "region": "us-east-1",
        "resources": ["arn:aws:events:us-east-1:000000000000:rule/local-sweep"],
        "detail": {}
    })
}

/// Invokes the function at `url` with [`event`] every `every`, forever.
pub async fn run(url: String, every: Duration) {
    let client = reqwest::Client::builder()
        .timeout(crate::invoke::TIMEOUT)
        .build()
        .unwrap_or_default();
    let body = event().to_string();
    loop {
        tokio::time::sleep(every).await;
        let sent = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await;
        match sent {
            Ok(res) if res.status().is_success() => {}
            Ok(res) => tracing::warn!(status = res.status().as_u16(), "scheduled run failed"),
            // The emulator is not up yet, or is rebuilding.
            Err(e) => tracing::debug!(error = %e, "scheduled run not delivered"),
        }
    }
}
