//! The deploy API's domain: applications and the resources they run on
//! (projects, environments, servers, destinations, deploy keys, provider
//! apps), domain claims and deployments. Everything belongs to a deploy
//! team (the token's team, [`Team`]) and lives in that team's partition.
//!
//! Where things are:
//! - `model/`: records and pure rules, unit-tested without a database.
//!   `model/fields.rs` is the one table of application fields (type,
//!   bounds, check, default, which endpoints accept and require each;
//!   the row type is `model/field.rs`); `model/input.rs` reads application
//!   bodies against it; `model/app.rs` holds the application record, its
//!   settings and its create and PATCH rules. `model/{project,server,key,
//!   provider_app}.rs` hold the other records and the rules of their
//!   bodies (read with `model/body.rs`).
//! - `store/`: keys, transactions and expressions shared by the resources
//!   (`store/claims.rs` for domain claims, `store/quota.rs` for counts).
//! - one file per resource (`apps`, `projects`, `servers`, `ssh_keys`,
//!   `provider_apps`, `deployments`): its reads and writes, re-exporting
//!   its records; `create` and `patch` are the application create and
//!   update flows.
//! - `lifecycle.rs`: a deployment's states and legal moves (pure);
//!   `triggers.rs` reads `/deploy`, start, stop and restart; `runs/`
//!   moves deployments as runners claim, heartbeat, log and end them;
//!   `runners.rs` holds runner credentials; `cleanups.rs` the clean-ups
//!   a delete leaves for the server; `app_logs.rs` a running container's
//!   lines, fetched by the server's runner on request.
//! - `views.rs`: the Coolify JSON of each record.
//! - `error.rs`: what goes wrong, converted by the crate's `errors.rs`.

pub mod app_logs;
pub mod apps;
pub mod cleanups;
pub mod create;
pub mod deployments;
pub mod envs;
mod error;
pub mod lifecycle;
pub mod model;
pub mod patch;
pub mod projects;
pub mod provider_apps;
pub mod runners;
pub mod runs;
pub mod servers;
pub mod ssh_keys;
pub mod store;
mod team;
pub mod triggers;
pub mod views;

pub use error::{Error, Object, Result};
/// `examples/compose_cost.rs` reads it here.
pub use model::compose;
pub use team::{Team, coolify as teams};
