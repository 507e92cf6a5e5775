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

mod credentials;
mod runs;
mod servers;
