//! Invokes the consumer through `cargo lambda watch`'s invoke API
//! (`POST /2015-03-31/functions/stream/invocations`, Lambda's own path; the
//! emulator starts the function's binary on the first call) and reads its
//! answer as the event source mapping does, with
//! `FunctionResponseTypes: [ReportBatchItemFailures]`:
//!
//! - no body, `null`, no `batchItemFailures` or an empty list: every record
//!   is done;
//! - failures that all name records of the batch: the earliest of them
//!   failed, those before it are done;
//! - failures with an empty, missing or unknown `itemIdentifier`, or an
//!   answer that is not a JSON object: the whole batch failed;
//! - a function error (the emulator answers 500 with Lambda's
//!   `{"errorType", "errorMessage"}`, or an answer carries Lambda's
//!   `X-Amz-Function-Error` header): the whole batch failed, and is halved
//!   before it is delivered again;
//! - 404 (the emulator knows no such function) or no answer: nothing ran,
//!   tried again later without counting against the batch.

use std::time::Duration;

use serde_json::Value;

use crate::shard::Outcome;

/// How long an invocation may take: the function's timeout in
/// template.yaml (120 s) and a margin. No answer by then is taken for an
/// emulator that is not there (a build that failed under `cargo lambda
/// watch` never answers), not counted against the batch.
pub const TIMEOUT: Duration = Duration::from_secs(130);

pub struct Invoker {
    client: reqwest::Client,
    url: String,
}

impl Invoker {
    pub fn new(url: String) -> Self {
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .build()
            .unwrap_or_default();
        Self { client, url }
    }

    /// Sends `payload` (the event holding the records `seqs`).
    pub async fn invoke(&self, payload: String, seqs: &[&str]) -> Outcome {
        let res = match self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(payload)
            .send()
            .await
        {
            Ok(res) => res,
            Err(e) if e.is_timeout() => {
                return Outcome::Unreachable(format!(
                    "no answer in {} s from {} (did the function build?)",
                    TIMEOUT.as_secs(),
                    self.url
                ));
            }
            Err(e) => return Outcome::Unreachable(format!("{}: {e}", self.url)),
        };
        let status = res.status().as_u16();
        let function_error = res
            .headers()
            .get("x-amz-function-error")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = match res.bytes().await {
            Ok(b) => b,
            Err(e) => {
                return Outcome::Unreachable(format!("{}: reading the answer: {e}", self.url));
            }
        };
        outcome(status, function_error.as_deref(), &body, seqs)
    }
}

/// What an answer means for the batch of records `seqs`.
pub fn outcome(status: u16, function_error: Option<&str>, body: &[u8], seqs: &[&str]) -> Outcome {
    let text = String::from_utf8_lossy(body);
    // `cargo lambda watch` does not know the function (a misspelt URL, a
    // binary that is not there): nothing ran.
    if status == 404 && function_error.is_none() {
        return Outcome::Unreachable(format!(
            "no such function: {}",
            text.chars().take(300).collect::<String>()
        ));
    }
    if !(200..300).contains(&status) || function_error.is_some() {
        let mut message = text.chars().take(500).collect::<String>();
        if let Some(kind) = function_error {
            message = format!("{kind}: {message}");
        }
        return Outcome::FunctionError(format!("status {status}: {message}"));
    }
    if text.trim().is_empty() {
        return Outcome::Done;
    }
    let whole = |why: &str| {
        tracing::warn!(answer = %text.chars().take(300).collect::<String>(), "{why}: the whole batch failed");
        Outcome::FailedFrom(0)
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(_) => return whole("the answer is not JSON"),
    };
    let failures = match &value {
        Value::Null => return Outcome::Done,
        Value::Object(o) => match o.get("batchItemFailures") {
            None | Some(Value::Null) => return Outcome::Done,
            Some(Value::Array(a)) => a,
            Some(_) => return whole("batchItemFailures is not a list"),
        },
        _ => return whole("the answer is not an object"),
    };
    let mut first: Option<usize> = None;
    for failure in failures {
        let id = failure.get("itemIdentifier").and_then(Value::as_str);
        let Some(at) = id
            .filter(|id| !id.is_empty())
            .and_then(|id| seqs.iter().position(|s| *s == id))
        else {
            return whole("a failure names no record of the batch");
        };
        first = Some(first.map_or(at, |f| f.min(at)));
    }
    match first {
        None => Outcome::Done,
        Some(at) => Outcome::FailedFrom(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEQS: &[&str] = &[
        "000000000000000000001",
        "000000000000000000002",
        "000000000000000000003",
    ];

    fn ok(body: &str) -> Outcome {
        outcome(200, None, body.as_bytes(), SEQS)
    }

    #[test]
    fn answers_read_as_lambda_reads_them() {
        let rows: &[(&str, Outcome)] = &[
            ("", Outcome::Done),
            ("null", Outcome::Done),
            ("{}", Outcome::Done),
            (r#"{"batchItemFailures":[]}"#, Outcome::Done),
            (r#"{"batchItemFailures":null}"#, Outcome::Done),
            (
                r#"{"batchItemFailures":[{"itemIdentifier":"000000000000000000002"}]}"#,
                Outcome::FailedFrom(1),
            ),
            (
                r#"{"batchItemFailures":[{"itemIdentifier":"000000000000000000003"},{"itemIdentifier":"000000000000000000002"}]}"#,
                Outcome::FailedFrom(1),
            ),
            // What Lambda takes as a failure of the whole batch.
            (
                r#"{"batchItemFailures":[{"itemIdentifier":""}]}"#,
                Outcome::FailedFrom(0),
            ),
            (
                r#"{"batchItemFailures":[{"itemIdentifier":null}]}"#,
                Outcome::FailedFrom(0),
            ),
            (r#"{"batchItemFailures":[{}]}"#, Outcome::FailedFrom(0)),
            (
                r#"{"batchItemFailures":[{"itemIdentifier":"2"}]}"#,
                Outcome::FailedFrom(0),
            ),
            (r#"{"batchItemFailures":"all"}"#, Outcome::FailedFrom(0)),
            ("not json", Outcome::FailedFrom(0)),
            ("[1]", Outcome::FailedFrom(0)),
        ];
        for (body, want) in rows {
            assert_eq!(&ok(body), want, "{body:?}");
        }
    }

    #[test]
    fn an_unknown_function_is_not_the_batchs_fault() {
        let body = r#"{"detail":"that function doesn't exist as a binary in your project","title":"Missing function"}"#;
        assert!(matches!(
            outcome(404, None, body.as_bytes(), SEQS),
            Outcome::Unreachable(_)
        ));
    }

    #[test]
    fn function_errors_fail_the_batch_whole() {
        let e = r#"{"errorType":"StreamRecordUnreadable","errorMessage":"record 9: unknown eventName"}"#;
        for (status, header) in [
            (500, None),
            (200, Some("Unhandled")),
            (502, Some("Unhandled")),
        ] {
            match outcome(status, header, e.as_bytes(), SEQS) {
                Outcome::FunctionError(m) => assert!(m.contains("unknown eventName"), "{m}"),
                other => panic!("{status} {header:?}: {other:?}"),
            }
        }
    }
}
