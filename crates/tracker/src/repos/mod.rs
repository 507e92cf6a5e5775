//! Repositories: their records and rules ([`model`]), where they are
//! stored ([`store`]), who may do what in them ([`access`], [`scope`]),
//! their grants ([`collaborators`]) and Gitea's JSON ([`views`]).

pub mod access;
pub mod collaborators;
mod error;
pub mod lists;
pub mod model;
pub mod options;
pub mod refs;
pub mod scope;
mod service;
pub mod store;
pub mod topics;
pub mod views;

pub use error::{Error, Result};
pub use model::{NewRepo, RepoEdit, RepoRecord, RepoStats, parse_name};
pub use service::*;
pub use store::*;
