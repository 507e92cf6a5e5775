//! Gitea's request bodies for repositories (the wire format in), each
//! parsed into its command.

use serde::Deserialize;

use super::{Error, NewRepo, RepoEdit};
use crate::accounts::teams::AccessMode;

/// Gitea's `CreateRepoOption`; git-only fields (auto_init, gitignores,
/// license, readme, template, trust_model) are accepted and ignored.
#[derive(Debug, Deserialize)]
pub struct CreateRepoOption {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub private: Option<bool>,
    #[serde(default)]
    pub default_branch: Option<String>,
}

impl TryFrom<CreateRepoOption> for NewRepo {
    type Error = Error;

    fn try_from(o: CreateRepoOption) -> Result<Self, Error> {
        NewRepo::parse(&o.name, o.description, o.private, o.default_branch)
    }
}

#[derive(Debug, Deserialize)]
pub struct InternalTrackerOption {
    #[serde(default)]
    pub enable_issue_dependencies: Option<bool>,
    #[serde(default)]
    pub enable_time_tracker: Option<bool>,
    #[serde(default)]
    pub allow_only_contributors_to_track_time: Option<bool>,
}

/// The parts of Gitea's `EditRepoOption` this service keeps.
#[derive(Debug, Deserialize)]
pub struct EditRepoOption {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub website: Option<String>,
    #[serde(default)]
    pub private: Option<bool>,
    #[serde(default)]
    pub archived: Option<bool>,
    #[serde(default)]
    pub has_issues: Option<bool>,
    #[serde(default)]
    pub has_pull_requests: Option<bool>,
    #[serde(default)]
    pub default_branch: Option<String>,
    #[serde(default)]
    pub internal_tracker: Option<InternalTrackerOption>,
}

impl From<EditRepoOption> for RepoEdit {
    fn from(o: EditRepoOption) -> Self {
        let tracker = o.internal_tracker.as_ref();
        RepoEdit {
            name: o.name,
            description: o.description,
            website: o.website,
            private: o.private,
            archived: o.archived,
            has_issues: o.has_issues,
            has_pull_requests: o.has_pull_requests,
            default_branch: o.default_branch,
            enable_issue_dependencies: tracker.and_then(|t| t.enable_issue_dependencies),
            enable_time_tracker: tracker.and_then(|t| t.enable_time_tracker),
            allow_only_contributors_to_track_time: tracker
                .and_then(|t| t.allow_only_contributors_to_track_time),
        }
    }
}

/// Gitea's `AddCollaboratorOption` (an empty body means `write`).
#[derive(Debug, Default, Deserialize)]
pub struct AddCollaboratorOption {
    #[serde(default)]
    pub permission: Option<String>,
}

impl TryFrom<AddCollaboratorOption> for AccessMode {
    type Error = Error;

    fn try_from(o: AddCollaboratorOption) -> Result<Self, Error> {
        Ok(AccessMode::parse(
            "permission",
            Some(o.permission.as_deref().unwrap_or("write")),
        )?)
    }
}
