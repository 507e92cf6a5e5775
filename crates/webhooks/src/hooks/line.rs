//! The webhook machinery's log lines, which are also its metrics
//! (CloudWatch Embedded Metric Format, per function): one per batch that
//! sent deliveries (attempts, failed attempts, attempts that could not be
//! recorded) and one per sweep (how many were due, and how late the oldest
//! due one was). The alarms of template.yaml watch the unrecorded attempts
//! (the table refused the sender) and the lag (retries not being made).

use serde::Serialize;

use crate::{
    Config,
    telemetry::{
        self,
        emf::{Dimensions, HOOK_METRICS, Metadata, SWEEP_METRICS},
        line::{self, now_ms},
    },
};

/// What the sender did in one batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sent {
    /// Requests made (or refused before connecting).
    pub attempts: usize,
    /// Of those, the ones that got no 2xx.
    pub failures: usize,
    /// Attempts whose outcome the table did not take: still due.
    pub unrecorded: usize,
}

#[derive(Serialize)]
struct SentLine<'a> {
    level: &'static str,
    message: &'static str,
    #[serde(rename = "Function")]
    function: &'a str,
    #[serde(rename = "HookAttempts")]
    attempts: usize,
    #[serde(rename = "HookFailures")]
    failures: usize,
    #[serde(rename = "HookUnrecorded")]
    unrecorded: usize,
    #[serde(rename = "_aws", skip_serializing_if = "Option::is_none")]
    aws: Option<Metadata<'a>>,
}

#[derive(Serialize)]
struct SweepLine<'a> {
    level: &'static str,
    message: &'static str,
    #[serde(rename = "Function")]
    function: &'a str,
    due: usize,
    touched: usize,
    #[serde(rename = "HookDueLag")]
    lag: f64,
    #[serde(rename = "_aws", skip_serializing_if = "Option::is_none")]
    aws: Option<Metadata<'a>>,
}

/// Per function whatever the detail asked for (no route here).
fn dimensions(config: &Config) -> Dimensions {
    config.metrics_dimensions.without_route()
}

/// Logs what the sender did (nothing when it sent nothing).
pub fn sent(config: &Config, function: &str, sent: Sent) {
    if sent == Sent::default() {
        return;
    }
    line::emit(&render_sent(config, function, sent, now_ms()));
}

fn render_sent<'a>(config: &'a Config, function: &'a str, s: Sent, at: u64) -> SentLine<'a> {
    SentLine {
        level: line::kept(telemetry::level()).name(),
        message: "hook deliveries",
        function,
        attempts: s.attempts,
        failures: s.failures,
        unrecorded: s.unrecorded,
        aws: Metadata::with_metrics(
            &config.metrics_namespace,
            dimensions(config),
            at,
            HOOK_METRICS,
        ),
    }
}

/// Logs a sweep that found deliveries due: how many, how many it touched,
/// and how long past its due time the oldest waited.
pub fn swept(config: &Config, function: &str, due: usize, touched: usize, lag_ms: u64) {
    if due == 0 {
        return;
    }
    line::emit(&SweepLine {
        level: line::kept(telemetry::level()).name(),
        message: "sweep",
        function,
        due,
        touched,
        lag: lag_ms as f64,
        aws: Metadata::with_metrics(
            &config.metrics_namespace,
            dimensions(config),
            now_ms(),
            SWEEP_METRICS,
        ),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sender_s_line_is_an_emf_document_of_its_metrics() {
        let config = Config::from_lookup(|_| None).unwrap();
        let line = render_sent(
            &config,
            "stream",
            Sent {
                attempts: 3,
                failures: 1,
                unrecorded: 0,
            },
            1_764_000_000_000,
        );
        let v = serde_json::to_value(&line).unwrap();
        assert_eq!(v["HookAttempts"], 3);
        assert_eq!(v["HookFailures"], 1);
        assert_eq!(v["Function"], "stream");
        let d = &v["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(d["Dimensions"], serde_json::json!([["Function"]]));
        assert_eq!(
            crate::telemetry::emf::declared(&v),
            ["HookAttempts", "HookFailures", "HookUnrecorded"]
        );
    }
}
