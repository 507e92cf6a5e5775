//! What can go wrong with repositories and access to them, in domain
//! terms. `crate::http::errors::repos` gives each Gitea's status and text.

use crate::{accounts, db::DbError};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The repository does not exist, or the caller may not see it
    /// (private things are not found, not forbidden).
    #[error("no repository {owner}/{name}")]
    NotFound { owner: String, name: String },
    /// It went away while being changed.
    #[error("the repository is gone")]
    Gone,
    #[error("repository name is reserved: {0}")]
    ReservedName(String),
    /// The owner already has a repository by this name (create).
    #[error("{0} exists")]
    Exists(String),
    /// A rename to a name the owner already uses.
    #[error("the name {0} is taken")]
    NameTaken(String),
    #[error("write access to issues or pulls needed")]
    NotWriter,
    #[error("admin access needed")]
    NotAdmin,
    #[error("the owner's access needed")]
    NotOwner,
    #[error("may not create repositories in this organisation")]
    MayNotCreate,
    /// A collaborator named who is not a user.
    #[error("no user {0} to collaborate")]
    NoSuchCollaborator(String),
    #[error("the owner cannot be a collaborator")]
    OwnerAsCollaborator,
    #[error("{0} is blocked by the owner")]
    Blocked(String),
    #[error("team {team} is not of {org}")]
    ForeignTeam { team: i64, org: String },
    /// Topics refused, with Gitea's body (`invalidTopics`).
    #[error("invalid topics: {0}")]
    Topics(serde_json::Value),
    #[error("no topic {0}")]
    NoSuchTopic(String),
    /// A listing past its bounds (examined entries, sources, window).
    #[error("{0}")]
    ListTooBroad(String),
    /// A listing parameter this service does not serve.
    #[error("{0}")]
    BadListParam(String),
    #[error(transparent)]
    Accounts(#[from] accounts::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}
