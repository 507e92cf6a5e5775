//! Issues function: issues and pull-request records in Gitea's wire
//! format. Every handler resolves the repository and the caller's
//! permission once (`shared::repos::access`), then delegates the write to
//! `shared::issues`, which keeps numbers and counters exact.

mod common;
mod deps;
mod handlers;
mod labels;
mod pulls;

use shared::{auth::scope::Category::Issue, http::Guard::Scope};

shared::routes! {
    dialect: Tracker;
    POST "/api/v1/repos/{owner}/{repo}/issues" Scope(Issue) => handlers::create;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}" Scope(Issue) => handlers::get;
    PATCH "/api/v1/repos/{owner}/{repo}/issues/{index}" Scope(Issue) => handlers::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}" Scope(Issue) => handlers::delete;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/deadline" Scope(Issue) => handlers::deadline;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" Scope(Issue) => labels::add;
    PUT "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" Scope(Issue) => labels::replace;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" Scope(Issue) => labels::clear;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" Scope(Issue) => deps::list_blockers;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" Scope(Issue) => deps::add_blocker;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" Scope(Issue) => deps::remove_blocker;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" Scope(Issue) => deps::list_blocked;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" Scope(Issue) => deps::add_blocked;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" Scope(Issue) => deps::remove_blocked;
    POST "/api/v1/repos/{owner}/{repo}/pulls" Scope(Issue) => pulls::create;
    GET "/api/v1/repos/{owner}/{repo}/pulls/{index}" Scope(Issue) => pulls::get;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/merge" Scope(Issue) => pulls::merge;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/requested_reviewers" Scope(Issue) => pulls::request_reviewers;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/reviews" Scope(Issue) => pulls::review;
}
