//! Level 2 (docs/architecture.md): who is who. Users and organisations,
//! teams, tokens and blocks ([`accounts`]), and who a request's caller is
//! and may do ([`auth`]). Their errors become the shared error with
//! Gitea's words in [`errors`].

pub mod accounts;
pub mod auth;
mod errors;

// The layers below, under the names the modules use.
pub(crate) use base::{Config, error, name, time};
pub(crate) use store::db;
