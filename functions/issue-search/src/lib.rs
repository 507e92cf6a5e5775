//! Issue-search function: read-only listings of a repository's issues and
//! pull requests, and search across repositories, with Gitea's filters,
//! paging and headers.

mod list;
mod search;

use shared::{auth::scope::Category::Issue, http::Guard::Scope};

shared::routes! {
    dialect: Tracker;
    GET "/api/v1/repos/issues/search" Scope(Issue) => search::search;
    GET "/api/v1/repos/{owner}/{repo}/issues" Scope(Issue) => list::repo_issues;
}
