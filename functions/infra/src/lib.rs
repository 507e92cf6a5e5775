//! Infra function: the resources applications refer to, Coolify-compatible
//! where Coolify has the endpoint: projects and environments, servers and
//! their destinations, deploy keys, provider apps (also under Coolify's
//! `github-apps`), deployments and their triggers (`/deploy`, start,
//! stop, restart, cancel), runner credentials, and the runner protocol
//! (`/runner/v1/...`, which only a runner's credential opens).

mod handlers;
mod runs;

use shared::{
    auth::scope::Ability::{Deploy, Read, ReadSensitive, Write},
    db::Action::{
        BatchGetItem, BatchWriteItem, ConditionCheckItem, DeleteItem, GetItem, PutItem, Query,
        UpdateItem,
    },
    http::{
        Archived::Free,
        Guard::{Abilities, Ability, Runner},
        Limits, Sees,
    },
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
        // BatchWriteItem: the children of a deleted server or project, and
        // log lines; BatchGetItem: a server's runners' credentials;
        // ConditionCheckItem: a trigger's application, a runner's server
        table: &[
            GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem, BatchWriteItem,
            ConditionCheckItem,
        ],
        // deployment listings and counts, a server's clean-ups
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
    PATCH "/api/v1/projects/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::update_project;
    DELETE "/api/v1/projects/{uuid}/environments/{environment_name_or_uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::delete_environment;
    PATCH "/api/v1/security/keys/{uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::update_key;
    // Coolify's teams: the token's deploy team (`/teams/{id}` and its
    // members are the accounts function's, shared with Gitea's routes).
    GET "/api/v1/teams" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::list_teams;
    GET "/api/v1/team" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::current_team;
    GET "/api/v1/team/members" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::current_team_members;
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
    GET "/api/v1/servers/{uuid}/resources" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::server_resources;
    GET "/api/v1/servers/{uuid}/domains" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::server_domains;
    // Validation reads what the server's runners reported and changes
    // nothing; GET as Coolify before 4.2, POST as after.
    GET "/api/v1/servers/{uuid}/validate" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::validate_server;
    POST "/api/v1/servers/{uuid}/validate" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::validate_server;
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
    GET "/api/v1/deploy" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::deploy;
    POST "/api/v1/deploy" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::deploy;
    GET "/api/v1/applications/{uuid}/start" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::start;
    POST "/api/v1/applications/{uuid}/start" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::start;
    GET "/api/v1/applications/{uuid}/stop" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::stop;
    POST "/api/v1/applications/{uuid}/stop" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::stop;
    GET "/api/v1/applications/{uuid}/restart" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::restart;
    POST "/api/v1/applications/{uuid}/restart" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::restart;
    // Not a pure read: without fresh lines it files an ask for the
    // server's runner (docs/deploy-runner.md, "Application logs").
    GET "/api/v1/applications/{uuid}/logs" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::app_logs;
    POST "/api/v1/deployments/{uuid}/cancel" {
        guard: Ability(Deploy), archived: Free, sees: Sees::DEPLOY, idempotent: true, limits: Limits::SMALL,
    } => handlers::cancel_deployment;
    GET "/api/v1/servers/{uuid}/runners" {
        guard: Ability(Read), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: LIST,
    } => handlers::list_runners;
    // Not idempotent: the secret is shown once, so a replay cannot repeat it.
    // A runner receives every variable of what it deploys, shown-once ones
    // too: minting one takes `read:sensitive` besides `write` (or `root`).
    POST "/api/v1/servers/{uuid}/runners" {
        guard: Abilities(&[Write, ReadSensitive]), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::create_runner;
    DELETE "/api/v1/servers/{uuid}/runners/{runner_uuid}" {
        guard: Ability(Write), archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => handlers::revoke_runner;
    // The runner protocol. Its calls are safe to repeat by design (a lost
    // claim's run goes silent and fails), so they take no Idempotency-Key.
    POST "/runner/v1/claim" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => runs::claim;
    POST "/runner/v1/deployments/{uuid}/heartbeat" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => runs::heartbeat;
    POST "/runner/v1/deployments/{uuid}/logs" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::FILES,
    } => runs::logs;
    POST "/runner/v1/deployments/{uuid}/end" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => runs::end;
    POST "/runner/v1/applications/{uuid}/logs" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::FILES,
    } => runs::app_logs;
    POST "/runner/v1/cleanups/claim" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => runs::claim_cleanup;
    POST "/runner/v1/cleanups/{id}/done" {
        guard: Runner, archived: Free, sees: Sees::DEPLOY, idempotent: false, limits: Limits::SMALL,
    } => runs::cleanup_done;
}
