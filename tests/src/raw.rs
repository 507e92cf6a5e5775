//! Requests whose raw answer is kept, to measure what Lambda would send,
//! for the response-limit tests.

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::{Api, unique};

/// What a response may take as a Lambda envelope (the API's own budget,
/// under Lambda's 6 MB).
pub const BUDGET: usize = 6_000_000;

/// A GET whose raw text is kept, to measure what Lambda would have sent.
pub struct Raw {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
    pub json: Value,
}

impl Raw {
    /// The response's size as a Lambda envelope: the body as one JSON
    /// string, plus status and headers (counted twice, single and
    /// multi-value, with room for their quoting).
    pub fn envelope(&self) -> usize {
        let headers: usize = self
            .headers
            .iter()
            .map(|(k, v)| k.as_str().len() + v.as_bytes().len() + 8)
            .sum();
        let body = serde_json::to_string(&self.text).expect("a string serialises");
        256 + 2 * headers + body.len()
    }

    pub fn omitted(&self) -> Option<&str> {
        self.headers
            .get("x-omitted-fields")
            .and_then(|v| v.to_str().ok())
    }

    pub fn items(&self) -> &Vec<Value> {
        self.json.as_array().expect("a list")
    }
}

/// Sends a request and keeps the raw text. Creates carry an
/// `Idempotency-Key`, so a resend replays rather than repeats them.
///
/// The local emulator (`cargo lambda watch`) now and then answers a large
/// response with its own bare 500 (no `x-request-id`, which every response
/// of the API carries) after the function has answered, or never answers
/// it (see `shared/src/http/emulator.rs`, which makes both rare); such a
/// request is resent. Any 500 from the API itself is kept and fails the
/// test.
pub async fn send(api: &Api, method: &str, path: &str, auth: &str, body: Option<&Value>) -> Raw {
    let key = unique("k");
    let http = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .expect("an HTTP client");
    for _ in 0..5 {
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
        let mut req = http
            .request(method, format!("{}{path}", api.base))
            .header("authorization", auth);
        if let Some(b) = body {
            req = req.header("idempotency-key", &key).json(b);
        }
        let res = match req.send().await {
            Ok(res) => res,
            Err(e) if e.is_timeout() => {
                eprintln!("{path}: no answer within 60 s; resending");
                continue;
            }
            Err(e) => panic!("{path}: {e}"),
        };
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let text = res.text().await.expect("response text");
        if status == 500 && !headers.contains_key("x-request-id") {
            eprintln!("{path}: the emulator dropped a response; resending");
            continue;
        }
        let json = serde_json::from_str(&text).unwrap_or(Value::Null);
        return Raw {
            status,
            headers,
            text,
            json,
        };
    }
    panic!("{method} {path}: the emulator kept failing")
}

pub async fn get_raw(api: &Api, path: &str, auth: &str) -> Raw {
    send(api, "GET", path, auth, None).await
}
