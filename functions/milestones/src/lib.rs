//! Milestones function: the five milestone operations of the tracker seed,
//! in Gitea's wire format. Reads need read access to the repository; writes
//! need write access to its issues or pull requests.

mod handlers;

use shared::{
    auth::scope::Category::Issue,
    db::Action::{BatchGetItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
    http::{
        Archived::{Free, Locked},
        Guard::Scope,
        Limits, Sees,
    },
};

/// A milestone list may leave out descriptions.
const LIST: Limits = Limits::list(&["description"]);

shared::routes! {
    dialect: Tracker;
    dynamodb {
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem],
        indexes: &[],
        rare: &[],
    };
    GET "/api/v1/repos/{owner}/{repo}/milestones" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: LIST,
    } => handlers::list;
    POST "/api/v1/repos/{owner}/{repo}/milestones" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::TEXT,
    } => handlers::create;
    GET "/api/v1/repos/{owner}/{repo}/milestones/{id}" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::get;
    PATCH "/api/v1/repos/{owner}/{repo}/milestones/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::TEXT,
    } => handlers::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/milestones/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete;
}
