//! The deploy area's errors as Coolify shows them: each case's status and
//! message. Field problems keep the validator's own wording.

use serde_json::json;

use crate::{
    deploy::{Error as DeployError, Object, model::env, store::quota},
    error::Error,
};

/// How Coolify's messages name an object.
fn name(o: Object) -> &'static str {
    match o {
        Object::Application => "Application",
        Object::Project => "Project",
        Object::Environment => "Environment",
        Object::Server => "Server",
        Object::PrivateKey => "Private Key",
        Object::ProviderApp => "Provider app",
        Object::Deployment => "Deployment",
        Object::Runner => "Runner",
        Object::Cleanup => "Cleanup",
        Object::EnvironmentVariable => "Environment variable",
    }
}

impl From<DeployError> for Error {
    fn from(e: DeployError) -> Self {
        match e {
            DeployError::Invalid(fields) => Error::Validation(fields),
            DeployError::NotFound(o) => Error::NotFound(format!("{} not found.", name(o))),
            DeployError::InUse(o) => Error::BadRequest(
                match o {
                    Object::Project => "Project has resources, so it cannot be deleted.",
                    Object::Environment => "Environment has resources, so it cannot be deleted.",
                    Object::Server => "Server has resources, so you need to delete them before.",
                    Object::PrivateKey => {
                        "Private Key is in use by a server, an application or a provider app."
                    }
                    _ => "The object is in use.",
                }
                .into(),
            ),
            DeployError::Changed(o) => Error::Conflict(format!(
                "The {} was changed by another request; retry.",
                name(o).to_lowercase()
            )),
            DeployError::DomainConflicts(conflicts) => Error::ConflictWith(json!({
                "message": "Domain conflicts detected. Use force_domain_override=true to proceed.",
                "warning": "Using the same domain for multiple resources can cause routing conflicts and unpredictable behavior.",
                "conflicts": conflicts,
            })),
            DeployError::DeployNotAllowed => {
                Error::Forbidden("Missing required permissions: deploy".into())
            }
            DeployError::QuotaFull(o) => Error::BadRequest(format!(
                "The team already has {} {}s; delete some first.",
                quota::MAX_PER_TEAM,
                name(o).to_lowercase()
            )),
            DeployError::TooManyChildren { parent, max } => Error::BadRequest(match parent {
                Object::Server => format!("A server can have at most {max} destinations."),
                _ => format!("A project can have at most {max} environments."),
            }),
            DeployError::EnvironmentExists => {
                Error::Conflict("Environment with this name already exists.".into())
            }
            DeployError::NetworkExists(network) => Error::Conflict(format!(
                "A destination with network {network} already exists on this server."
            )),
            DeployError::SettingsTooLarge { size, max } => Error::BadRequest(format!(
                "The application's settings take {size} bytes once stored; at most {max} fit in one record."
            )),
            DeployError::IllegalMove { from, to } => Error::ConflictWith(json!({
                "message": format!("Deployment cannot move from {from} to {to}."),
                "status": from,
            })),
            DeployError::NotCancellable { status } => Error::BadRequest(format!(
                "Deployment cannot be cancelled. Current status: {status}"
            )),
            DeployError::AppNotRunning => Error::BadRequest("Application is not running.".into()),
            DeployError::LogsPending { heard: true } => Error::NotYet {
                message: "The server's runner has been asked for this application's logs; retry in a few seconds.".into(),
                retry_after: 3,
            },
            DeployError::LogsPending { heard: false } => Error::NotYet {
                message: "No runner of this application's server has been heard from: logs come from the server's runner (docs/deploy-runner.md). The ask waits for its first claim.".into(),
                retry_after: 10,
            },
            DeployError::NotRunning { status } => Error::ConflictWith(json!({
                "message": "The deployment is no longer this runner's to run.",
                "status": status,
            })),
            DeployError::BadRequest(m) => Error::BadRequest(m),
            DeployError::NothingFound(m) => Error::NotFound(m.into()),
            DeployError::TooManyRunners(max) => {
                Error::BadRequest(format!("A server can have at most {max} runners."))
            }
            DeployError::EnvExists => Error::Conflict(
                "Environment variable already exists. Use PATCH request to update it.".into(),
            ),
            DeployError::EnvLimits => Error::BadRequest(format!(
                "An application holds at most {} environment variables and {} bytes of values.",
                env::MAX_PER_APP,
                env::MAX_APP_BYTES
            )),
            DeployError::Seal(e) => {
                tracing::error!(error = %e, "secrets could not be sealed or opened");
                Error::Internal("secrets are unavailable".into())
            }
            DeployError::Busy(why) => Error::Unavailable(why.into()),
            DeployError::Internal(why) => Error::Internal(why.into()),
            DeployError::Db(e) => e.into(),
        }
    }
}
