//! Background work: the table's stream and its one consumer.
//!
//! Every change to the table (an item put, updated or deleted, with its
//! image before and after) reaches the `stream` function through Lambda's
//! event source mapping, in batches of up to 1,000 records of one shard, in
//! the order they happened (under `make dev` and `make test` the local pump,
//! tools/stream-pump, does what the mapping does). Work that need not finish
//! inside a request hangs off it as [`Handler`]s: the function builds its
//! handlers afresh for each batch, and [`dispatch`] hands each change to
//! every handler that [`wants`](Handler::wants) it: in stream order per
//! handler and record, records side by side.
//!
//! Failure is per handler and record: a change a handler fails on is
//! parked for that handler in the table ([`park`]), and later changes of
//! the same record wait behind it for that handler, while every other
//! handler and record goes on; the scheduled run retries parked changes
//! with backoff until they succeed ([`retry`]). Only a change that can be
//! neither handled nor parked (the table failing the consumer) is reported
//! to Lambda (partial batch response), which delivers it and everything
//! after it again, without a bound: no change is ever skipped. Handlers
//! must be idempotent.
//!
//! - [`change`]: the Lambda event's records as [`Change`]s (images as this
//!   crate's [`Item`](crate::db::Item));
//! - [`dispatch`](mod@dispatch): the handlers over the changes;
//! - [`park`]: parked changes, per handler and record, in the table;
//! - [`retry`]: the scheduled retries of parked changes;
//! - [`memo`]: reads a handler keeps for a batch, made once per key;
//! - [`line`]: the one log line per batch, which is also its metrics, and
//!   the parked changes' line;
//! - the Lambda entry point of the consumer is `shared::consumer`.

pub mod change;
pub mod dispatch;
pub mod handler;
pub mod line;
pub mod memo;
pub mod park;
pub mod retry;

pub use change::{Change, ChangeKind, ConvertError, changes, pad_seq, unpad_seq};
pub use dispatch::{Dispatched, dispatch};
pub use handler::{Handled, Handler};
