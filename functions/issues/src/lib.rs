//! Issues function: issues and pull-request records in Gitea's wire
//! format. Every handler resolves the repository and the caller's
//! permission once (`shared::repos::access`), then delegates the write to
//! `shared::issues::ops` (comments: `shared::issues::comments::ops`,
//! reactions: `shared::issues::reactions::ops`),
//! which applies the rules and keeps numbers and counters exact.

mod comments;
mod common;
mod deps;
mod handlers;
mod lock;
mod pulls;
mod reactions;
mod times;

use shared::{
    auth::scope::Category::{Issue, Repository, User},
    db::Action::{
        BatchGetItem, ConditionCheckItem, DeleteItem, GetItem, PutItem, Query, UpdateItem,
    },
    http::{
        Archived::{Free, Locked},
        Guard::{Scope, SignedIn},
        Limits, Sees,
    },
};

shared::routes! {
    dialect: Tracker;
    dynamodb {
        table: &[
            GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem,
            // dependencies require both issues to exist
            ConditionCheckItem,
        ],
        // No index: listings read the table, strongly consistent (what a
        // deleted issue leaves goes through the stream consumer).
        indexes: &[],
        rare: &[],
    };
    POST "/api/v1/repos/{owner}/{repo}/issues" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::TEXT,
    } => handlers::create;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::get;
    PATCH "/api/v1/repos/{owner}/{repo}/issues/{index}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::TEXT,
    } => handlers::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/deadline" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => handlers::deadline;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => handlers::add_labels;
    PUT "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::replace_labels;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::clear_labels;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::ISSUES,
    } => deps::list_blockers;
    // The other issue of a dependency, and every issue a dependency list
    // shows, resolve through `repos::access`, which hides private
    // repositories from `public-only` tokens.
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => deps::add_blocker;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/dependencies" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => deps::remove_blocker;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::ISSUES,
    } => deps::list_blocked;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => deps::add_blocked;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/blocks" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => deps::remove_blocked;
    POST "/api/v1/repos/{owner}/{repo}/pulls" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::TEXT,
    } => pulls::create;
    GET "/api/v1/repos/{owner}/{repo}/pulls/{index}" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => pulls::get;
    GET "/api/v1/repos/{owner}/{repo}/pulls/{index}/merge" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => pulls::is_merged;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/merge" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => pulls::merge;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/requested_reviewers" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => pulls::request_reviewers;
    POST "/api/v1/repos/{owner}/{repo}/pulls/{index}/reviews" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::TEXT,
    } => pulls::review;
    // Pull-request edits and single issue labels (issue 11).
    PATCH "/api/v1/repos/{owner}/{repo}/pulls/{index}" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::TEXT,
    } => pulls::edit;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/labels" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::list_labels;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/labels/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::remove_label;

    // Comments and locks. Lists may leave out comment bodies to fit
    // Lambda's response (`X-Omitted-Fields`); reading one shows everything.
    GET "/api/v1/repos/{owner}/{repo}/issues/comments" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: COMMENTS,
    } => comments::list_repo;
    GET "/api/v1/repos/{owner}/{repo}/issues/comments/{id}" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => comments::get;
    PATCH "/api/v1/repos/{owner}/{repo}/issues/comments/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::TEXT,
    } => comments::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/comments/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => comments::delete;
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/comments" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: COMMENTS,
    } => comments::list;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/comments" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::TEXT,
    } => comments::create;
    PUT "/api/v1/repos/{owner}/{repo}/issues/{index}/lock" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => lock::lock;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/lock" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => lock::unlock;

    // Reactions on issues (pull requests included) and on comments
    // (Gitea's `issue_reaction.go`): paged like every list.
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/reactions" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: REACTIONS,
    } => reactions::list_issue;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/reactions" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => reactions::add_issue;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/reactions" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => reactions::remove_issue;
    GET "/api/v1/repos/{owner}/{repo}/issues/comments/{id}/reactions" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: REACTIONS,
    } => reactions::list_comment;
    POST "/api/v1/repos/{owner}/{repo}/issues/comments/{id}/reactions" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => reactions::add_comment;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/comments/{id}/reactions" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => reactions::remove_comment;

    // Tracked times and stopwatches (Gitea's `issue_tracked_time.go`,
    // `issue_stopwatch.go`), all behind `reqToken()`: the issue's under
    // the issue scope, the repository's under the repository scope (Gitea
    // groups `/times` with the repository), the caller's under the user
    // scope.
    GET "/api/v1/repos/{owner}/{repo}/issues/{index}/times" {
        guard: SignedIn(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: TIMES,
    } => times::list_issue;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/times" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => times::add;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/times" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => times::reset;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/times/{id}" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => times::delete;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/stopwatch/start" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => times::start;
    POST "/api/v1/repos/{owner}/{repo}/issues/{index}/stopwatch/stop" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => times::stop;
    DELETE "/api/v1/repos/{owner}/{repo}/issues/{index}/stopwatch/delete" {
        guard: SignedIn(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => times::cancel;
    GET "/api/v1/repos/{owner}/{repo}/times" {
        guard: SignedIn(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: TIMES,
    } => times::list_repo;
    // The caller's own: `public-only` tokens see their public ones only.
    GET "/api/v1/user/times" {
        guard: SignedIn(User), archived: Free, sees: &[Sees::Caller], idempotent: false, limits: TIMES,
    } => times::list_mine;
    GET "/api/v1/user/stopwatches" {
        guard: SignedIn(User), archived: Free, sees: &[Sees::Caller], idempotent: false, limits: Limits::list(&[]),
    } => times::stopwatches;
}

/// A tracked-time list: the issues' bodies may be left out.
const TIMES: Limits = Limits::list(&["issue.body"]);

/// A comment list: bodies may be left out.
const COMMENTS: Limits = Limits::list(&["body"]);

/// A reaction list: short elements, nothing to leave out.
const REACTIONS: Limits = Limits::list(&[]);
