//! The one error type of the HTTP layer: what went wrong, in the terms
//! both APIs share (not found, forbidden, invalid fields, busy...). Areas
//! with an error enum of their own convert into it (`http/errors/<area>.rs`);
//! the status codes and each API's body shapes live in `http/errors`; the
//! table's errors convert in `db/error.rs`.

use std::collections::BTreeMap;

use serde_json::Value;

pub type Result<T, E = Error> = std::result::Result<T, E>;

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
    /// A 409 whose whole JSON body the area chose (the deploy API's
    /// domain conflicts list each holder).
    #[error("conflict: {0}")]
    ConflictWith(Value),
    #[error("{0}")]
    PreconditionFailed(String),
    #[error("request body is larger than {0} bytes")]
    PayloadTooLarge(usize),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Unprocessable(String),
    /// A 422 whose whole JSON body the area chose (Gitea's invalid topics
    /// name each one).
    #[error("unprocessable: {0}")]
    UnprocessableWith(Value),
    #[error("{0}")]
    Locked(String),
    /// 429: the client must wait `retry_after` seconds (sent as
    /// `Retry-After`) before asking again.
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
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
    /// 503 with a message of its own: what is asked is on its way (a
    /// server's runner fetches it), ask again after `retry_after` seconds.
    #[error("{message}")]
    NotYet { message: String, retry_after: u64 },
    /// A write was sent but its answer never came: it may or may not have
    /// been applied. A retry with the same `Idempotency-Key` is safe.
    #[error("outcome unknown: {0}")]
    OutcomeUnknown(String),
}

impl Error {
    pub fn not_found() -> Self {
        Error::NotFound("not found".into())
    }

    /// A validation error on one field.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        Error::Validation(BTreeMap::from([(field.to_string(), vec![message.into()])]))
    }
}
