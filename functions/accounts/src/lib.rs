//! Accounts function: users, access tokens, organisations, teams and
//! blocks, in Gitea's wire format. Handlers parse, check who may act, and
//! delegate to `shared::accounts`.

mod blocks;
mod guard;
mod orgs;
mod teams;
mod tokens;
mod users;

use shared::{
    auth::scope::Category::{Admin, Organization, User},
    http::Guard::Scope,
};

shared::routes! {
    dialect: Tracker;
    POST "/api/v1/admin/users" Scope(Admin) => users::create;
    GET "/api/v1/user" Scope(User) => users::me;
    GET "/api/v1/users/{username}" Scope(User) => users::get;
    POST "/api/v1/users/{username}/tokens" Scope(User) => tokens::create;
    GET "/api/v1/users/{username}/tokens" Scope(User) => tokens::list;
    DELETE "/api/v1/users/{username}/tokens/{id}" Scope(User) => tokens::delete;
    POST "/api/v1/orgs" Scope(Organization) => orgs::create;
    GET "/api/v1/orgs/{org}" Scope(Organization) => orgs::get;
    GET "/api/v1/orgs/{org}/teams" Scope(Organization) => teams::list;
    POST "/api/v1/orgs/{org}/teams" Scope(Organization) => teams::create;
    GET "/api/v1/teams/{id}" Scope(Organization) => teams::get;
    PUT "/api/v1/teams/{id}/members/{username}" Scope(Organization) => teams::add_member;
    DELETE "/api/v1/teams/{id}/members/{username}" Scope(Organization) => teams::remove_member;
    PUT "/api/v1/user/blocks/{username}" Scope(User) => blocks::block_for_user;
    DELETE "/api/v1/user/blocks/{username}" Scope(User) => blocks::unblock_for_user;
    PUT "/api/v1/orgs/{org}/blocks/{username}" Scope(Organization) => blocks::block_for_org;
    DELETE "/api/v1/orgs/{org}/blocks/{username}" Scope(Organization) => blocks::unblock_for_org;
}
