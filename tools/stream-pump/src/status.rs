//! The pump's status API, on loopback, for scripts and black-box tests:
//!
//! - `GET /settle[?timeout_ms=N]` (default 30000): 200 once every record
//!   written to the table before the request arrived has been delivered and
//!   acknowledged, that is once a poll cycle that *started after* the
//!   request arrived has read every shard to its current end and left no
//!   delivery pending or failing; 504 with what is pending if that takes
//!   longer than the timeout. The request wakes the pump, so an idle pump
//!   answers within one cycle.
//! - `GET /stats`: counters as JSON.
//! - `GET /hold?ms=N`: delivers nothing for the next N ms (at most 60000;
//!   0 delivers again at once), as a consumer that falls behind would:
//!   tests of what must not wait for the stream hold it while they write
//!   and read.

use std::{
    convert::Infallible,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use http_body_util::Full;
use hyper::{Method, Request, Response, StatusCode, body::Bytes, service::service_fn};
use hyper_util::rt::TokioIo;
use serde::Serialize;
use serde_json::json;
use tokio::{
    net::TcpListener,
    sync::{Notify, watch},
};

/// Poll cycles: how many started, and the last one that ended settled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cycles {
    pub started: u64,
    pub settled: u64,
}

/// What `/stats` answers.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub stream_arn: Option<String>,
    pub shards: usize,
    /// Invocations of the function.
    pub invocations: u64,
    /// Records the function acknowledged.
    pub records_delivered: u64,
    /// Records the event filter passed over (`mapping::FILTER_PARTITIONS`).
    pub records_filtered: u64,
    /// Invocations that reported a failed record, or failed as a whole.
    pub failures: u64,
    /// Deliveries of a batch after its first.
    pub retries: u64,
    /// Records given up on (past the retry or age bound), as Lambda sends
    /// them to the on-failure destination.
    pub skipped_records: u64,
    /// Invocations that reached no function (the emulator was down).
    pub unreachable: u64,
    /// Records read and not yet acknowledged.
    pub pending_records: usize,
    /// Shards waiting before a redelivery.
    pub backing_off: Vec<String>,
    pub last_error: Option<String>,
    /// When a batch was last acknowledged (Unix ms).
    pub last_delivery_ms: Option<u64>,
    pub cycles: u64,
    pub settled_cycles: u64,
}

/// State shared by the pump and the status API.
pub struct Status {
    stats: Mutex<Stats>,
    cycles: watch::Sender<Cycles>,
    /// Wakes the pump from its idle wait.
    pub wake: Notify,
    /// No delivery before this (`GET /hold`).
    hold: Mutex<Option<Instant>>,
}

impl Default for Status {
    fn default() -> Self {
        Self {
            stats: Mutex::default(),
            cycles: watch::Sender::new(Cycles::default()),
            wake: Notify::new(),
            hold: Mutex::default(),
        }
    }
}

