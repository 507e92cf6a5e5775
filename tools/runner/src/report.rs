//! What a run tells the API, as a trait: the HTTP client implements it, and
//! tests put an in-process recorder in its place.

use std::future::Future;

use crate::job::{EndStatus, LogLine};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// The token is wrong or revoked: nothing more can be done.
    #[error("the API refused the runner's token (401)")]
    Unauthorized,
    /// `409`: the deployment is no longer this runner's to run.
    #[error("the deployment is no longer this runner's: {0}")]
    Gone(String),
    #[error("{call} answered {status}: {body}")]
    Status {
        call: String,
        status: u16,
        body: String,
    },
    #[error("{call}: {message}")]
    Transport { call: String, message: String },
}

pub trait Reporter: Sync {
    /// `true` when a cancel was asked for.
    fn heartbeat(&self, deployment: &str) -> impl Future<Output = Result<bool, ApiError>> + Send;

    /// `true` when a cancel was asked for.
    fn logs(
        &self,
        deployment: &str,
        lines: &[LogLine],
    ) -> impl Future<Output = Result<bool, ApiError>> + Send;

    fn end(
        &self,
        deployment: &str,
        status: EndStatus,
        error: Option<&str>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send;
}
