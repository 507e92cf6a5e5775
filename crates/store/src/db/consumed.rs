//! The consumed capacity each operation's output reports, for the
//! request's [`Metrics`](super::Metrics).

use aws_sdk_dynamodb::types::ConsumedCapacity;

/// Operation outputs that report consumed capacity.
pub(super) trait Consumed {
    fn consumed(&self) -> Vec<&ConsumedCapacity>;
}

macro_rules! consumed_one {
    ($($ty:ty),*) => {$(
        impl Consumed for $ty {
            fn consumed(&self) -> Vec<&ConsumedCapacity> {
                self.consumed_capacity().into_iter().collect()
            }
        }
    )*};
}
consumed_one!(
    aws_sdk_dynamodb::operation::scan::ScanOutput,
    aws_sdk_dynamodb::operation::get_item::GetItemOutput,
    aws_sdk_dynamodb::operation::put_item::PutItemOutput,
    aws_sdk_dynamodb::operation::update_item::UpdateItemOutput,
    aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput,
    aws_sdk_dynamodb::operation::query::QueryOutput
);

impl Consumed for aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput {
    fn consumed(&self) -> Vec<&ConsumedCapacity> {
        self.consumed_capacity().iter().collect()
    }
}

impl Consumed for aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput {
    fn consumed(&self) -> Vec<&ConsumedCapacity> {
        self.consumed_capacity().iter().collect()
    }
}

impl Consumed for aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput {
    fn consumed(&self) -> Vec<&ConsumedCapacity> {
        self.consumed_capacity().iter().collect()
    }
}
