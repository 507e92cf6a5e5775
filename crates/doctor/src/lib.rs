//! Level 5 (docs/architecture.md), beside the HTTP layer: the operator's
//! consistency check and repairs behind `make check-data` (tools/ops).

mod doctor;

pub use self::doctor::*;

// The layers below, under the names the modules use.
pub(crate) use base::name;
pub(crate) use deploy::deploy;
pub(crate) use people::accounts;
pub(crate) use store::{db, seal};
pub(crate) use tracker::issues;
