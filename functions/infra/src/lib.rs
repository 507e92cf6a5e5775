//! Infra function: the resources applications refer to, Coolify-compatible
//! where Coolify has the endpoint: projects and environments, servers and
//! their destinations, deploy keys, provider apps (also under Coolify's
//! `github-apps`), and the deployment records `instant_deploy` queues.

mod handlers;

use shared::{
    auth::scope::Ability::{Read, Write},
    db::Action::{BatchWriteItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
    http::{Archived::Free, Guard::Ability, Limits, Sees},
};

/// Lists bounded in number by their parent (environments, destinations) or
/// by the request (deployments), with small items.
const LIST: Limits = Limits::list(&[]);

/// Lists of a team's projects, servers, keys and provider apps: at most
/// 1,000 each (`deploy::quota`); past Lambda's limit they drop
/// descriptions, then keep only uuid and name.
const SUMMARY: Limits = Limits {
    body: 64 * 1024,
    omit: &["description"],
    keep: &["uuid", "name"],
    reads: Limits::LISTING,
};

shared::routes! {
    dialect: Deploy;
    dynamodb {
        // BatchWriteItem: the children of a deleted server or project
        table: &[GetItem, Query, PutItem, UpdateItem, DeleteItem, BatchWriteItem],
        // deployment listings
        indexes: &[Query],
        rare: &[],
    };
    GET "/api/v1/projects" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: SUMMARY,
    } => handlers::list_projects;
    POST "/api/v1/projects" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_project;
    GET "/api/v1/projects/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::get_project;
    DELETE "/api/v1/projects/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete_project;
    GET "/api/v1/projects/{uuid}/environments" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::list_environments;
    POST "/api/v1/projects/{uuid}/environments" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_environment;
    GET "/api/v1/projects/{uuid}/{environment}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::get_environment;
    GET "/api/v1/servers" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: SUMMARY,
    } => handlers::list_servers;
    POST "/api/v1/servers" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_server;
    GET "/api/v1/servers/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::get_server;
    PATCH "/api/v1/servers/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::update_server;
    DELETE "/api/v1/servers/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete_server;
    GET "/api/v1/servers/{uuid}/destinations" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::list_destinations;
    POST "/api/v1/servers/{uuid}/destinations" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_destination;
    GET "/api/v1/security/keys" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: SUMMARY,
    } => handlers::list_keys;
    POST "/api/v1/security/keys" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_key;
    GET "/api/v1/security/keys/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::get_key;
    DELETE "/api/v1/security/keys/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete_key;
    GET "/api/v1/provider-apps" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: SUMMARY,
    } => handlers::list_provider_apps;
    POST "/api/v1/provider-apps" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_provider_app;
    GET "/api/v1/github-apps" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: SUMMARY,
    } => handlers::list_provider_apps;
    POST "/api/v1/github-apps" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::create_provider_app;
    GET "/api/v1/deployments" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::running_deployments;
    GET "/api/v1/deployments/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::get_deployment;
    GET "/api/v1/deployments/applications/{uuid}" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::app_deployments;
}
