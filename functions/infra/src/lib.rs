//! Infra function: the resources applications refer to, Coolify-compatible
//! where Coolify has the endpoint: projects and environments, servers and
//! their destinations, deploy keys, provider apps (also under Coolify's
//! `github-apps`), and the deployment records `instant_deploy` queues.

mod handlers;

use shared::{
    auth::scope::Ability::{Read, Write},
    http::Guard::Ability,
};

shared::routes! {
    dialect: Deploy;
    GET "/api/v1/projects" Ability(Read) => handlers::list_projects;
    POST "/api/v1/projects" Ability(Write) => handlers::create_project;
    GET "/api/v1/projects/{uuid}" Ability(Read) => handlers::get_project;
    DELETE "/api/v1/projects/{uuid}" Ability(Write) => handlers::delete_project;
    GET "/api/v1/projects/{uuid}/environments" Ability(Read) => handlers::list_environments;
    POST "/api/v1/projects/{uuid}/environments" Ability(Write) => handlers::create_environment;
    GET "/api/v1/projects/{uuid}/{environment}" Ability(Read) => handlers::get_environment;
    GET "/api/v1/servers" Ability(Read) => handlers::list_servers;
    POST "/api/v1/servers" Ability(Write) => handlers::create_server;
    GET "/api/v1/servers/{uuid}" Ability(Read) => handlers::get_server;
    PATCH "/api/v1/servers/{uuid}" Ability(Write) => handlers::update_server;
    DELETE "/api/v1/servers/{uuid}" Ability(Write) => handlers::delete_server;
    GET "/api/v1/servers/{uuid}/destinations" Ability(Read) => handlers::list_destinations;
    POST "/api/v1/servers/{uuid}/destinations" Ability(Write) => handlers::create_destination;
    GET "/api/v1/security/keys" Ability(Read) => handlers::list_keys;
    POST "/api/v1/security/keys" Ability(Write) => handlers::create_key;
    GET "/api/v1/security/keys/{uuid}" Ability(Read) => handlers::get_key;
    DELETE "/api/v1/security/keys/{uuid}" Ability(Write) => handlers::delete_key;
    GET "/api/v1/provider-apps" Ability(Read) => handlers::list_provider_apps;
    POST "/api/v1/provider-apps" Ability(Write) => handlers::create_provider_app;
    GET "/api/v1/github-apps" Ability(Read) => handlers::list_provider_apps;
    POST "/api/v1/github-apps" Ability(Write) => handlers::create_provider_app;
    GET "/api/v1/deployments" Ability(Read) => handlers::running_deployments;
    GET "/api/v1/deployments/{uuid}" Ability(Read) => handlers::get_deployment;
    GET "/api/v1/deployments/applications/{uuid}" Ability(Read) => handlers::app_deployments;
}
