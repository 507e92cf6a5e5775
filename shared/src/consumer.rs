//! The Lambda entry point of the stream consumer: the same start-up as the
//! HTTP functions (JSON logs, configuration and the DynamoDB client once per
//! cold start, through [`App`]), then one [`handle`] per batch, answered in
//! Lambda's partial batch response (`{"batchItemFailures": [...]}`; the
//! mapping sets `FunctionResponseTypes: [ReportBatchItemFailures]`).
//!
//! A batch that cannot be read (an unknown event name, a record without a
//! sequence number) is a function error: Lambda splits the batch and
//! retries, and past the retry bound sends it to the on-failure
//! destination.
//!
//! The same function also runs on a schedule (EventBridge's `Scheduled
//! Event`; locally, the pump sends one every second): the [`Scheduled`]
//! work, such as the webhook sweeper, which turns due times into changes
//! the handlers then see.

use std::time::{Duration, Instant};

use aws_lambda_events::{
    dynamodb::Event,
    streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse},
};
use futures::future::BoxFuture;
use lambda_http::lambda_runtime::{self, Diagnostic, LambdaEvent, service_fn};
use serde_json::Value;

use crate::{
    Config,
    app::App,
    db::{Db, Grant},
    stream::{
        Change, Handler,
        change::{ConvertError, pad_seq},
        changes,
        dispatch::dispatch_until,
        line::BatchLine,
    },
    telemetry::line::now_ms,
};

/// Work the schedule starts, with the process's [`App`] and a handle for
/// the run; its answer (JSON) is what it did.
pub type Scheduled = for<'a> fn(&'a App, &'a Db) -> BoxFuture<'a, Result<Value, crate::Error>>;

/// Runs the consumer: `grant` is the function's DynamoDB grant
/// (`shared::grant!`), `handlers` makes the handlers for one batch,
/// `scheduled` is what a scheduled run does.
pub async fn run(
    grant: &'static Grant,
    handlers: fn(&App) -> Vec<Box<dyn Handler>>,
    scheduled: Scheduled,
) -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let config = Config::from_env()?.background();
    // Lives as long as the process, like the Lambda execution environment.
    let app: &'static App = Box::leak(Box::new(App::new(config).await));
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Value>| async move {
        if is_scheduled(&event.payload) {
            let db = app.db.for_request().granted(grant);
            let did = scheduled(app, &db).await.map_err(|e| Diagnostic {
                error_type: "ScheduledRunFailed".into(),
                error_message: e.to_string(),
            })?;
            // Debug only: the schedule runs every second under the local
            // pump, and what a run did that matters (a sweep that found
            // deliveries due) has its own line, with its metrics.
            tracing::debug!(did = %did, "scheduled run");
            return Ok(did);
        }
        // A Diagnostic names the error type, as Lambda reports it.
        let unreadable = |e: String| Diagnostic {
            error_type: "StreamRecordUnreadable".into(),
            error_message: e,
        };
        let records: Event =
            serde_json::from_value(event.payload).map_err(|e| unreadable(e.to_string()))?;
        let deadline = time_until(event.context.deadline);
        let request_id = event.context.request_id.clone();
        let batch = Batch {
            grant,
            request_id: &request_id,
            deadline,
        };
        let answer = batch
            .handle(app, &handlers(app), records)
            .await
            .map_err(|e| unreadable(e.to_string()))?;
        serde_json::to_value(answer).map_err(|e| unreadable(e.to_string()))
    }))
    .await
}

/// EventBridge's scheduled events (`"detail-type": "Scheduled Event"`);
/// stream batches carry `Records`.
pub fn is_scheduled(payload: &Value) -> bool {
    payload.get("Records").is_none()
        && payload.get("detail-type").and_then(Value::as_str) == Some("Scheduled Event")
}

/// The most of the function's time a batch leaves unused, so that it
/// answers (with what it finished) before Lambda stops it.
const MARGIN: Duration = Duration::from_secs(10);

/// When to stop starting changes, from the invocation's deadline (Unix
/// milliseconds): a tenth of the time left, at most [`MARGIN`], before it.
/// `None` when the deadline is unknown or already past (an emulator's).
fn time_until(deadline_ms: u64) -> Option<Instant> {
    let left = Duration::from_millis(deadline_ms.checked_sub(now_ms())?);
    if left < Duration::from_secs(1) {
        return None;
    }
    Some(Instant::now() + left - (left / 10).min(MARGIN))
}

