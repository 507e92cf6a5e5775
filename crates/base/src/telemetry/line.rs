//! What every log line that carries metrics shares (the request line, the
//! stream's batch and parked lines, the webhooks' lines): the level it is
//! kept at, the DynamoDB cost fields, and how it reaches stdout.

use std::io::Write;

use serde::Serialize;

use super::{
    LogLevel, MetricsSnapshot,
    emf::{Dimensions, Namespace},
};

/// Where and when a metrics line is written: its EMF namespace and
/// dimensions, the level it is kept at, and its time (ms).
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    pub namespace: &'a Namespace,
    pub dimensions: Dimensions,
    pub level: LogLevel,
    pub timestamp: u64,
}

impl<'a> Frame<'a> {
    /// Now, at the configured level.
    pub fn now(namespace: &'a Namespace, dimensions: Dimensions) -> Self {
        Self {
            namespace,
            dimensions,
            level: super::level(),
            timestamp: now_ms(),
        }
    }
}

/// The `db_*` fields: what the calls of a request or batch cost.
#[derive(Serialize)]
pub struct DbCost {
    pub db_round_trips: u32,
    pub db_sequential: u32,
    pub db_read_units: f64,
    pub db_write_units: f64,
    /// Operation names in call order, as the benchmarks' tables print them.
    pub db_calls: String,
}

impl From<&MetricsSnapshot> for DbCost {
    fn from(cost: &MetricsSnapshot) -> Self {
        Self {
            db_round_trips: cost.round_trips,
            db_sequential: cost.sequential,
            db_read_units: cost.read_units,
            db_write_units: cost.write_units,
            db_calls: format!("{:?}", cost.calls),
        }
    }
}

/// The metrics every line of work carries: how long it took and what its
/// DynamoDB calls cost (names and units in `emf`).
#[derive(Serialize)]
pub struct WorkMetrics {
    #[serde(rename = "Latency")]
    latency: f64,
    #[serde(rename = "ReadUnits")]
    read_units: f64,
    #[serde(rename = "WriteUnits")]
    write_units: f64,
}

impl WorkMetrics {
    pub fn new(latency: std::time::Duration, cost: &MetricsSnapshot) -> Self {
        Self {
            latency: latency.as_micros() as f64 / 1000.0,
            read_units: cost.read_units,
            write_units: cost.write_units,
        }
    }
}

/// A metrics line's `level`: INFO, or the configured level when that is
/// less detailed, so Lambda keeps the line (and its metrics) at every
/// `ApplicationLogLevel` without the line claiming FATAL, which would
/// mislead anyone looking for real failures.
pub fn kept(configured: LogLevel) -> LogLevel {
    configured.max(LogLevel::Info)
}

/// The line as JSON, newline-terminated. Lines hold only strings and
/// finite numbers: serialising cannot fail.
pub fn render(line: &impl Serialize) -> String {
    let mut json = serde_json::to_string(line).unwrap_or_default();
    json.push('\n');
    json
}

/// Writes a rendered line to stdout: one `write_all` of the whole line
/// under stdout's lock, so lines of requests running at once, and
/// `tracing`'s (it too writes each event with one `write_all`), cannot
/// interleave.
pub fn write(rendered: &str) {
    let _ = std::io::stdout().lock().write_all(rendered.as_bytes());
}

/// Renders and writes `line`.
pub fn emit(line: &impl Serialize) {
    write(&render(line));
}

/// Milliseconds since the epoch, the lines' timestamp.
pub fn now_ms() -> u64 {
    crate::time::now_ms().max(0) as u64
}
