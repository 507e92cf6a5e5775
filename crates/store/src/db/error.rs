//! The storage layer's error, with transaction cancellation reasons kept so
//! domain code can tell which condition failed, and faults told apart by
//! what they mean for the client: a read that failed can simply be retried
//! (`Unavailable`), a write whose answer never came may or may not have
//! been applied (`OutcomeUnknown`).

use aws_sdk_dynamodb::{
    error::{ProvideErrorMetadata, SdkError},
    operation::transact_write_items::TransactWriteItemsError,
};

use super::Item;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A single-item condition expression was false.
    #[error("condition check failed")]
    ConditionFailed,
    /// A transaction was cancelled: why, item by item.
    #[error("transaction cancelled: {0:?}")]
    Cancelled(Reasons),
    /// Another transaction held the items; retried before this is returned.
    #[error("transaction conflict")]
    TransactionConflict,
    /// A transaction larger than the database accepts.
    #[error("a transaction of {items} items exceeds the limit of {limit}")]
    TooManyItems { items: usize, limit: usize },
    /// A write would store an item over DynamoDB's 400 KB.
    #[error("the item would take {bytes} bytes (largest attribute: {attribute})")]
    ItemTooLarge { attribute: String, bytes: usize },
    /// Throttled, unreachable or failing, with nothing written: retry later.
    #[error("database unavailable: {0}")]
    Unavailable(String),
    /// A write was sent but no answer came: it may or may not be applied.
    #[error("database outcome unknown: {0}")]
    OutcomeUnknown(String),
    /// Another request with the same `Idempotency-Key` took this one over.
    #[error("superseded by a retry with the same idempotency key")]
    Superseded,
    /// A call the function's grant does not hold (nor, then, its IAM
    /// policy): a bug, refused before it was sent.
    #[error(
        "the {function} function may not call {needs}: add it to the dynamodb grant of its \
         routes! table (functions/{function}/src/lib.rs), then run `make routes`"
    )]
    NotGranted {
        function: &'static str,
        needs: super::permission::Permission,
    },
    /// The request's read budget is spent (see [`super::Budget`]).
    #[error(
        "this request would read more than its route allows: {calls} reads and {read_units} read units so far, at most {} and {}",
        budget.calls,
        budget.read_units
    )]
    OverBudget {
        calls: u32,
        read_units: f64,
        budget: super::Budget,
    },
    #[error("dynamodb: {0}")]
    Service(String),
    #[error("item does not match its model: {0}")]
    Decode(String),
}

/// Why a transaction was cancelled: one reason code per item, in order
/// (`"None"` for items that were fine), and for a conditional update whose
/// condition failed, the item as it was then. Shown by its codes only (an
/// item may hold what a log must not).
#[derive(Clone, Default, PartialEq)]
pub struct Reasons {
    pub codes: Vec<String>,
    pub old: Vec<Option<Item>>,
}

impl std::fmt::Debug for Reasons {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.codes.fmt(f)
    }
}

impl DbError {
    /// Index of the first transaction item whose condition failed.
    pub fn failed_condition(&self) -> Option<usize> {
        match self {
            DbError::Cancelled(reasons) => reasons
                .codes
                .iter()
                .position(|r| r == "ConditionalCheckFailed"),
            DbError::ConditionFailed => Some(0),
            _ => None,
        }
    }

    /// The item at position `at` of a cancelled transaction as it was,
    /// where its condition failed (conditional updates return it).
    pub fn old_item(&self, at: usize) -> Option<&Item> {
        match self {
            DbError::Cancelled(reasons) => reasons.old.get(at)?.as_ref(),
            _ => None,
        }
    }
}

/// Whether a call reads or writes: a write that may have reached the
/// database cannot be called failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Read,
    Write,
}

fn classify(code: Option<&str>, message: Option<&str>, text: String, op: Op) -> DbError {
    match code {
        Some("ConditionalCheckFailedException") => DbError::ConditionFailed,
        Some("TransactionConflictException") => DbError::TransactionConflict,
        Some(
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded"
            | "LimitExceededException",
        ) => DbError::Unavailable(text),
        Some("ValidationException")
            if message.is_some_and(|m| m.contains("Item size") || m.contains("item size")) =>
        {
            DbError::ItemTooLarge {
                attribute: String::new(),
                bytes: 0,
            }
        }
        Some("InternalServerError" | "ServiceUnavailable" | "InternalFailure") => unknown(op, text),
        // The SDK resent a transaction (same token) whose first attempt is
        // still being applied.
        Some("TransactionInProgressException") => DbError::OutcomeUnknown(text),
        _ => DbError::Service(text),
    }
}