/// One invocation.
pub struct Batch<'a> {
    pub grant: &'static Grant,
    pub request_id: &'a str,
    /// When to stop starting changes.
    pub deadline: Option<Instant>,
}

impl Batch<'_> {
    /// Runs `handlers` over the event's records and answers which to
    /// deliver again; logs one line.
    pub async fn handle(
        &self,
        app: &App,
        handlers: &[Box<dyn Handler>],
        event: Event,
    ) -> Result<DynamoDbEventResponse, ConvertError> {
        let started = Instant::now();
        let db = app.db.for_request().granted(self.grant);
        if let Some(at) = self.deadline {
            db.set_deadline(at);
        }
        // What Lambda sent, to answer with its own identifiers.
        let sent: Vec<String> = event
            .records
            .iter()
            .map(|r| r.change.sequence_number.clone().unwrap_or_default())
            .collect();
        let changes = changes(event)?;
        let oldest = changes
            .iter()
            .map(|c| c.at_ms)
            .filter(|&ms| ms > 0)
            .min()
            .map_or(0, |ms| (now_ms() as i64).saturating_sub(ms).max(0) as u64);
        let handled_by = handlers
            .iter()
            .filter(|h| changes.iter().any(|c| h.wants(c)))
            .map(|h| h.name())
            .collect();
        let done = dispatch_until(&db, &changes, handlers, self.deadline).await;
        let failed = done.failed;
        // dispatch names records by their number without padding: find the
        // record, so the answer carries its identifier exactly as sent
        // (DynamoDB Local's have leading zeros).
        let failed_at = failed.first().map(|seq| {
            changes
                .iter()
                .position(|c| c.seq == pad_seq(seq))
                .unwrap_or(0)
        });
        let mut response = DynamoDbEventResponse::default();
        if let Some(at) = failed_at {
            let mut failure = DynamoDbBatchItemFailure::default();
            failure.item_identifier = sent.get(at).cloned();
            response.batch_item_failures.push(failure);
        }
        let cost = db.metrics();
        BatchLine {
            function: self.grant.function,
            request_id: self.request_id,
            records: changes.len(),
            failures: failed_at.map_or(0, |at| changes.len() - at),
            first_failure: failed_at.and_then(|at| sent.get(at)).map(String::as_str),
            handled_by,
            parked: done.parked,
            latency: started.elapsed(),
            oldest_age: Duration::from_millis(oldest),
            lag: lag(&changes),
            cost: &cost,
        }
        .write(&app.config);
        Ok(response)
    }
}

/// How far behind the stream the consumer is once the batch is done: the
/// age of its newest record now (0 without timestamps).
fn lag(changes: &[Change]) -> Duration {
    let newest = changes.iter().map(|c| c.at_ms).max().unwrap_or(0);
    if newest <= 0 {
        return Duration::ZERO;
    }
    Duration::from_millis((now_ms() as i64).saturating_sub(newest).max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduled_events_are_told_from_batches() {
        let tick = serde_json::json!({
            "version": "0", "id": "x", "detail-type": "Scheduled Event",
            "source": "aws.events", "detail": {}
        });
        assert!(is_scheduled(&tick));
        assert!(!is_scheduled(&serde_json::json!({"Records": []})));
        assert!(!is_scheduled(&serde_json::json!({"detail-type": "Other"})));
    }

    #[test]
    fn the_deadline_leaves_a_margin_and_ignores_unknown_ones() {
        assert!(
            crate::config::BACKGROUND_OPERATION < MARGIN,
            "a call started before the deadline ends before Lambda stops the batch"
        );
        assert_eq!(time_until(0), None, "no deadline");
        assert_eq!(time_until(now_ms() - 1_000), None, "already past");
        assert_eq!(time_until(now_ms() + 500), None, "too close to act on");
        let at = time_until(now_ms() + 120_000).unwrap();
        let left = at.saturating_duration_since(Instant::now());
        assert!(
            left > Duration::from_secs(105) && left <= Duration::from_secs(110),
            "{left:?}"
        );
        let at = time_until(now_ms() + 20_000).unwrap();
        let left = at.saturating_duration_since(Instant::now());
        assert!(
            left > Duration::from_secs(17) && left <= Duration::from_secs(18),
            "{left:?}"
        );
    }
}
