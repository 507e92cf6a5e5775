//! Issue-search function: read-only listings of issues and pull requests
//! with Gitea's filters, paging and headers.

mod list;

use shared::{auth::scope::Category::Issue, http::Guard::Scope};

shared::routes! {
    dialect: Tracker;
    GET "/api/v1/repos/{owner}/{repo}/issues" Scope(Issue) => list::repo_issues;
}
