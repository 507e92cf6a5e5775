//! What goes wrong in the deploy area, in its own terms. The HTTP layer
//! turns each case into Coolify's status and message
//! (the crate's `errors.rs`); field problems carry Coolify's validator
//! wording, which belongs to each rule.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::db::DbError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The objects of the deploy API, as errors name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    Application,
    Project,
    Environment,
    Server,
    PrivateKey,
    ProviderApp,
    Deployment,
    Runner,
    Cleanup,
    EnvironmentVariable,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Field problems, each field with its messages.
    #[error("invalid fields: {0:?}")]
    Invalid(BTreeMap<String, Vec<String>>),
    /// The object the request names is not the team's.
    #[error("{0:?} not found")]
    NotFound(Object),
    /// A parent still referred to cannot be deleted.
    #[error("{0:?} is in use")]
    InUse(Object),
    /// Another request changed the object between its read and this write.
    #[error("{0:?} changed meanwhile")]
    Changed(Object),
    /// Requested domains are held by other applications or the instance.
    #[error("domain conflicts: {0:?}")]
    DomainConflicts(Vec<Conflict>),
    /// `instant_deploy` without the `deploy` ability.
    #[error("the token may not deploy")]
    DeployNotAllowed,
    /// The team already holds the most objects of a kind it may.
    #[error("quota of {0:?} reached")]
    QuotaFull(Object),
    /// A project's environments or a server's destinations are at their
    /// maximum (`max`).
    #[error("{parent:?} has {max} children")]
    TooManyChildren { parent: Object, max: usize },
    #[error("an environment of that name exists")]
    EnvironmentExists,
    #[error("a destination with network {0} exists")]
    NetworkExists(String),
    /// The stored settings would not fit one item.
    #[error("settings of {size} bytes (most {max})")]
    SettingsTooLarge { size: usize, max: usize },
    /// A deployment cannot move from one status to the other.
    #[error("a deployment cannot move from {from} to {to}")]
    IllegalMove {
        from: &'static str,
        to: &'static str,
    },
    /// A user cancels a deployment that has ended (Coolify's 400).
    #[error("a {status} deployment cannot be cancelled")]
    NotCancellable { status: &'static str },
    /// No container of the application runs (Coolify's 400).
    #[error("the application is not running")]
    AppNotRunning,
    /// The server's runner has not sent the application's logs yet;
    /// `heard` tells whether any runner of the server ever called.
    #[error("the application's logs are not in yet")]
    LogsPending { heard: bool },
    /// A runner reports on a deployment that is no longer its to run
    /// (ended, or failed as silent).
    #[error("the deployment is no longer the runner's ({status})")]
    NotRunning { status: String },
    /// A request the deploy API refuses with Coolify's plain 400.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// Coolify's 404 with its own message (`/deploy` found nothing).
    #[error("nothing found: {0}")]
    NothingFound(&'static str),
    /// A server holds the most runners it may.
    #[error("a server has at most {0} runners")]
    TooManyRunners(usize),
    /// An environment variable of that key exists in that scope.
    #[error("the environment variable exists")]
    EnvExists,
    /// An application's variables would pass their count or size bound.
    #[error("too many or too large environment variables")]
    EnvLimits,
    /// Sealing or opening a secret failed (configuration, KMS).
    #[error(transparent)]
    Seal(#[from] crate::seal::SealError),
    /// Transient, nothing changed: retry.
    #[error("busy: {0}")]
    Busy(&'static str),
    #[error("internal error: {0}")]
    Internal(&'static str),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl Error {
    /// A problem with one field.
    pub fn field(name: &str, message: impl Into<String>) -> Error {
        Error::Invalid(BTreeMap::from([(name.to_string(), vec![message.into()])]))
    }
}

/// One entry of a 409's `conflicts`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Conflict {
    pub domain: String,
    pub resource_name: String,
    pub resource_uuid: Option<String>,
    pub resource_type: &'static str,
    pub message: String,
}
