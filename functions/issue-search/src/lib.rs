//! Issue-search function: read-only listings of a repository's issues and
//! pull requests (as issues, and as Gitea's `PullRequest`), and search
//! across repositories, with Gitea's filters,
//! paging and headers.

mod handlers;

use shared::{
    auth::scope::Category::{Issue, Repository},
    db::Action::{BatchGetItem, GetItem, PutItem, Query, UpdateItem},
    http::{
        Archived::Free,
        Guard::Scope,
        Limits,
        Sees::{self, Filtered},
    },
};

shared::routes! {
    dialect: Tracker;
    // Listings and search read; the writes are the cursor a deep walk
    // leaves for the next page (`issues::index::cursor`), and the count of
    // a failed password (`auth::failed_logins`), as on every route.
    dynamodb {
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem],
        // No index: listings read the table, strongly consistent.
        indexes: &[],
        rare: &[],
    };
    // Search shows only what the token may see (private things are left
    // out for `public-only` tokens).
    GET "/api/v1/repos/issues/search" {
        guard: Scope(Issue), archived: Free, sees: &[Filtered], idempotent: false, limits: Limits::ISSUES,
    } => handlers::search;
    GET "/api/v1/repos/{owner}/{repo}/issues" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::ISSUES,
    } => handlers::repo_issues;
    // Pull requests (issue 11).
    GET "/api/v1/repos/{owner}/{repo}/pulls" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::PULLS,
    } => handlers::repo_pulls;
}
