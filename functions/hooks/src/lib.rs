//! Hooks function: the webhooks of repositories (their admins),
//! organisations (their owners), the signed-in user and the site (site
//! admins), in Gitea's wire format. The rules are in `shared::hooks`.
//! A repository's hooks are administration: an archived repository's stay
//! manageable.

mod handlers;

use shared::{
    auth::scope::Category::{Admin, Organization, Repository, User},
    db::Action::{DeleteItem, GetItem, PutItem, Query, UpdateItem},
    http::{
        Archived::{Administration, Free},
        Guard::Scope,
        Limits,
        Sees::{self, CallerWide, OrgWide, Owner, Site},
    },
};

/// A hook's body: a URL, a few short settings and at most 32 events.
const HOOK: Limits = Limits::body(16 * 1024);
/// An owner holds at most 20 hooks: a list is one page of them.
const LIST: Limits = Limits::list(&[]);

shared::routes! {
    dialect: Tracker;
    dynamodb {
        table: &[GetItem, Query, PutItem, UpdateItem, DeleteItem],
        // `public-only` tokens: whether the caller owns private repositories
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
}
