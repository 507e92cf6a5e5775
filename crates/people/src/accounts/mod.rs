//! Accounts: users, organisations, teams, access tokens and blocks, stored
//! in the single table and rendered in Gitea's wire format.

pub mod blocks;
mod error;
pub mod lookup;
pub mod names;
pub mod options;
pub mod orgs;
pub mod password;
pub mod principal;
pub mod scope;
pub mod secret;
pub mod teams;
pub mod tokens;
pub mod users;
pub mod views;

pub use error::{Error, Result};
