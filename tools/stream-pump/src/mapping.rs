//! What the event source mapping in template.yaml (`StreamFunction`'s
//! `TableStream` event) is set to, which the pump does the same way;
//! tests/tests/stack.rs fails when the two differ.

use std::time::Duration;

/// Records per invocation, at most (`BatchSize`).
pub const BATCH_SIZE: usize = 1000;

/// An invocation's payload stays under Lambda's 6 MB.
pub const MAX_PAYLOAD_BYTES: usize = 6_000_000;

/// Deliveries of a failed batch after the first (`MaximumRetryAttempts`),
/// `None` for -1: without end. No change is ever skipped: a handler's
/// failure is parked by the function itself (crates/runtime/src/stream/park.rs),
/// so a batch fails only while the table fails the consumer, and is
/// delivered again until it answers (within the stream's 24 hours).
pub const MAXIMUM_RETRY_ATTEMPTS: Option<u32> = None;

/// Records older than this are skipped (`MaximumRecordAgeInSeconds`),
/// `None` for -1: none is, until the stream itself drops it (24 hours).
pub const MAXIMUM_RECORD_AGE: Option<Duration> = None;

/// How template.yaml writes a bound that is `None` here.
pub const UNBOUNDED: i64 = -1;

/// A function error halves the batch before it is delivered again
/// (`BisectBatchOnFunctionError`).
pub const BISECT_BATCH_ON_FUNCTION_ERROR: bool = true;

/// Where a shard is read from when nothing says otherwise
/// (`StartingPosition`).
pub const STARTING_POSITION: &str = "TRIM_HORIZON";

/// The partitions whose changes reach the function (`FilterCriteria`: key
/// `pk` begins with one of them); the others are passed over, as Lambda
/// drops records no filter matches.
/// (`HOOKDLV#`: webhook deliveries, which the consumer sends.)
pub const FILTER_PARTITIONS: &[&str] = &["REPO#", "OWNER#", "HOOKDLV#"];

/// Whether a change of the item with partition key `pk` is delivered.
pub fn passes_filter(pk: &str) -> bool {
    FILTER_PARTITIONS.iter().any(|p| pk.starts_with(p))
}

/// The partial batch response (`FunctionResponseTypes`).
pub const FUNCTION_RESPONSE_TYPES: &[&str] = &["ReportBatchItemFailures"];
