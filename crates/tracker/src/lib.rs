//! Level 3 (docs/architecture.md): the tracker's domain. Repositories and
//! who may do what in them ([`repos`]), [`labels`], [`milestones`], and
//! [`issues`] with their comments, reactions and the search index that
//! the table's stream keeps. Their errors become the shared error with
//! Gitea's words in `errors`.

mod errors;
pub mod issues;
pub mod labels;
pub mod milestones;
pub mod repos;

// The layers below, under the names the modules use.
pub(crate) use base::{Config, Error, Result, error, name, page, text, time, words};
pub(crate) use people::{accounts, auth};
pub(crate) use runtime::stream;
pub(crate) use store::{db, outbox};
