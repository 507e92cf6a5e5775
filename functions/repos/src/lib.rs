//! Repositories function: repositories, collaborators, team grants and
//! labels, in Gitea's wire format. Permission checks go through
//! `shared::repos::access`, computed once per request.

mod collaborators;
mod git;
mod labels;
mod lists;
mod repos;

use shared::{
    auth::scope::Category::{Admin, Issue, Organization, Repository},
    db::Action::{
        BatchGetItem, BatchWriteItem, ConditionCheckItem, DeleteItem, GetItem, PutItem, Query,
        UpdateItem,
    },
    http::{
        Archived::{Administration, Free, Locked},
        Guard::{Scope, SignedIn},
        Limits,
        Sees::{self, BodyPrivate, Caller, Filtered, OrgWide, Owner, Repo, Team},
    },
};

shared::routes! {
    dialect: Tracker;
    dynamodb {
        table: &[
            GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem,
            // grants require their repository to exist
            ConditionCheckItem,
            // what a repository delete or visibility change leaves behind
            BatchWriteItem,
        ],
        // the visibility index and the issue listings it republishes
        indexes: &[Query],
        rare: &[],
    };
    POST "/api/v1/user/repos" {
        guard: Scope(Repository), archived: Free, sees: &[Caller, BodyPrivate], idempotent: true, limits: Limits::SMALL,
    } => repos::create_for_me;
    // Gitea's organisation group: `write:organization`.
    POST "/api/v1/orgs/{org}/repos" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("org"), BodyPrivate], idempotent: true, limits: Limits::SMALL,
    } => repos::create_for_org;
    POST "/api/v1/admin/users/{username}/repos" {
        guard: Scope(Admin), archived: Free, sees: &[Owner("username"), BodyPrivate], idempotent: true, limits: Limits::SMALL,
    } => repos::create_for_user;
    GET "/api/v1/repos/{owner}/{repo}" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::get;
    // Making a public repository private is refused like creating one.
    PATCH "/api/v1/repos/{owner}/{repo}" {
        guard: Scope(Repository), archived: Administration, sees: &[Repo("owner", "repo"), BodyPrivate], idempotent: false, limits: Limits::SMALL,
    } => repos::edit;
    DELETE "/api/v1/repos/{owner}/{repo}" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::delete;
    // Lists across owners (`tea repos`, `tea repos search`), assignees,
    // topics (Gitea: any reader lists, admins write) and branch heads
    // (no git here: CI reports a head with the POST, an extension).
    GET "/api/v1/user/repos" {
        guard: SignedIn(Repository), archived: Free, sees: &[Filtered], idempotent: false, limits: Limits::list(&[]),
    } => lists::mine;
    GET "/api/v1/repos/search" {
        guard: Scope(Repository), archived: Free, sees: &[Filtered], idempotent: false, limits: Limits::list(&[]),
    } => lists::search;
    GET "/api/v1/repos/{owner}/{repo}/assignees" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => lists::assignees;
    GET "/api/v1/repos/{owner}/{repo}/topics" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::topics;
    PUT "/api/v1/repos/{owner}/{repo}/topics" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::set_topics;
    PUT "/api/v1/repos/{owner}/{repo}/topics/{topic}" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::add_topic;
    DELETE "/api/v1/repos/{owner}/{repo}/topics/{topic}" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => repos::delete_topic;
    POST "/api/v1/repos/{owner}/{repo}/git/refs" {
        guard: Scope(Repository), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => git::set;
    GET "/api/v1/repos/{owner}/{repo}/git/refs" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => git::list;
    GET "/api/v1/repos/{owner}/{repo}/git/refs/{ref}" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => git::find;
    GET "/api/v1/repos/{owner}/{repo}/git/refs/{ref}/{name}" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => git::find;
    PUT "/api/v1/repos/{owner}/{repo}/collaborators/{collaborator}" {
        guard: Scope(Repository), archived: Administration, sees: &[Repo("owner", "repo"), Owner("collaborator")], idempotent: false, limits: Limits::SMALL,
    } => collaborators::put;
    DELETE "/api/v1/repos/{owner}/{repo}/collaborators/{collaborator}" {
        guard: Scope(Repository), archived: Administration, sees: &[Repo("owner", "repo"), Owner("collaborator")], idempotent: false, limits: Limits::SMALL,
    } => collaborators::delete;
    PUT "/api/v1/teams/{id}/repos/{org}/{repo}" {
        guard: SignedIn(Organization), archived: Administration, sees: &[Team("id"), Repo("org", "repo")], idempotent: false, limits: Limits::SMALL,
    } => collaborators::put_team;
    DELETE "/api/v1/teams/{id}/repos/{org}/{repo}" {
        guard: SignedIn(Organization), archived: Administration, sees: &[Team("id"), Repo("org", "repo")], idempotent: false, limits: Limits::SMALL,
    } => collaborators::delete_team;
    POST "/api/v1/repos/{owner}/{repo}/labels" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => labels::create;
    GET "/api/v1/repos/{owner}/{repo}/labels" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::list(&[]),
    } => labels::list;
    GET "/api/v1/repos/{owner}/{repo}/labels/{id}" {
        guard: Scope(Issue), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => labels::get;
    PATCH "/api/v1/repos/{owner}/{repo}/labels/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => labels::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/labels/{id}" {
        guard: Scope(Issue), archived: Locked, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => labels::delete;
    POST "/api/v1/orgs/{org}/labels" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: true, limits: Limits::SMALL,
    } => labels::create_for_org;
    GET "/api/v1/orgs/{org}/labels" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("org")], idempotent: false, limits: Limits::list(&[]),
    } => labels::list_for_org;
}
