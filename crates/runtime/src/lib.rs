//! Level 2 (docs/architecture.md): the table's stream. A batch's changes
//! go to the handlers that want them, partition by partition; a change a
//! handler fails on is parked and retried, and later changes of its record
//! wait behind it ([`stream`]). The Lambda entry point that runs it is the
//! top layer's (`shared::consumer`).

pub mod stream;

// The layers below, under the names the stream's modules use.
pub(crate) use base::{Config, Error, telemetry, time};
pub(crate) use store::db;
