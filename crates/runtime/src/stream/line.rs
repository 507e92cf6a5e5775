//! The one log line per batch of the stream consumer, the twin of the
//! request line (telemetry/request_line.rs): what arrived, what failed, the
//! time it took, its DynamoDB cost and how far behind the stream the
//! consumer is; also a CloudWatch Embedded Metric Format document
//! (`emf::STREAM_METRICS`, per function only: a batch has no route). It
//! names records by sequence number only: images hold what users wrote,
//! and never reach a log.

use std::time::Duration;

use serde::Serialize;

use crate::{
    Config,
    db::MetricsSnapshot,
    telemetry::{
        self,
        emf::{Metadata, PARKED_METRICS, STREAM_METRICS},
        line::{self, DbCost, Frame, WorkMetrics, now_ms},
    },
};

/// What the line records about one batch.
pub struct BatchLine<'a> {
    /// The function crate's name (`stream`).
    pub function: &'a str,
    /// The Lambda request id of the invocation.
    pub request_id: &'a str,
    pub records: usize,
    /// Records handed back for redelivery: the first failed one and every
    /// one after it.
    pub failures: usize,
    /// The first failed record's sequence number, as reported.
    pub first_failure: Option<&'a str>,
    /// The handlers that were given at least one change.
    pub handled_by: Vec<&'static str>,
    /// Changes parked (one per handler and change), to be retried.
    pub parked: usize,
    pub latency: Duration,
    /// Age of the oldest record when the batch arrived (0 without
    /// timestamps).
    pub oldest_age: Duration,
    /// The consumer's lag: the age of the newest record once the batch
    /// was done.
    pub lag: Duration,
    pub cost: &'a MetricsSnapshot,
}

#[derive(Serialize)]
struct Line<'a> {
    level: &'static str,
    message: &'static str,
    request_id: &'a str,
    records: usize,
    failures: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_failure: Option<&'a str>,
    handled_by: &'a [&'static str],
    parked: usize,
    latency_ms: u64,
    oldest_record_age_ms: u64,
    lag_ms: u64,
    #[serde(flatten)]
    cost: DbCost,
    // Dimension.
    #[serde(rename = "Function")]
    function: &'a str,
    // Metrics (names and units in emf::STREAM_METRICS).
    #[serde(rename = "Records")]
    records_metric: usize,
    #[serde(rename = "Failures")]
    failures_metric: usize,
    #[serde(flatten)]
    work: WorkMetrics,
    #[serde(rename = "RecordAge")]
    record_age: f64,
    #[serde(rename = "Parked")]
    parked_metric: usize,
    #[serde(rename = "Lag")]
    lag: f64,
    #[serde(rename = "_aws", skip_serializing_if = "Option::is_none")]
    aws: Option<Metadata<'a>>,
}

impl BatchLine<'_> {
    /// Writes the line to stdout in one `write_all` (see
    /// `RequestLine::write`: lines cannot interleave).
    pub fn write(&self, config: &Config) {
        let frame = Frame::now(&config.metrics_namespace, config.metrics_dimensions);
        line::write(&self.render(frame));
    }

    fn render(&self, frame: Frame) -> String {
        // A batch has no route: per function whatever the detail asked for.
        let dimensions = frame.dimensions.without_route();
        let cost = self.cost;
        let line = Line {
            // Kept at every ApplicationLogLevel, as the request line is.
            level: line::kept(frame.level).name(),
            message: "batch",
            request_id: self.request_id,
            records: self.records,
            failures: self.failures,
            first_failure: self.first_failure,
            handled_by: &self.handled_by,
            parked: self.parked,
            latency_ms: self.latency.as_millis() as u64,
            oldest_record_age_ms: self.oldest_age.as_millis() as u64,
            lag_ms: self.lag.as_millis() as u64,
            cost: cost.into(),
            function: self.function,
            records_metric: self.records,
            failures_metric: self.failures,
            work: WorkMetrics::new(self.latency, cost),
            record_age: self.oldest_age.as_millis() as f64,
            parked_metric: self.parked,
            lag: self.lag.as_millis() as f64,
            aws: Metadata::with_metrics(
                frame.namespace,
                dimensions,
                frame.timestamp,
                STREAM_METRICS,
            ),
        };
        line::render(&line)
    }
}

/// What the parked changes' sweeper saw and did in one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParkedLine {
    /// Changes parked in all (the counter), after the run.
    pub total: i64,
    /// How long the oldest queue has waited.
    pub oldest_age: Duration,
    pub retried: usize,
    pub unparked: usize,
}

#[derive(Serialize)]
struct ParkedJson<'a> {
    level: &'static str,
    message: &'static str,
    #[serde(rename = "Function")]
    function: &'a str,
    #[serde(rename = "ParkedTotal")]
    total: i64,
    #[serde(rename = "ParkedAge")]
    age: f64,
    #[serde(rename = "Retried")]
    retried: usize,
    #[serde(rename = "Unparked")]
    unparked: usize,
    #[serde(rename = "_aws", skip_serializing_if = "Option::is_none")]
    aws: Option<Metadata<'a>>,
}