fn unknown(op: Op, text: String) -> DbError {
    match op {
        Op::Read => DbError::Unavailable(text),
        Op::Write => DbError::OutcomeUnknown(text),
    }
}

/// Maps an SDK failure. Timeouts, lost connections and broken responses
/// are faults of the database's reachability, not of the request.
pub(crate) fn from_sdk<E>(e: SdkError<E>, op: Op) -> DbError
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
{
    let text = format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e));
    match &e {
        // A 5xx without DynamoDB's error shape (a proxy or load balancer on
        // the way answered): the database was not reached, or not heard.
        SdkError::ServiceError(s) if e.code().is_none() && s.raw().status().is_server_error() => {
            unknown(op, text)
        }
        SdkError::ServiceError(_) => classify(e.code(), e.message(), text, op),
        SdkError::DispatchFailure(d) if d.is_io() && op == Op::Read => DbError::Unavailable(text),
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => {
            unknown(op, text)
        }
        _ => DbError::Service(text),
    }
}

/// Transaction failures keep their per-item reasons.
pub(crate) fn from_transact(e: SdkError<TransactWriteItemsError>) -> DbError {
    if let Some(TransactWriteItemsError::TransactionCanceledException(c)) = e.as_service_error() {
        let reasons: Vec<String> = c
            .cancellation_reasons()
            .iter()
            .map(|r| r.code().unwrap_or("None").to_string())
            .collect();
        let old: Vec<Option<Item>> = c
            .cancellation_reasons()
            .iter()
            .map(|r| r.item().cloned())
            .collect();
        if reasons.iter().any(|r| r == "TransactionConflict") {
            return DbError::TransactionConflict;
        }
        if reasons
            .iter()
            .any(|r| r == "ThrottlingError" || r == "ProvisionedThroughputExceeded")
        {
            return DbError::Unavailable(format!("{reasons:?}"));
        }
        if reasons.iter().any(|r| r == "ValidationError") {
            let text = format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e));
            if text.contains("Item size") || text.contains("item size") {
                return DbError::ItemTooLarge {
                    attribute: String::new(),
                    bytes: 0,
                };
            }
        }
        return DbError::Cancelled(Reasons {
            codes: reasons,
            old,
        });
    }
    from_sdk(e, Op::Write)
}

/// What a table error means to a client.
impl From<DbError> for base::Error {
    fn from(e: DbError) -> Self {
        match e {
            DbError::Unavailable(_) | DbError::TransactionConflict => {
                base::Error::Unavailable(e.to_string())
            }
            DbError::OutcomeUnknown(_) => base::Error::OutcomeUnknown(e.to_string()),
            DbError::TooManyItems { items, limit } => base::Error::BadRequest(format!(
                "This request would change {items} items at once; the database accepts at most {limit} in one transaction. Make the change in smaller steps."
            )),
            DbError::ItemTooLarge { attribute, bytes } => {
                let field = if attribute.is_empty() {
                    "body".to_string()
                } else {
                    attribute
                };
                let size = if bytes == 0 {
                    "more than 400 KB".to_string()
                } else {
                    format!("{bytes} bytes")
                };
                base::Error::field(
                    &field,
                    format!(
                        "is too large to store: the record would take {size}, and one record holds at most 409600 bytes"
                    ),
                )
            }
            DbError::OverBudget { budget, .. } => base::Error::Unprocessable(format!(
                "this request would read more than this route allows ({} reads, {} read units); narrow it",
                budget.calls, budget.read_units
            )),
            DbError::Superseded => base::Error::Conflict(
                "a retry with the same Idempotency-Key took this request over".into(),
            ),
            other => base::Error::Internal(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_are_told_apart() {
        let c = |code: &str, op| classify(Some(code), None, String::new(), op);
        assert!(matches!(
            c("ConditionalCheckFailedException", Op::Write),
            DbError::ConditionFailed
        ));
        assert!(matches!(
            c("ThrottlingException", Op::Write),
            DbError::Unavailable(_)
        ));
        assert!(matches!(
            c("InternalServerError", Op::Read),
            DbError::Unavailable(_)
        ));
        assert!(matches!(
            c("InternalServerError", Op::Write),
            DbError::OutcomeUnknown(_)
        ));
        assert!(matches!(
            c("TransactionInProgressException", Op::Write),
            DbError::OutcomeUnknown(_)
        ));
        let size = classify(
            Some("ValidationException"),
            Some("Item size has exceeded the maximum allowed size"),
            String::new(),
            Op::Write,
        );
        assert!(matches!(size, DbError::ItemTooLarge { .. }));
        assert!(matches!(
            c("ValidationException", Op::Write),
            DbError::Service(_)
        ));
    }
}
