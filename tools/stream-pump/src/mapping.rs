//! What the event source mapping in template.yaml (`StreamFunction`'s
//! `TableStream` event) is set to, which the pump does the same way;
//! tests/tests/stack.rs fails when the two differ.

use std::time::Duration;

/// Records per invocation, at most (`BatchSize`).
pub const BATCH_SIZE: usize = 100;

/// An invocation's payload stays under Lambda's 6 MB.
pub const MAX_PAYLOAD_BYTES: usize = 6_000_000;

/// Deliveries of a failed batch after the first (`MaximumRetryAttempts`);
/// then it is skipped.
pub const MAXIMUM_RETRY_ATTEMPTS: u32 = 10;

/// Records older than this are skipped (`MaximumRecordAgeInSeconds`).
pub const MAXIMUM_RECORD_AGE: Duration = Duration::from_secs(21_600);

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
