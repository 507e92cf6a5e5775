//! Milestones function: the five milestone operations of the tracker seed,
//! in Gitea's wire format. Reads need read access to the repository; writes
//! need write access to its issues or pull requests.

mod handlers;

use shared::{auth::scope::Category::Issue, http::Guard::Scope};

shared::routes! {
    dialect: Tracker;
    GET "/api/v1/repos/{owner}/{repo}/milestones" Scope(Issue) => handlers::list;
    POST "/api/v1/repos/{owner}/{repo}/milestones" Scope(Issue) => handlers::create;
    GET "/api/v1/repos/{owner}/{repo}/milestones/{id}" Scope(Issue) => handlers::get;
    PATCH "/api/v1/repos/{owner}/{repo}/milestones/{id}" Scope(Issue) => handlers::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/milestones/{id}" Scope(Issue) => handlers::delete;
}
