//! Background work: the table's stream and its one consumer.
//!
//! Every change to the table (an item put, updated or deleted, with its
//! image before and after) reaches the `stream` function through Lambda's
//! event source mapping, in batches of up to 100 records of one shard, in
//! the order they happened (under `make dev` and `make test` the local pump,
//! tools/stream-pump, does what the mapping does). Work that need not finish
//! inside a request hangs off it as [`Handler`]s: the function builds its
//! handlers afresh for each batch, and [`dispatch`] hands each change, in
//! order, to every handler that [`wants`](Handler::wants) it.
//!
//! Failure is per record, as Lambda's partial batch response has it: the
//! first change a handler fails on is reported (its sequence number), and
//! Lambda delivers it and everything after it again, so handlers must be
//! idempotent; what came before it is done. Past the mapping's retry bound
//! the batch is skipped and its range is sent to the stack's alarm topic
//! (template.yaml), and `check-data` repairs what the handlers would have
//! written.
//!
//! - [`change`]: the Lambda event's records as [`Change`]s (images as this
//!   crate's [`Item`](crate::db::Item));
//! - [`dispatch`](mod@dispatch): the handlers over the changes;
//! - [`line`]: the one log line per batch, which is also its metrics;
//! - [`run`](mod@run): the Lambda entry point of the consumer.

pub mod change;
pub mod dispatch;
pub mod line;
pub mod run;

pub use change::{Change, ChangeKind, ConvertError, changes, pad_seq, unpad_seq};
pub use dispatch::{Handler, dispatch};
pub use run::run;
