//! Black-box tests of the whole API over HTTP, one module per subject, in
//! one test binary so the crate links once. `make test` serves the real
//! function binaries and sets `API_URL` and the admin's credentials; the
//! shared setup (users, repositories, deploy teams) is in `tests/src`
//! (`api_tests`). Every test makes its own users and names, so they run
//! in parallel.

mod archived;
mod auth;
mod bad_input;
mod comments;
mod concurrency;
mod deletes;
mod deploy_access;
mod deploy_apps;
mod deploy_create;
mod deploy_deployments;
mod deploy_destinations;
mod deploy_domains;
mod deploy_envs;
mod deploy_formats;
mod deploy_keys;
mod deploy_loop;
mod deploy_projects;
mod deploy_resources;
mod deploy_runner;
mod deploy_servers;
mod deploy_sources;
mod deploy_teams;
mod deploy_triggers;
mod failed_logins;
mod hook_history;
mod hooks;
mod hostile_input;
mod idempotency;
mod integrity;
mod issue_create;
mod issue_edit;
mod labels;
mod largest_page;
mod limits;
mod listing;
mod meta;
mod milestones;
mod not_found;
mod permissions;
mod public_only;
mod pulls;
mod reactions;
mod repos;
mod search;
mod search_audit;
mod search_filters;
mod search_index;
mod storage;
mod stream;
mod tea;
mod team_ids;
mod times;
mod webhooks;
