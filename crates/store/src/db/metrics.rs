//! Per-request accounting of DynamoDB calls and consumed capacity, logged
//! with each request and read by the benchmarks.

use std::sync::Mutex;

use aws_sdk_dynamodb::types::ConsumedCapacity;
use base::telemetry::MetricsSnapshot;

#[derive(Debug, Default)]
pub struct Metrics(Mutex<(MetricsSnapshot, u32)>);

impl Metrics {
    /// A call is about to be sent.
    pub(super) fn start(&self) {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let (m, in_flight) = &mut *guard;
        if *in_flight == 0 {
            m.sequential += 1;
        }
        *in_flight += 1;
    }

    /// A call came back with its consumed capacity.
    pub(super) fn add(&self, op: &'static str, consumed: Vec<&ConsumedCapacity>) {
        let mut guard = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let (m, in_flight) = &mut *guard;
        *in_flight = in_flight.saturating_sub(1);
        m.round_trips += 1;
        m.calls.push(op);
        for c in consumed {
            // DynamoDB Local reports only CapacityUnits; split by operation.
            let read = c.read_capacity_units();
            let write = c.write_capacity_units();
            match (read, write) {
                (None, None) => {
                    let units = c.capacity_units().unwrap_or(0.0);
                    if matches!(op, "GetItem" | "Query" | "BatchGetItem") {
                        m.read_units += units;
                    } else {
                        m.write_units += units;
                    }
                }
                _ => {
                    m.read_units += read.unwrap_or(0.0);
                    m.write_units += write.unwrap_or(0.0);
                }
            }
        }
    }

    /// Write units a call's reported capacity left out.
    pub(super) fn add_write_units(&self, units: f64) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .write_units += units;
    }

    pub fn snapshot(&self) -> MetricsSnapshot {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0.clone()
    }
}
