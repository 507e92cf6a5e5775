//! The deploy area's errors as Coolify shows them.

use serde_json::json;

use crate::{deploy::DeployError, error::Error};

impl From<DeployError> for Error {
    fn from(e: DeployError) -> Self {
        match e {
            DeployError::DomainConflicts(conflicts) => Error::ConflictWith(json!({
                "message": "Domain conflicts detected. Use force_domain_override=true to proceed.",
                "warning": "Using the same domain for multiple resources can cause routing conflicts and unpredictable behavior.",
                "conflicts": conflicts,
            })),
        }
    }
}
