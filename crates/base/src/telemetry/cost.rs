//! What one request has cost: the DynamoDB calls it made and the capacity
//! they consumed (`db::Metrics` counts them; the request line logs them).

use serde::Serialize;

/// What one request has cost so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MetricsSnapshot {
    /// DynamoDB calls made (each is one network round trip).
    pub round_trips: u32,
    /// Round trips the request waited for one after another: calls made
    /// concurrently (while another was in flight) do not add to this.
    pub sequential: u32,
    pub read_units: f64,
    pub write_units: f64,
    /// Operation names in call order, e.g. `["GetItem", "TransactWriteItems"]`.
    pub calls: Vec<&'static str>,
}

impl MetricsSnapshot {
    /// Read calls made so far.
    pub fn read_calls(&self) -> u32 {
        self.calls
            .iter()
            .filter(|c| matches!(**c, "GetItem" | "BatchGetItem" | "Query" | "Scan"))
            .count() as u32
    }
}
