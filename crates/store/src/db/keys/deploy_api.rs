//! Keys of the deploy API: a team's partition, its indexes, and the runs
//! of its deployments (servers' queues, run locks).

use super::*;

// --- Deploy API. Everything of a deploy team lives in one partition, so a
// team's objects are invisible to every other team by construction.

pub fn deploy_team_pk(team: &str) -> String {
    format!("DTEAM#{}", fold(team))
}

pub fn deploy(team: &str, sk: &str) -> Item {
    key(&deploy_team_pk(team), sk)
}

pub const PROJECT_PREFIX: &str = "PROJECT#";

/// A project, followed in sort order by its environments and their name
/// guards, so one query reads a project with everything under it.
pub fn project_sk(uuid: &str) -> String {
    format!("{PROJECT_PREFIX}{uuid}")
}

pub fn environment_sk(project: &str, uuid: &str) -> String {
    format!("{PROJECT_PREFIX}{project}#ENV#{uuid}")
}

/// Guard for environment names, unique within a project.
pub fn environment_name_sk(project: &str, name: &str) -> String {
    format!("{PROJECT_PREFIX}{project}#ENVNAME#{name}")
}

pub const SERVER_PREFIX: &str = "SERVER#";

/// A server, followed in sort order by its destinations.
pub fn server_sk(uuid: &str) -> String {
    format!("{SERVER_PREFIX}{uuid}")
}

pub fn destination_sk(server: &str, uuid: &str) -> String {
    format!("{SERVER_PREFIX}{server}#DEST#{uuid}")
}

/// Guard for network names, unique per server.
pub fn network_sk(server: &str, network: &str) -> String {
    format!("{SERVER_PREFIX}{server}#NET#{network}")
}

pub const SSH_KEY_PREFIX: &str = "KEY#";
pub const PROVIDER_APP_PREFIX: &str = "PROVIDERAPP#";
pub const APP_PREFIX: &str = "APP#";
pub const DEPLOYMENT_PREFIX: &str = "DEPLOYMENT#";

/// One claim item per (team, normalised domain): the set `apps` holds the
/// applications using it.
pub fn domain_claim(team: &str, domain: &str) -> Item {
    key(&format!("DDOMAIN#{}#{domain}", fold(team)), "DOMAIN")
}

/// Index key of one application's deployments (gsi1, newest last).
pub fn app_deployments_pk(team: &str, app: &str) -> String {
    format!("DAPPDEPLOY#{}#{app}", fold(team))
}

/// Index key of one application's stops (gsi1): Coolify lists no stop
/// among deployments, but a deleted application's open ones are found
/// here to be cancelled.
pub fn app_stops_pk(team: &str, app: &str) -> String {
    format!("DAPPSTOP#{}#{app}", fold(team))
}

/// Index key of a team's queued or running deployments (gsi2).
pub fn team_queue_pk(team: &str) -> String {
    format!("DQUEUE#{}", fold(team))
}

// --- Runs of deployments (`deploy::runs`). A server's queue is a
// partition of its own, keyed by the server's uuid (unique across teams),
// so a runner, which knows only its server, finds its work with one
// query; each entry names the team whose partition holds the deployment.

/// The partition of a server's queued deployments.
pub fn server_queue_pk(server: &str) -> String {
    format!("SRVQ#{server}")
}

/// A server's open asks for its applications' container logs, one per
/// application (`deploy::app_logs`), which its runner's claim answers.
pub fn server_log_asks_pk(server: &str) -> String {
    format!("SRVLOGS#{server}")
}

/// The last lines an application's runner sent of its container (team
/// partition).
pub fn app_logs_sk(app: &str) -> String {
    format!("APPLOGS#{app}")
}

/// One queued deployment in its server's queue, oldest first.
pub fn server_queue_entry(server: &str, created: &str, deployment: &str) -> Item {
    key(&server_queue_pk(server), &format!("{created}#{deployment}"))
}

/// The lock naming an application's one running deployment (team
/// partition).
pub fn run_lock_sk(app: &str) -> String {
    format!("RUNNING#{app}")
}

/// The count of an application's deployments (team partition), for
/// `{count, deployments}`.
pub fn deployment_count_sk(app: &str) -> String {
    format!("DEPLOYCOUNT#{app}")
}

/// The log lines of a deployment, one item each (`L#<seq>`).
pub fn deployment_log_pk(deployment: &str) -> String {
    format!("DEPLOG#{deployment}")
}

pub fn deployment_log_line(deployment: &str, seq: u32) -> Item {
    key(&deployment_log_pk(deployment), &format!("L#{seq:06}"))
}

/// A runner's credential, keyed by the SHA-256 of its secret.
pub fn runner_token(hash_hex: &str) -> Item {
    key(&format!("RUNNER#{hash_hex}"), "RUNNER")
}

/// A server's runners as listed (team partition), and their count.
pub fn server_runners_prefix(server: &str) -> String {
    format!("RUNNERS#{server}#")
}

pub fn server_runner_sk(server: &str, runner: &str) -> String {
    format!("{}{runner}", server_runners_prefix(server))
}

pub fn server_runner_count_sk(server: &str) -> String {
    format!("RUNNERS#{server}")
}

/// Index key (gsi1) of a server's pending clean-ups.
pub fn server_cleanups_pk(server: &str) -> String {
    format!("DSRVCLEAN#{server}")
}
