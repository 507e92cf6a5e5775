//! Accounts function: users, access tokens, organisations, teams and
//! blocks, in Gitea's wire format, and the meta endpoints (version,
//! settings, health). Handlers parse, check who may act, and
//! delegate to `shared::accounts`.

mod blocks;
mod meta;
mod orgs;
mod teams;
mod tokens;
mod users;

use shared::{
    auth::scope::{
        Ability::Read,
        Category::{Admin, Organization, User},
    },
    db::Action::{BatchGetItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
    http::{
        Archived::Free,
        Guard::{Open, Scope, ScopeOrAbility, SignedIn},
        Limits,
        Sees::{BodyVisibility, Caller, Nothing, OrgWide, Owner, Team},
    },
};

shared::routes! {
    dialect: Tracker;
    dynamodb {
        table: &[GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem],
        // public-only tokens' check of org-wide changes (visibility index)
        indexes: &[Query],
        rare: &[],
    };
    GET "/api/v1/version" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => meta::version;
    GET "/api/v1/settings/api" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => meta::api_settings;
    GET "/api/v1/health" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => meta::health;
    GET "/api/healthz" {
        guard: Open, archived: Free, sees: &[Nothing], idempotent: false, limits: Limits::SMALL,
    } => meta::healthz;
    POST "/api/v1/admin/users" {
        guard: Scope(Admin), archived: Free, sees: &[BodyVisibility], idempotent: true, limits: Limits::SMALL,
    } => users::create;
    GET "/api/v1/user" {
        guard: Scope(User), archived: Free, sees: &[Caller], idempotent: false, limits: Limits::SMALL,
    } => users::me;
    GET "/api/v1/users/{username}" {
        guard: Scope(User), archived: Free, sees: &[Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => users::get;
    // Not idempotent: the secret is shown once and stored only as a hash.
    POST "/api/v1/users/{username}/tokens" {
        guard: Scope(User), archived: Free, sees: &[Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => tokens::create;
    GET "/api/v1/users/{username}/tokens" {
        guard: Scope(User), archived: Free, sees: &[Owner("username")], idempotent: false, limits: Limits::list(&[]),
    } => tokens::list;
    DELETE "/api/v1/users/{username}/tokens/{id}" {
        guard: Scope(User), archived: Free, sees: &[Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => tokens::delete;
    POST "/api/v1/orgs" {
        guard: Scope(Organization), archived: Free, sees: &[Caller, BodyVisibility], idempotent: true, limits: Limits::SMALL,
    } => orgs::create;
    GET "/api/v1/orgs/{org}" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("org")], idempotent: false, limits: Limits::SMALL,
    } => orgs::get;
    // A user's organisations (`tea orgs`): Gitea's organisation group.
    GET "/api/v1/users/{username}/orgs" {
        guard: Scope(Organization), archived: Free, sees: &[Owner("username")], idempotent: false, limits: Limits::list(&[]),
    } => orgs::of_user;
    GET "/api/v1/user/orgs" {
        guard: SignedIn(Organization), archived: Free, sees: &[Caller], idempotent: false, limits: Limits::list(&[]),
    } => orgs::mine;
    GET "/api/v1/orgs/{org}/teams" {
        guard: SignedIn(Organization), archived: Free, sees: &[Owner("org")], idempotent: false, limits: Limits::list(&[]),
    } => teams::list;
    POST "/api/v1/orgs/{org}/teams" {
        guard: SignedIn(Organization), archived: Free, sees: &[OrgWide("org")], idempotent: true, limits: Limits::SMALL,
    } => teams::create;
    // Gitea's and Coolify's: a Coolify client's token is answered as Coolify.
    GET "/api/v1/teams/{id}" {
        guard: ScopeOrAbility(Organization, Read), archived: Free, sees: &[Team("id")], idempotent: false, limits: Limits::SMALL,
    } => teams::get;
    GET "/api/v1/teams/{id}/members" {
        guard: ScopeOrAbility(Organization, Read), archived: Free, sees: &[Team("id")], idempotent: false, limits: Limits::list(&[]),
    } => teams::members;
    PUT "/api/v1/teams/{id}/members/{username}" {
        guard: SignedIn(Organization), archived: Free, sees: &[Team("id"), Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => teams::add_member;
    DELETE "/api/v1/teams/{id}/members/{username}" {
        guard: SignedIn(Organization), archived: Free, sees: &[Team("id"), Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => teams::remove_member;
    PUT "/api/v1/user/blocks/{username}" {
        guard: Scope(User), archived: Free, sees: &[Caller, Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => blocks::block_for_user;
    DELETE "/api/v1/user/blocks/{username}" {
        guard: Scope(User), archived: Free, sees: &[Caller, Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => blocks::unblock_for_user;
    PUT "/api/v1/orgs/{org}/blocks/{username}" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org"), Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => blocks::block_for_org;
    DELETE "/api/v1/orgs/{org}/blocks/{username}" {
        guard: Scope(Organization), archived: Free, sees: &[OrgWide("org"), Owner("username")], idempotent: false, limits: Limits::SMALL,
    } => blocks::unblock_for_org;
}
