//! HTTP rendering of [`crate::error::Error`]: its status code and body in
//! each API's dialect, in exactly one place. The tracker speaks Gitea's
//! `{"message","url"}`, the deploy API Coolify's `{"message","errors"}`.
//! Each area's error enum converts into `Error` in a file of its own here
//! (`deploy.rs`, ...), which holds that area's messages and status choices.

mod deploy;

use lambda_http::http::{HeaderValue, StatusCode};
use serde_json::{Value, json};

use super::response::{self, Dialect, Response};
use crate::{Config, error::Error};

/// Seconds a client should wait before retrying a 503.
const RETRY_AFTER_SECS: &str = "2";

impl Error {
    pub fn status(&self, dialect: Dialect) -> StatusCode {
        use Dialect::*;
        match (self, dialect) {
            (Error::BadRequest(_), _) => StatusCode::BAD_REQUEST,
            (Error::TokenRequired | Error::BadCredentials | Error::Unauthorized(_), _) => {
                StatusCode::UNAUTHORIZED
            }
            (Error::Forbidden(_) | Error::ForbiddenEmpty, _) => StatusCode::FORBIDDEN,
            (Error::NotFound(_), _) => StatusCode::NOT_FOUND,
            (Error::MethodNotAllowed(_), _) => StatusCode::METHOD_NOT_ALLOWED,
            (Error::Conflict(_) | Error::ConflictWith(_), _) => StatusCode::CONFLICT,
            (Error::PreconditionFailed(_), _) => StatusCode::PRECONDITION_FAILED,
            (Error::PayloadTooLarge(_), _) => StatusCode::PAYLOAD_TOO_LARGE,
            // Coolify answers every malformed request with 400.
            (Error::UnsupportedMediaType(_), Deploy) => StatusCode::BAD_REQUEST,
            (Error::UnsupportedMediaType(_), Tracker) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            (Error::Unprocessable(_), Tracker) => StatusCode::UNPROCESSABLE_ENTITY,
            (Error::Unprocessable(_), Deploy) => StatusCode::BAD_REQUEST,
            (Error::Validation(_), Tracker) => StatusCode::UNPROCESSABLE_ENTITY,
            (Error::Validation(_), Deploy) => StatusCode::BAD_REQUEST,
            (Error::Locked(_), _) => StatusCode::LOCKED,
            (Error::Internal(_), _) => StatusCode::INTERNAL_SERVER_ERROR,
            (Error::Unavailable(_) | Error::OutcomeUnknown(_), _) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }

    /// The response a client sees. Internal details stay in the log; the
    /// body names the request id so an operator can find them.
    pub fn into_response(self, dialect: Dialect, config: &Config, request_id: &str) -> Response {
        let status = self.status(dialect);
        if matches!(self, Error::ForbiddenEmpty) {
            return response::empty(status);
        }
        let message = match &self {
            Error::Internal(_) => format!("internal error; request id {request_id}"),
            Error::Unavailable(_) => {
                format!("service busy, retry the request; request id {request_id}")
            }
            Error::OutcomeUnknown(_) => format!(
                "the database did not answer in time: the change may or may not have been made. \
                 Retry with the same Idempotency-Key to make it safely; request id {request_id}"
            ),
            Error::Validation(_) if dialect == Dialect::Deploy => "Validation failed.".into(),
            Error::Validation(fields) => fields
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.join(" ")))
                .collect::<Vec<_>>()
                .join("; "),
            Error::TokenRequired | Error::BadCredentials | Error::Unauthorized(_)
                if dialect == Dialect::Deploy =>
            {
                "Unauthenticated.".into()
            }
            other => other.to_string(),
        };
        let body = match (dialect, self) {
            (_, Error::ConflictWith(body)) => body,
            (Dialect::Tracker, _) => {
                let mut body = json!({"message": message, "url": config.url("api/swagger")});
                if status == StatusCode::NOT_FOUND {
                    body["errors"] = Value::Null;
                }
                body
            }
            (Dialect::Deploy, Error::Validation(fields)) => {
                json!({"message": message, "errors": fields})
            }
            (Dialect::Deploy, _) => json!({"message": message}),
        };
        let mut res = response::json(dialect, status, &body);
        if status == StatusCode::SERVICE_UNAVAILABLE {
            res.headers_mut()
                .insert("retry-after", HeaderValue::from_static(RETRY_AFTER_SECS));
        }
        res
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::http::response::body_json;

    pub(super) fn cfg() -> Config {
        Config::from_lookup(|k| (k == "ROOT_URL").then(|| "http://h.test/".to_string())).unwrap()
    }

    #[test]
    fn tracker_bodies_are_giteas() {
        let r = Error::not_found().into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(r.status(), 404);
        assert_eq!(
            body_json(&r),
            json!({"message": "not found", "url": "http://h.test/api/swagger", "errors": null})
        );
        let r = Error::field("email", "is bad").into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(
            (r.status().as_u16(), body_json(&r)["message"].clone()),
            (422, json!("email: is bad"))
        );
        let r = Error::ForbiddenEmpty.into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(r.status(), 403);
        assert!(matches!(r.body(), lambda_http::Body::Empty));
    }

    #[test]
    fn deploy_bodies_are_coolifys() {
        let r = Error::field("name", "too long").into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 400);
        assert_eq!(
            body_json(&r),
            json!({"message": "Validation failed.", "errors": {"name": ["too long"]}})
        );
        let r = Error::BadCredentials.into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(
            (r.status().as_u16(), body_json(&r)),
            (401, json!({"message": "Unauthenticated."}))
        );
        let r =
            Error::UnsupportedMediaType("x".into()).into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 400);
    }

    #[test]
    fn internal_errors_show_only_the_request_id() {
        let r = Error::Internal("secret detail".into()).into_response(
            Dialect::Tracker,
            &cfg(),
            "req-9",
        );
        assert_eq!(r.status(), 500);
        let msg = body_json(&r)["message"].as_str().unwrap().to_string();
        assert!(msg.contains("req-9") && !msg.contains("secret"), "{msg}");
    }

    #[test]
    fn busy_answers_say_when_to_retry() {
        let r = Error::Unavailable("x".into()).into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()["retry-after"], "2");
    }
}
