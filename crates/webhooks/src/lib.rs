//! Level 4 (docs/architecture.md): webhooks as Gitea serves them
//! ([`hooks`]): the hooks of repositories, organisations, users and the
//! site, what a change of the table means to them, and the deliveries the
//! stream's handlers send. Their errors become the shared error in
//! `errors`.

mod errors;
pub mod hooks;

// The layers below, under the names the modules use.
pub(crate) use base::{Config, Error, Result, name, outbound, telemetry, text, time};
pub(crate) use people::{accounts, auth};
pub(crate) use runtime::stream;
pub(crate) use store::{db, outbox};
pub(crate) use tracker::{issues, repos};
