//! Work after a committed delete: what it made unreachable is removed
//! within the request's time if it can be, and by `check-data` if not.

use std::{future::Future, time::Duration};

use super::Db;

/// How long a request may spend removing what a committed delete left
/// unreachable; the rest is left to `check-data`, and the request answers
/// the truth: the object is gone.
pub const CLEANUP_BUDGET: Duration = Duration::from_secs(5);

/// Runs the cleanup after a committed delete, for at most
/// [`CLEANUP_BUDGET`] and never past the request's time. Its failures are
/// logged, not returned: the delete has happened, and `check-data`
/// finishes what is left.
pub async fn cleanup<E: std::fmt::Display>(
    db: &Db,
    what: &str,
    work: impl Future<Output = Result<(), E>>,
) {
    match tokio::time::timeout(db.time_left(CLEANUP_BUDGET), work).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(what, error = %e, "cleanup left for check-data"),
        Err(_) => tracing::warn!(what, "cleanup left for check-data (out of time)"),
    }
}
