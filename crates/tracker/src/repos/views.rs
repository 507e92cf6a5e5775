//! Gitea's `Repository` JSON. Git-hosting fields this service does not
//! have (mirrors, forks, merge styles, sizes) carry Gitea's neutral values
//! so clients parse them.

use serde::Serialize;

use super::{
    RepoRecord, RepoStats,
    access::{Permission, RepoContext},
};
use crate::{
    Config,
    accounts::{principal::Caller, teams::AccessMode, users::UserRecord, views::User},
    db::Db,
    time,
};

#[derive(Serialize)]
pub struct Permissions {
    pub admin: bool,
    pub push: bool,
    pub pull: bool,
}

#[derive(Serialize)]
pub struct InternalTracker {
    pub enable_time_tracker: bool,
    pub allow_only_contributors_to_track_time: bool,
    pub enable_issue_dependencies: bool,
}

#[derive(Serialize)]
pub struct Repository {
    pub id: i64,
    pub owner: User,
    pub name: String,
    pub full_name: String,
    pub description: String,
    pub empty: bool,
    pub private: bool,
    pub fork: bool,
    pub template: bool,
    pub parent: Option<()>,
    pub mirror: bool,
    pub size: i64,
    pub language: String,
    pub languages_url: String,
    pub html_url: String,
    pub url: String,
    pub link: String,
    pub ssh_url: String,
    pub clone_url: String,
    pub original_url: String,
    pub website: String,
    pub stars_count: i64,
    pub forks_count: i64,
    pub watchers_count: i64,
    pub open_issues_count: i64,
    pub open_pr_counter: i64,
    pub release_counter: i64,
    pub default_branch: String,
    pub archived: bool,
    pub created_at: String,
    pub updated_at: String,
    pub archived_at: String,
    pub permissions: Permissions,
    pub has_code: bool,
    pub has_issues: bool,
    pub internal_tracker: InternalTracker,
    pub has_wiki: bool,
    pub has_pull_requests: bool,
    pub has_projects: bool,
    pub has_releases: bool,
    pub has_packages: bool,
    pub has_actions: bool,
    pub ignore_whitespace_conflicts: bool,
    pub allow_merge_commits: bool,
    pub allow_rebase: bool,
    pub allow_rebase_explicit: bool,
    pub allow_squash_merge: bool,
    pub allow_fast_forward_only_merge: bool,
    pub allow_rebase_update: bool,
    pub default_delete_branch_after_merge: bool,
    pub default_merge_style: String,
    pub default_allow_maintainer_edit: bool,
    pub avatar_url: String,
    pub internal: bool,
    pub mirror_interval: String,
    pub object_format_name: String,
    pub mirror_updated: String,
    pub topics: Vec<String>,
    pub licenses: Vec<String>,
}

impl Repository {
    /// The repository as its GET renders it for the caller, as JSON (what
    /// a pull request's `base.repo` and `head.repo` carry): one read of
    /// its counters.
    pub async fn rendered(
        db: &Db,
        access: &RepoContext,
        caller: &Caller,
        config: &Config,
    ) -> crate::Result<serde_json::Value> {
        let stats = super::stats(db, access.repo.id).await?;
        let view = Self::new(
            &access.repo,
            &access.owner,
            &stats,
            &access.perm,
            caller,
            config,
        );
        serde_json::to_value(view).map_err(|e| crate::Error::Internal(e.to_string()))
    }

    pub fn new(
        repo: &RepoRecord,
        owner: &UserRecord,
        stats: &RepoStats,
        perm: &Permission,
        caller: &Caller,
        config: &Config,
    ) -> Self {
        let tz = config.display_tz;
        let full_name = repo.full_name();
        let html_url = config.url(&full_name);
        let host = config
            .root_url
            .host_str()
            .unwrap_or("localhost")
            .to_string();
        let zero = "0001-01-01T00:00:00Z".to_string();
        Self {
            id: repo.id,
            owner: User::new(owner, caller, config),
            name: repo.name.clone(),
            full_name: full_name.clone(),
            description: repo.description.clone(),
            empty: true,
            private: repo.private,
            fork: false,
            template: false,
            parent: None,
            mirror: false,
            size: 0,
            language: String::new(),
            languages_url: config.url(&format!("api/v1/repos/{full_name}/languages")),
            url: config.url(&format!("api/v1/repos/{full_name}")),
            link: String::new(),
            ssh_url: format!("git@{host}:{full_name}.git"),
            clone_url: format!("{html_url}.git"),
            html_url,
            original_url: String::new(),
            website: repo.website.clone(),
            stars_count: 0,
            forks_count: 0,
            watchers_count: 0,
            open_issues_count: stats.num_issues - stats.num_closed_issues,
            open_pr_counter: stats.num_pulls - stats.num_closed_pulls,
            release_counter: 0,
            default_branch: repo.default_branch.clone(),
            archived: repo.archived,
            created_at: time::render(repo.created, tz),
            updated_at: time::render(repo.updated, tz),
            archived_at: if repo.archived_at > 0 {
                time::render(repo.archived_at, tz)
            } else {
                time::render(0, tz)
            },
            permissions: Permissions {
                admin: perm.mode >= AccessMode::Admin,
                push: perm.mode >= AccessMode::Write,
                pull: perm.mode >= AccessMode::Read,
            },
            has_code: false,
            has_issues: repo.has_issues,
            internal_tracker: InternalTracker {
                enable_time_tracker: repo.enable_time_tracker,
                allow_only_contributors_to_track_time: repo.allow_only_contributors_to_track_time,
                enable_issue_dependencies: repo.enable_issue_dependencies,
            },
            has_wiki: false,
            has_pull_requests: repo.has_pull_requests,
            has_projects: false,
            has_releases: false,
            has_packages: false,
            has_actions: false,
            ignore_whitespace_conflicts: false,
            allow_merge_commits: true,
            allow_rebase: true,
            allow_rebase_explicit: true,
            allow_squash_merge: true,
            allow_fast_forward_only_merge: false,
            allow_rebase_update: true,
            default_delete_branch_after_merge: false,
            default_merge_style: "merge".into(),
            default_allow_maintainer_edit: false,
            avatar_url: String::new(),
            internal: false,
            mirror_interval: String::new(),
            object_format_name: "sha1".into(),
            mirror_updated: zero,
            topics: repo.topics.iter().cloned().collect(),
            licenses: Vec::new(),
        }
    }
}
