//! Hooks function: the webhooks of repositories (their admins),
//! organisations (their owners), the signed-in user and the site (site
//! admins), in Gitea's wire format. The rules are in `shared::hooks`.
//! A repository's hooks are administration: an archived repository's stay
//! manageable.
//!
//! Each hook's recent deliveries, with their attempts, can be read and sent
//! again (this project's addition to Gitea's API); a repository's hooks
//! also take Gitea's test delivery (`…/hooks/{id}/tests`). The rules are in
//! `shared::hooks::history`.

mod handlers;

use shared::{
    auth::scope::Category::{Admin, Organization, Repository, User},
    db::Action::{BatchGetItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
    http::{
        Archived::{Administration, Free},
        Guard::Scope,
        Limits,
        Sees::{self, CallerAll, CallerWide, OrgAll, OrgWide, Owner, Site},
    },
};

/// A hook's body: a URL, a few short settings and at most 32 events.
const HOOK: Limits = Limits::body(16 * 1024);
/// An owner holds at most 20 hooks: a list is one page of them.
const LIST: Limits = Limits::list(&[]);
/// At most 10 deliveries a page, each with its payload (up to 300 KiB),
/// which a page too large for Lambda's answer leaves out.
const DELIVERIES: Limits = Limits::list(&["payload"]);

shared::routes! {
    dialect: Tracker;
    dynamodb {
        // deliveries: their attempts (Query), payloads (BatchGetItem);
        // a test delivery is a transaction of puts
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem],
        // `public-only` tokens: whether the caller owns private
        // repositories; a hook's deliveries by time (gsi2)
        indexes: &[Query],
        rare: &[],
    };
    GET "/api/v1/repos/{owner}/{repo}/hooks" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: LIST,
    } => handlers::repo::list;
    POST "/api/v1/repos/{owner}/{repo}/hooks" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: true, limits: HOOK,
    } => handlers::repo::create;
    GET "/api/v1/repos/{owner}/{repo}/hooks/{id}" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::repo::get;
    PATCH "/api/v1/repos/{owner}/{repo}/hooks/{id}" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: HOOK,
    } => handlers::repo::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/hooks/{id}" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: false, limits: Limits::SMALL,
    } => handlers::repo::delete;
    GET "/api/v1/repos/{owner}/{repo}/hooks/{id}/deliveries" {
        guard: Scope(Repository), archived: Free, sees: Sees::REPO, idempotent: false, limits: DELIVERIES,
    } => handlers::repo::deliveries;
    POST "/api/v1/repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/redeliver" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => handlers::repo::redeliver;
    POST "/api/v1/repos/{owner}/{repo}/hooks/{id}/tests" {
        guard: Scope(Repository), archived: Administration, sees: Sees::REPO, idempotent: true, limits: Limits::SMALL,
    } => handlers::repo::tests;
    // An organisation's hooks hear of every repository of it: changing
    // them is kept off `public-only` tokens while it holds a private one.
    GET "/api/v1/orgs/{org}/hooks" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("org")], idempotent: false, limits: LIST,
    } => handlers::org::list;
    POST "/api/v1/orgs/{org}/hooks" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: true, limits: HOOK,
    } => handlers::org::create;
    GET "/api/v1/orgs/{org}/hooks/{id}" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("org")], idempotent: false, limits: Limits::SMALL,
    } => handlers::org::get;
    PATCH "/api/v1/orgs/{org}/hooks/{id}" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: false, limits: HOOK,
    } => handlers::org::edit;
    DELETE "/api/v1/orgs/{org}/hooks/{id}" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: false, limits: Limits::SMALL,
    } => handlers::org::delete;
    // Deliveries hold what every repository of the organisation sent:
    // `public-only` tokens read them only while it holds no private one.
    GET "/api/v1/orgs/{org}/hooks/{id}/deliveries" {
        guard: Scope(Organization), archived: Free, sees: &[OrgAll("org")], idempotent: false, limits: DELIVERIES,
    } => handlers::org::deliveries;
    POST "/api/v1/orgs/{org}/hooks/{id}/deliveries/{delivery}/redeliver" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: true, limits: Limits::SMALL,
    } => handlers::org::redeliver;
    GET "/api/v1/user/hooks" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: false, limits: LIST,
    } => handlers::user::list;
    POST "/api/v1/user/hooks" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: true, limits: HOOK,
    } => handlers::user::create;
    GET "/api/v1/user/hooks/{id}" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: false, limits: Limits::SMALL,
    } => handlers::user::get;
    PATCH "/api/v1/user/hooks/{id}" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: false, limits: HOOK,
    } => handlers::user::edit;
    DELETE "/api/v1/user/hooks/{id}" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: false, limits: Limits::SMALL,
    } => handlers::user::delete;
    GET "/api/v1/user/hooks/{id}/deliveries" {
        guard: Scope(User), archived: Free, sees: &[CallerAll], idempotent: false, limits: DELIVERIES,
    } => handlers::user::deliveries;
    POST "/api/v1/user/hooks/{id}/deliveries/{delivery}/redeliver" {
        guard: Scope(User), archived: Free, sees: &[CallerWide], idempotent: true, limits: Limits::SMALL,
    } => handlers::user::redeliver;
    GET "/api/v1/admin/hooks" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: false, limits: LIST,
    } => handlers::site::list;
    POST "/api/v1/admin/hooks" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: true, limits: HOOK,
    } => handlers::site::create;
    GET "/api/v1/admin/hooks/{id}" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: false, limits: Limits::SMALL,
    } => handlers::site::get;
    PATCH "/api/v1/admin/hooks/{id}" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: false, limits: HOOK,
    } => handlers::site::edit;
    DELETE "/api/v1/admin/hooks/{id}" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: false, limits: Limits::SMALL,
    } => handlers::site::delete;
    GET "/api/v1/admin/hooks/{id}/deliveries" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: false, limits: DELIVERIES,
    } => handlers::site::deliveries;
    POST "/api/v1/admin/hooks/{id}/deliveries/{delivery}/redeliver" {
        guard: Scope(Admin), archived: Free, sees: &[Site], idempotent: true, limits: Limits::SMALL,
    } => handlers::site::redeliver;
}
