//! The one error type of the HTTP layer. Domain code returns these; each
//! API renders them in its own dialect in exactly one place
//! ([`Error::into_response`]): the tracker speaks Gitea's
//! `{"message","url"}`, the deploy API Coolify's `{"message","errors"}`.

use std::collections::BTreeMap;

use lambda_http::http::StatusCode;
use serde_json::{Value, json};

use crate::{Config, db::DbError, http::response};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which API's error bodies and status conventions to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Gitea-compatible tracker and account routes.
    Tracker,
    /// Coolify-compatible deploy routes.
    Deploy,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    BadRequest(String),
    /// No credentials where they are required.
    #[error("token is required")]
    TokenRequired,
    /// Credentials were sent but are not valid.
    #[error("invalid username, password or token")]
    BadCredentials,
    /// Signed in, but not in a way this route accepts.
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    /// A 403 whose body is empty (Gitea's EditIssue does this).
    #[error("forbidden")]
    ForbiddenEmpty,
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    MethodNotAllowed(String),
    #[error("{0}")]
    Conflict(String),
    /// Requested domains are in use (deploy API): 409 with the conflicts.
    #[error("domain conflicts: {0:?}")]
    DomainConflicts(Vec<crate::deploy::domains::Conflict>),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Locked(String),
    /// Field-level validation failures (deploy 400, tracker 422).
    #[error("validation failed: {0:?}")]
    Validation(BTreeMap<String, Vec<String>>),
    /// Our fault: logged in full, shown to the client only as a request id.
    #[error("internal error: {0}")]
    Internal(String),
    /// Transient (throttling, repeated transaction conflicts, a database
    /// that does not answer), with nothing changed: retry later.
    #[error("service busy: {0}")]
    Unavailable(String),
    /// A write was sent but its answer never came: it may or may not have
    /// been applied. A retry with the same `Idempotency-Key` is safe.
    #[error("outcome unknown: {0}")]
    OutcomeUnknown(String),
}

impl From<DbError> for Error {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Unavailable(_) | DbError::TransactionConflict => {
                Error::Unavailable(e.to_string())
            }
            DbError::OutcomeUnknown(_) => Error::OutcomeUnknown(e.to_string()),
            DbError::TooManyItems { items, limit } => Error::BadRequest(format!(
                "This request would change {items} items at once; the database accepts at most {limit} in one transaction. Make the change in smaller steps."
            )),
            DbError::ItemTooLarge { attribute, bytes } => {
                let field = if attribute.is_empty() {
                    "body".to_string()
                } else {
                    attribute
                };
                let size = if bytes == 0 {
                    "more than 400 KB".to_string()
                } else {
                    format!("{bytes} bytes")
                };
                Error::field(
                    &field,
                    format!(
                        "is too large to store: the record would take {size}, and one record holds at most 409600 bytes"
                    ),
                )
            }
            DbError::Superseded => Error::Conflict(
                "a retry with the same Idempotency-Key took this request over".into(),
            ),
            other => Error::Internal(other.to_string()),
        }
    }
}

/// Seconds a client should wait before retrying a 503.
const RETRY_AFTER_SECS: &str = "2";

impl Error {
    pub fn not_found() -> Self {
        Error::NotFound("not found".into())
    }

    /// A validation error on one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Error::Validation(BTreeMap::from([(field.to_string(), vec![message.into()])]))
    }

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
            (Error::Conflict(_) | Error::DomainConflicts(_), _) => StatusCode::CONFLICT,
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
    pub fn into_response(
        self,
        dialect: Dialect,
        config: &Config,
        request_id: &str,
    ) -> response::Response {
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
        let body = match dialect {
            Dialect::Tracker => {
                let mut body = json!({"message": message, "url": config.url("api/swagger")});
                if status == StatusCode::NOT_FOUND {
                    body["errors"] = Value::Null;
                }
                body
            }
            Dialect::Deploy => match self {
                Error::Validation(fields) => json!({"message": message, "errors": fields}),
                Error::DomainConflicts(conflicts) => json!({
                    "message": "Domain conflicts detected. Use force_domain_override=true to proceed.",
                    "warning": "Using the same domain for multiple resources can cause routing conflicts and unpredictable behavior.",
                    "conflicts": conflicts,
                }),
                _ => json!({"message": message}),
            },
        };
        let mut res = response::json(dialect, status, &body);
        if status == StatusCode::SERVICE_UNAVAILABLE {
            res.headers_mut().insert(
                "retry-after",
                lambda_http::http::HeaderValue::from_static(RETRY_AFTER_SECS),
            );
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::response::body_json;

    fn cfg() -> Config {
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
}
