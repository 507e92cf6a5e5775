//! Level 0 (docs/architecture.md): what needs no table: times and zones,
//! names, text, the words of search, paging, the shared error, the
//! process's settings, telemetry (log lines, metrics, a request's cost),
//! and the gate every outbound request passes (`outbound`).

pub mod config;
pub mod error;
pub mod name;
pub mod outbound;
pub mod page;
pub mod telemetry;
pub mod text;
pub mod time;
pub mod words;

pub use config::Config;
pub use error::{Error, Result};
