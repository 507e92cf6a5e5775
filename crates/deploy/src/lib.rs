//! Level 4 (docs/architecture.md): the deploy API's domain ([`deploy`]):
//! applications and the resources they run on, domain claims,
//! deployments and their runs. Its errors become the shared error with
//! Coolify's words in `errors`.

pub mod deploy;
mod errors;

// The layers below, under the names the modules use.
pub(crate) use base::{Config, error, name, time};
pub(crate) use people::auth;
pub(crate) use store::{db, outbox, seal};
