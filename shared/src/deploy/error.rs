//! What goes wrong in the deploy area, in its own terms. The HTTP layer
//! turns each case into Coolify's status and message
//! (`http/errors/deploy.rs`).

use super::domains::Conflict;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Requested domains are held by other applications or the instance.
    #[error("domain conflicts: {0:?}")]
    DomainConflicts(Vec<Conflict>),
}
