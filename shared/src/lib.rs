//! Everything the Lambda functions share: configuration, the DynamoDB
//! access layer (with per-request accounting), authentication, HTTP request
//! parsing and response building, both error dialects, and the domain
//! services. Functions only route requests to handlers that call into here.

pub mod accounts;
pub mod app;
pub mod auth;
pub mod config;
pub mod db;
pub mod deploy;
pub mod doctor;
pub mod error;
pub mod hooks;
pub mod http;
pub mod issues;
pub mod labels;
pub mod milestones;
pub mod outbound;
pub mod repos;
pub mod seal;
pub mod stream;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;

// Level 0, re-exported under the names the code above still uses.
pub use base::{name, page, text, time, words};
pub use config::Config;
pub use error::{Error, Result};
