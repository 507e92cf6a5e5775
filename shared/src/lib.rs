//! Everything the Lambda functions share: configuration, the DynamoDB
//! access layer (with per-request accounting), authentication, HTTP request
//! parsing and response building, both error dialects, and the domain
//! services. Functions only route requests to handlers that call into here.

pub mod app;
pub mod consumer;
pub mod http;
#[cfg(feature = "testing")]
pub mod testing;

// Level 0, re-exported under the names the code above still uses.
pub use base::{Config, Error, Result};
pub use base::{config, error, name, outbound, page, telemetry, text, time, words};
// Level 1.
pub use store::{db, grant, outbox, seal};
// Level 2.
pub use people::{accounts, auth};
pub use runtime::stream;
// Level 3.
pub use tracker::{issues, labels, milestones, repos};
// Level 4.
pub use deploy::deploy;
pub use webhooks::hooks;
