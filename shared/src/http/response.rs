//! Response builders. Gitea's JSON carries `;charset=utf-8` and a trailing
//! newline (its encoder writes one); Coolify's is plain `application/json`.

use lambda_http::{Body, http::StatusCode};
use serde::Serialize;

pub type Response = lambda_http::Response<Body>;

/// Which API a route speaks: its JSON, error bodies and status
/// conventions (`http/errors` renders errors in it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Gitea-compatible tracker and account routes.
    Tracker,
    /// Coolify-compatible deploy routes.
    Deploy,
}

pub fn json(dialect: Dialect, status: StatusCode, value: &impl Serialize) -> Response {
    // Our own response types always serialise; `{}` is only a safety net.
    let mut body = serde_json::to_string(value).unwrap_or_else(|_| "{}".into());
    let content_type = match dialect {
        Dialect::Tracker => {
            body.push('\n');
            "application/json;charset=utf-8"
        }
        Dialect::Deploy => "application/json",
    };
    let mut res = Response::new(Body::Text(body));
    *res.status_mut() = status;
    res.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static(content_type),
    );
    res
}

/// A text body (Coolify's version and health answers).
pub fn text(status: StatusCode, content_type: &'static str, body: &str) -> Response {
    let mut res = Response::new(Body::Text(body.to_string()));
    *res.status_mut() = status;
    res.headers_mut().insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static(content_type),
    );
    res
}

/// A response with no body (204, or Gitea's bare 403).
pub fn empty(status: StatusCode) -> Response {
    let mut res = Response::new(Body::Empty);
    *res.status_mut() = status;
    res
}

/// The JSON body of a response (tests).
#[cfg(test)]
pub(crate) fn body_json(res: &Response) -> serde_json::Value {
    match res.body() {
        Body::Text(t) => serde_json::from_str(t).unwrap_or_default(),
        _ => serde_json::Value::Null,
    }
}
