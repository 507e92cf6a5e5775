//! The reference deploy runner (docs/deploy-runner.md): it claims the
//! deployments of its server from the API, runs them with the Docker CLI,
//! streams their redacted output, and reports their end.
//!
//! `job` holds the wire shapes; `plan` turns a job into steps without any
//! I/O (`labels`, `envfile` help it); `run` carries a plan out through
//! `child`, `logs` and `workdir`, telling a `report::Reporter` what
//! happens; `api` is that reporter over HTTP; `cleanup` removes what
//! deleted applications left; `app_logs` answers asks for a container's
//! last lines; `backoff` paces an idle runner's claims.

pub mod api;
pub mod app_logs;
pub mod backoff;
pub mod child;
pub mod cleanup;
pub mod envfile;
pub mod job;
pub mod labels;
pub mod logs;
pub mod plan;
pub mod redact;
pub mod report;
pub mod run;
pub mod workdir;

/// The environment variable that may hold the runner's token. Children
/// never get it.
pub const TOKEN_ENV: &str = "RUNNER_TOKEN";