impl Status {
    pub fn stats(&self) -> Stats {
        self.stats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn update(&self, f: impl FnOnce(&mut Stats)) {
        f(&mut self.stats.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// A cycle starts: its number.
    pub fn cycle_started(&self) -> u64 {
        let mut id = 0;
        self.cycles.send_modify(|c| {
            c.started += 1;
            id = c.started;
        });
        self.update(|s| s.cycles = id);
        id
    }

    /// Cycle `id` ended with every shard read to its end and nothing
    /// pending.
    pub fn cycle_settled(&self, id: u64) {
        self.cycles.send_modify(|c| c.settled = c.settled.max(id));
        self.update(|s| s.settled_cycles += 1);
    }

    /// Whether a `/settle` request is waiting (the pump then re-lists the
    /// shards at once, so none made before it is missed).
    pub fn settle_waiting(&self) -> bool {
        self.cycles.receiver_count() > 0
    }

    /// Delivers nothing for `wait` (zero: deliver again now).
    pub fn hold(&self, wait: Duration) {
        *self.hold.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + wait);
        self.wake.notify_one();
    }

    /// How long deliveries are still held, if they are.
    pub fn held_for(&self) -> Option<Duration> {
        let until = (*self.hold.lock().unwrap_or_else(|p| p.into_inner()))?;
        let left = until.saturating_duration_since(Instant::now());
        (!left.is_zero()).then_some(left)
    }

    /// Waits until a cycle that started after this call has settled, for at
    /// most `timeout`.
    pub async fn settle(&self, timeout: Duration) -> bool {
        let mut rx = self.cycles.subscribe();
        let need = rx.borrow().started + 1;
        self.wake.notify_one();
        tokio::time::timeout(timeout, rx.wait_for(|c| c.settled >= need))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// Serves the API on `listener` until the process ends.
pub async fn serve(listener: TcpListener, status: Arc<Status>) {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            Err(e) => {
                tracing::warn!(error = %e, "status API: accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let status = status.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let status = status.clone();
                async move { Ok::<_, Infallible>(answer(&status, req).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "status API connection");
            }
        });
    }
}

async fn answer<B>(status: &Status, req: Request<B>) -> Response<Full<Bytes>> {
    if req.method() != Method::GET {
        return reply(StatusCode::METHOD_NOT_ALLOWED, json!({"error": "GET only"}));
    }
    match req.uri().path() {
        "/stats" => reply(StatusCode::OK, json!(status.stats())),
        "/hold" => match hold_ms(req.uri().query()) {
            Ok(ms) => {
                status.hold(Duration::from_millis(ms));
                reply(StatusCode::OK, json!({"held_ms": ms}))
            }
            Err(e) => reply(StatusCode::BAD_REQUEST, json!({"error": e})),
        },
        "/settle" => {
            let timeout = match timeout_ms(req.uri().query()) {
                Ok(ms) => Duration::from_millis(ms),
                Err(e) => return reply(StatusCode::BAD_REQUEST, json!({"error": e})),
            };
            let started = Instant::now();
            let settled = status.settle(timeout).await;
            let waited_ms = started.elapsed().as_millis() as u64;
            let stats = status.stats();
            if settled {
                reply(
                    StatusCode::OK,
                    json!({"settled": true, "waited_ms": waited_ms, "records_delivered": stats.records_delivered}),
                )
            } else {
                reply(
                    StatusCode::GATEWAY_TIMEOUT,
                    json!({
                        "settled": false,
                        "waited_ms": waited_ms,
                        "pending_records": stats.pending_records,
                        "backing_off": stats.backing_off,
                        "last_error": stats.last_error,
                        "stats": stats,
                    }),
                )
            }
        }
        _ => reply(
            StatusCode::NOT_FOUND,
            json!({"error": "GET /settle[?timeout_ms=N], GET /stats or GET /hold?ms=N"}),
        ),
    }
}

/// `timeout_ms` from the query: 30000 when absent, at most 10 minutes.
fn timeout_ms(query: Option<&str>) -> Result<u64, String> {
    let value = query
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("timeout_ms="));
    match value {
        None => Ok(30_000),
        Some(v) => match v.parse::<u64>() {
            Ok(ms) if ms <= 600_000 => Ok(ms),
            _ => Err(format!("timeout_ms must be 0 to 600000, not {v:?}")),
        },
    }
}

/// `ms` of a hold: 0 to 60000.
fn hold_ms(query: Option<&str>) -> Result<u64, String> {
    let value = query
        .unwrap_or_default()
        .split('&')
        .find_map(|pair| pair.strip_prefix("ms="));
    match value.map(str::parse::<u64>) {
        Some(Ok(ms)) if ms <= 60_000 => Ok(ms),
        _ => Err(format!("ms must be 0 to 60000, not {value:?}")),
    }
}

fn reply(status: StatusCode, body: serde_json::Value) -> Response<Full<Bytes>> {
    let mut res = Response::new(Full::new(Bytes::from(body.to_string())));
    *res.status_mut() = status;
    res.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_parse_with_a_default_and_a_bound() {
        assert_eq!(timeout_ms(None), Ok(30_000));
        assert_eq!(timeout_ms(Some("a=1&timeout_ms=250")), Ok(250));
        assert!(timeout_ms(Some("timeout_ms=x")).is_err());
        assert!(timeout_ms(Some("timeout_ms=600001")).is_err());
    }

    #[test]
    fn holds_are_bounded_and_end() {
        assert_eq!(hold_ms(Some("ms=250")), Ok(250));
        assert!(hold_ms(None).is_err());
        assert!(hold_ms(Some("ms=60001")).is_err());
        let status = Status::default();
        assert!(status.held_for().is_none());
        status.hold(Duration::from_secs(5));
        assert!(status.held_for().is_some());
        status.hold(Duration::ZERO);
        assert!(status.held_for().is_none());
    }

    #[tokio::test]
    async fn settle_needs_a_cycle_that_started_after_the_request() {
        let status = Arc::new(Status::default());
        // A cycle in progress when the request arrives does not count.
        let early = status.cycle_started();
        let waiter = {
            let status = status.clone();
            tokio::spawn(async move { status.settle(Duration::from_secs(5)).await })
        };
        while !status.settle_waiting() {
            tokio::task::yield_now().await;
        }
        status.cycle_settled(early);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiter.is_finished(),
            "settled by a cycle that started before it"
        );
        let next = status.cycle_started();
        status.cycle_settled(next);
        assert!(waiter.await.unwrap());
        // No cycle: a timeout.
        assert!(!status.settle(Duration::from_millis(30)).await);
    }
}
