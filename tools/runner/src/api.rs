//! The protocol client: `/runner/v1/...` over HTTPS (or plain HTTP on
//! loopback, for local runs and tests), with the runner's bearer token.

use std::time::Duration;

use reqwest::StatusCode;
use serde::{Deserialize, de::DeserializeOwned};
use serde_json::json;
use url::Url;

use crate::{
    app_logs::{Fetched, LogAsk},
    job::{Cleanup, EndStatus, Job, LogLine},
    report::{ApiError, Reporter},
};

/// Below API Gateway's 30 s: every call answers well within it.
const CALL_TIMEOUT: Duration = Duration::from_secs(25);

/// What a claim brought: a job, and asks for containers' logs.
#[derive(Debug, Default)]
pub struct Claimed {
    pub job: Option<Job>,
    pub asks: Vec<LogAsk>,
}

/// No `Debug`: it holds the token.
pub struct Client {
    http: reqwest::Client,
    base: Url,
    token: String,
}

#[derive(Deserialize)]
struct CancelAnswer {
    #[serde(default)]
    cancel: bool,
}

impl Client {
    pub fn new(base: &str, token: String) -> Result<Self, String> {
        let base = Url::parse(base).map_err(|e| format!("--api {base}: {e}"))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(format!("--api {base}: an http(s) URL is needed"));
        }
        let http = reqwest::Client::builder()
            .timeout(CALL_TIMEOUT)
            .user_agent(concat!("runner/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Self { http, base, token })
    }

    /// `POST /runner/v1/claim`, saying this runner reads log asks: a job
    /// (or `None` when there is none), and the asks for containers' logs.
    pub async fn claim(&self) -> Result<Claimed, ApiError> {
        let body = json!({ "log_requests": true });
        let Some(mut answer) = self
            .post_maybe::<serde_json::Value>("claim", &["claim"], Some(body))
            .await?
        else {
            return Ok(Claimed::default());
        };
        let asks = match answer.get_mut("log_requests").map(serde_json::Value::take) {
            Some(asks) => parse("claim", asks.to_string().as_bytes())?,
            None => Vec::new(),
        };
        let job = match answer.get("deployment_uuid") {
            Some(_) => Some(parse("claim", answer.to_string().as_bytes())?),
            None => None,
        };
        Ok(Claimed { job, asks })
    }

    /// `POST /runner/v1/applications/{uuid}/logs`: the answer to an ask.
    pub async fn send_app_logs(&self, ask: &LogAsk, found: &Fetched) -> Result<(), ApiError> {
        let body = json!({
            "running": found.running,
            "logs": found.text,
            "lines": ask.lines,
            "show_timestamps": ask.show_timestamps,
        });
        let segments = ["applications", ask.application_uuid.as_str(), "logs"];
        self.post("app logs", &segments, Some(body)).await.map(drop)
    }

    /// `POST /runner/v1/cleanups/claim`.
    pub async fn claim_cleanup(&self) -> Result<Option<Cleanup>, ApiError> {
        self.post_maybe("cleanups/claim", &["cleanups", "claim"], None)
            .await
    }

    /// `POST /runner/v1/cleanups/{id}/done`.
    pub async fn cleanup_done(&self, id: &str) -> Result<(), ApiError> {
        self.post("cleanups/done", &["cleanups", id, "done"], None)
            .await
            .map(drop)
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty()
                .extend(["runner", "v1"])
                .extend(segments);
        }
        url
    }

    async fn post_maybe<T: DeserializeOwned>(
        &self,
        call: &str,
        segments: &[&str],
        body: Option<serde_json::Value>,
    ) -> Result<Option<T>, ApiError> {
        let (status, bytes) = self.post(call, segments, body).await?;
        if status == StatusCode::NO_CONTENT {
            return Ok(None);
        }
        parse(call, &bytes).map(Some)
    }

    async fn post(
        &self,
        call: &str,
        segments: &[&str],
        body: Option<serde_json::Value>,
    ) -> Result<(StatusCode, Vec<u8>), ApiError> {
        let transport = |e: reqwest::Error| ApiError::Transport {
            call: call.to_owned(),
            message: e.without_url().to_string(),
        };
        let mut request = self.http.post(self.url(segments)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.map_err(transport)?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(transport)?.to_vec();
        match status {
            s if s.is_success() => Ok((s, bytes)),
            StatusCode::UNAUTHORIZED => Err(ApiError::Unauthorized),
            StatusCode::CONFLICT => Err(ApiError::Gone(
                String::from_utf8_lossy(&bytes).chars().take(500).collect(),
            )),
            s => Err(ApiError::Status {
                call: call.to_owned(),
                status: s.as_u16(),
                body: String::from_utf8_lossy(&bytes).chars().take(500).collect(),
            }),
        }
    }
}

fn parse<T: DeserializeOwned>(call: &str, bytes: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| ApiError::Status {
        call: call.to_owned(),
        status: 200,
        body: format!("unreadable answer: {e}"),
    })
}

impl Reporter for Client {
    async fn heartbeat(&self, deployment: &str) -> Result<bool, ApiError> {
        let (_, bytes) = self
            .post("heartbeat", &["deployments", deployment, "heartbeat"], None)
            .await?;
        Ok(parse::<CancelAnswer>("heartbeat", &bytes)?.cancel)
    }

    async fn logs(&self, deployment: &str, lines: &[LogLine]) -> Result<bool, ApiError> {
        let body = json!({ "lines": lines });
        let (_, bytes) = self
            .post("logs", &["deployments", deployment, "logs"], Some(body))
            .await?;
        Ok(parse::<CancelAnswer>("logs", &bytes)?.cancel)
    }

    async fn end(
        &self,
        deployment: &str,
        status: EndStatus,
        error: Option<&str>,
    ) -> Result<(), ApiError> {
        let mut body = json!({ "status": status });
        if let Some(error) = error {
            body["error"] = json!(error);
        }
        self.post("end", &["deployments", deployment, "end"], Some(body))
            .await
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_keep_the_base_path_and_encode_segments() {
        let c = Client::new("http://127.0.0.1:9000", "t".into()).unwrap();
        assert_eq!(
            c.url(&["claim"]).as_str(),
            "http://127.0.0.1:9000/runner/v1/claim"
        );
        let c = Client::new("https://api.example.com/stage/", "t".into()).unwrap();
        assert_eq!(
            c.url(&["deployments", "a/b", "logs"]).as_str(),
            "https://api.example.com/stage/runner/v1/deployments/a%2Fb/logs"
        );
        assert!(Client::new("ftp://x", "t".into()).is_err());
    }
}
