//! The storage layer's error, with transaction cancellation reasons kept so
//! domain code can tell which condition failed.

use aws_sdk_dynamodb::{
    error::{ProvideErrorMetadata, SdkError},
    operation::transact_write_items::TransactWriteItemsError,
};

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// A single-item condition expression was false.
    #[error("condition check failed")]
    ConditionFailed,
    /// A transaction was cancelled; one reason code per item, in order
    /// (`"None"` for items that were fine).
    #[error("transaction cancelled: {0:?}")]
    Cancelled(Vec<String>),
    /// Another transaction held the items; retried before this is returned.
    #[error("transaction conflict")]
    TransactionConflict,
    /// A transaction larger than the database accepts.
    #[error("a transaction of {items} items exceeds the limit of {limit}")]
    TooManyItems { items: usize, limit: usize },
    #[error("throttled: {0}")]
    Throttled(String),
    #[error("dynamodb: {0}")]
    Service(String),
    #[error("item does not match its model: {0}")]
    Decode(String),
}

impl DbError {
    /// Index of the first transaction item whose condition failed.
    pub fn failed_condition(&self) -> Option<usize> {
        match self {
            DbError::Cancelled(reasons) => {
                reasons.iter().position(|r| r == "ConditionalCheckFailed")
            }
            DbError::ConditionFailed => Some(0),
            _ => None,
        }
    }
}

fn classify(code: Option<&str>, text: String) -> DbError {
    match code {
        Some("ConditionalCheckFailedException") => DbError::ConditionFailed,
        Some("TransactionConflictException") => DbError::TransactionConflict,
        Some(
            "ProvisionedThroughputExceededException"
            | "ThrottlingException"
            | "RequestLimitExceeded",
        ) => DbError::Throttled(text),
        _ => DbError::Service(text),
    }
}

macro_rules! from_sdk {
    ($($ty:ty),*) => {$(
        impl From<SdkError<$ty>> for DbError {
            fn from(e: SdkError<$ty>) -> Self {
                let code = e.code().map(str::to_owned);
                classify(code.as_deref(), format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e)))
            }
        }
    )*};
}

from_sdk!(
    aws_sdk_dynamodb::operation::get_item::GetItemError,
    aws_sdk_dynamodb::operation::put_item::PutItemError,
    aws_sdk_dynamodb::operation::update_item::UpdateItemError,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemError,
    aws_sdk_dynamodb::operation::query::QueryError,
    aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemError,
    aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemError
);

impl From<SdkError<TransactWriteItemsError>> for DbError {
    fn from(e: SdkError<TransactWriteItemsError>) -> Self {
        if let Some(TransactWriteItemsError::TransactionCanceledException(c)) = e.as_service_error()
        {
            let reasons: Vec<String> = c
                .cancellation_reasons()
                .iter()
                .map(|r| r.code().unwrap_or("None").to_string())
                .collect();
            if reasons.iter().any(|r| r == "TransactionConflict") {
                return DbError::TransactionConflict;
            }
            if reasons
                .iter()
                .any(|r| r == "ThrottlingError" || r == "ProvisionedThroughputExceeded")
            {
                return DbError::Throttled(format!("{reasons:?}"));
            }
            return DbError::Cancelled(reasons);
        }
        let code = e.code().map(str::to_owned);
        classify(
            code.as_deref(),
            format!("{}", aws_sdk_dynamodb::error::DisplayErrorContext(&e)),
        )
    }
}