impl ParkedLine {
    /// Writes the line, unless nothing is parked and nothing was retried
    /// (an idle sweeper logs nothing).
    pub fn write(&self, config: &Config, function: &str) {
        if self.total <= 0 && self.retried == 0 {
            return;
        }
        let line = self.render(config, function, now_ms());
        line::write(&line);
    }

    fn render(&self, config: &Config, function: &str, timestamp: u64) -> String {
        let line = ParkedJson {
            level: line::kept(telemetry::level()).name(),
            message: "parked",
            function,
            total: self.total,
            age: self.oldest_age.as_millis() as f64,
            retried: self.retried,
            unparked: self.unparked,
            aws: Metadata::with_metrics(
                &config.metrics_namespace,
                config.metrics_dimensions.without_route(),
                timestamp,
                PARKED_METRICS,
            ),
        };
        line::render(&line)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::telemetry::{
        LogLevel,
        emf::{Dimensions, Namespace},
    };

    fn json(dimensions: Dimensions, level: LogLevel) -> Value {
        let cost = MetricsSnapshot {
            round_trips: 2,
            sequential: 2,
            read_units: 1.0,
            write_units: 3.0,
            calls: vec!["GetItem", "TransactWriteItems"],
        };
        let line = BatchLine {
            function: "stream",
            request_id: "r-1",
            records: 100,
            failures: 40,
            first_failure: Some("61"),
            handled_by: vec!["search"],
            parked: 2,
            latency: Duration::from_micros(12_345),
            oldest_age: Duration::from_millis(1_500),
            lag: Duration::from_millis(700),
            cost: &cost,
        };
        let text = line.render(Frame {
            namespace: &Namespace::default(),
            dimensions,
            level,
            timestamp: 1_764_000_000_123,
        });
        assert!(text.ends_with('\n') && !text.trim_end().contains('\n'));
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn the_line_is_an_emf_document_of_the_stream_metrics() {
        for dimensions in [Dimensions::Function, Dimensions::Route] {
            let v = json(dimensions, LogLevel::Info);
            let d = &v["_aws"]["CloudWatchMetrics"][0];
            assert_eq!(v["_aws"]["Timestamp"], 1_764_000_000_123u64);
            assert_eq!(d["Dimensions"], serde_json::json!([["Function"]]));
            assert_eq!(v["Function"], "stream");
            let names = telemetry::emf::declared(&v);
            assert_eq!(
                names,
                [
                    "Records",
                    "Failures",
                    "Latency",
                    "ReadUnits",
                    "WriteUnits",
                    "RecordAge",
                    "Parked",
                    "Lag"
                ]
            );
            for name in names {
                assert!(v[name].is_number(), "{name} is a top-level number");
            }
        }
        let v = json(Dimensions::Function, LogLevel::Info);
        assert_eq!(
            (v["Records"].as_u64(), v["Failures"].as_u64()),
            (Some(100), Some(40))
        );
        assert_eq!(v["RecordAge"], 1500.0);
        assert_eq!(
            (v["Parked"].as_u64(), v["Lag"].as_f64()),
            (Some(2), Some(700.0))
        );
        assert_eq!(v["Latency"], 12.345);
        assert_eq!(v["first_failure"], "61");
        assert_eq!(v["message"], "batch");
        assert!(json(Dimensions::None, LogLevel::Info).get("_aws").is_none());
    }

    #[test]
    fn the_parked_line_is_an_emf_document_of_its_metrics() {
        let config = Config::from_lookup(|_| None).unwrap();
        let line = ParkedLine {
            total: 3,
            oldest_age: Duration::from_secs(4_000),
            retried: 5,
            unparked: 2,
        };
        let v: Value = serde_json::from_str(&line.render(&config, "stream", 1)).unwrap();
        assert_eq!(v["message"], "parked");
        assert_eq!(
            (
                &v["ParkedTotal"],
                &v["ParkedAge"],
                &v["Retried"],
                &v["Unparked"]
            ),
            (&3.into(), &4_000_000.0.into(), &5.into(), &2.into())
        );
        assert_eq!(
            telemetry::emf::declared(&v),
            ["ParkedTotal", "ParkedAge", "Retried", "Unparked"]
        );
    }

    #[test]
    fn the_line_is_kept_at_every_level_and_names_no_item() {
        assert_eq!(json(Dimensions::Function, LogLevel::Debug)["level"], "INFO");
        assert_eq!(
            json(Dimensions::Function, LogLevel::Error)["level"],
            "ERROR"
        );
        let v = json(Dimensions::Function, LogLevel::Info);
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        for forbidden in ["keys", "pk", "sk", "image", "new", "old"] {
            assert!(!keys.contains(&forbidden), "{forbidden} in {keys:?}");
        }
    }
}
