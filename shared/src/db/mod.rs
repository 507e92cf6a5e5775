//! DynamoDB access. Every call goes through [`Db`], which adds the table
//! name, asks for consumed capacity and records both in the request's
//! [`Metrics`], so the per-request log line is complete.

mod error;
pub mod keys;
mod metrics;
pub mod table;
pub mod tx;

use std::{collections::HashMap, future::Future, sync::Arc, time::Duration};

use aws_sdk_dynamodb::{
    Client,
    operation::{
        delete_item::builders::DeleteItemFluentBuilder, get_item::builders::GetItemFluentBuilder,
        put_item::builders::PutItemFluentBuilder, query::builders::QueryFluentBuilder,
        update_item::builders::UpdateItemFluentBuilder,
    },
    types::{AttributeValue, ConsumedCapacity, ReturnConsumedCapacity},
};
use serde::{Serialize, de::DeserializeOwned};

pub use error::DbError;
pub use metrics::{Metrics, MetricsSnapshot};
pub use tx::Tx;

use crate::Config;

/// One DynamoDB item.
pub type Item = HashMap<String, AttributeValue>;

/// Builds the one DynamoDB client of the process. With `DYNAMODB_ENDPOINT`
/// set (DynamoDB Local) it falls back to dummy credentials and a region, so
/// local runs need no AWS set-up.
pub async fn connect(config: &Config) -> Client {
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest());
    if let Some(endpoint) = &config.dynamodb_endpoint {
        loader = loader.endpoint_url(endpoint);
        if std::env::var_os("AWS_REGION").is_none()
            && std::env::var_os("AWS_DEFAULT_REGION").is_none()
        {
            loader = loader.region(aws_config::Region::new("us-east-1"));
        }
        if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() {
            loader = loader.credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "local", "local", None, None, "local",
            ));
        }
    }
    Client::new(&loader.load().await)
}

/// A handle on the table for one request: cheap to clone, and every clone
/// adds to the same [`Metrics`].
#[derive(Clone, Debug)]
pub struct Db {
    client: Client,
    table: Arc<str>,
    metrics: Arc<Metrics>,
    transaction_limit: usize,
}

/// Operation outputs that report consumed capacity.
trait Consumed {
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

impl Db {
    pub fn new(client: Client, table: impl Into<Arc<str>>) -> Self {
        Self {
            client,
            table: table.into(),
            metrics: Arc::default(),
            transaction_limit: 100,
        }
    }

    /// The same handle, with the database's transaction size limit.
    pub fn with_transaction_limit(mut self, items: usize) -> Self {
        self.transaction_limit = items;
        self
    }

    /// A handle with fresh metrics, for the next request.
    pub fn for_request(&self) -> Self {
        Self {
            client: self.client.clone(),
            table: self.table.clone(),
            metrics: Arc::default(),
            transaction_limit: self.transaction_limit,
        }
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn metrics(&self) -> MetricsSnapshot {
        self.metrics.snapshot()
    }

    async fn record<T: Consumed, E>(
        &self,
        op: &'static str,
        call: impl Future<Output = Result<T, aws_sdk_dynamodb::error::SdkError<E>>>,
    ) -> Result<T, DbError>
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata
            + std::error::Error
            + Send
            + Sync
            + 'static,
        DbError: From<aws_sdk_dynamodb::error::SdkError<E>>,
    {
        self.metrics.start();
        let result = call.await;
        match &result {
            Ok(out) => self.metrics.add(op, out.consumed()),
            Err(_) => self.metrics.add(op, Vec::new()),
        }
        result.map_err(DbError::from)
    }

    /// Strongly consistent read of one item.
    pub async fn get(&self, key: Item) -> Result<Option<Item>, DbError> {
        self.get_with(|b| b.set_key(Some(key))).await
    }

    pub async fn get_with(
        &self,
        f: impl FnOnce(GetItemFluentBuilder) -> GetItemFluentBuilder,
    ) -> Result<Option<Item>, DbError> {
        let b = self
            .client
            .get_item()
            .table_name(&*self.table)
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        Ok(self.record("GetItem", f(b).send()).await?.item)
    }

    /// Reads one item and decodes it.
    pub async fn get_as<T: DeserializeOwned>(&self, key: Item) -> Result<Option<T>, DbError> {
        self.get(key).await?.map(from_item).transpose()
    }

    pub async fn put(
        &self,
        f: impl FnOnce(PutItemFluentBuilder) -> PutItemFluentBuilder,
    ) -> Result<(), DbError> {
        let b = self
            .client
            .put_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        self.record("PutItem", f(b).send()).await.map(|_| ())
    }

    pub async fn update(
        &self,
        f: impl FnOnce(UpdateItemFluentBuilder) -> UpdateItemFluentBuilder,
    ) -> Result<Option<Item>, DbError> {
        let b = self
            .client
            .update_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        Ok(self.record("UpdateItem", f(b).send()).await?.attributes)
    }

    pub async fn delete(
        &self,
        f: impl FnOnce(DeleteItemFluentBuilder) -> DeleteItemFluentBuilder,
    ) -> Result<(), DbError> {
        let b = self
            .client
            .delete_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        self.record("DeleteItem", f(b).send()).await.map(|_| ())
    }

    /// One page of a query (the caller sets key condition, limit, cursor).
    pub async fn query(
        &self,
        f: impl FnOnce(QueryFluentBuilder) -> QueryFluentBuilder,
    ) -> Result<aws_sdk_dynamodb::operation::query::QueryOutput, DbError> {
        let b = self
            .client
            .query()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        self.record("Query", f(b).send()).await
    }

    /// All items under one partition key whose sort key begins with `prefix`.
    /// For small, bounded collections only (a user's tokens, a team's members).
    pub async fn query_prefix(&self, pk: &str, prefix: &str) -> Result<Vec<Item>, DbError> {
        let mut items = Vec::new();
        let mut cursor = None;
        loop {
            let out = self
                .query(|q| {
                    q.key_condition_expression("pk = :pk AND begins_with(sk, :p)")
                        .expression_attribute_values(":pk", s(pk))
                        .expression_attribute_values(":p", s(prefix))
                        .consistent_read(true)
                        .set_exclusive_start_key(cursor.take())
                })
                .await?;
            items.extend(out.items.unwrap_or_default());
            match out.last_evaluated_key {
                Some(k) if !k.is_empty() => cursor = Some(k),
                _ => return Ok(items),
            }
        }
    }

    /// Reads up to 100 items by key in one call (retrying unprocessed keys).
    pub async fn batch_get(&self, keys: Vec<Item>) -> Result<Vec<Item>, DbError> {
        use aws_sdk_dynamodb::types::KeysAndAttributes;
        let mut found = Vec::new();
        let mut pending = keys;
        let mut attempt = 0u32;
        while !pending.is_empty() {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(pending))
                .consistent_read(true)
                .build()
                .map_err(|e| DbError::Service(e.to_string()))?;
            let call = self
                .client
                .batch_get_item()
                .request_items(&*self.table, request)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send();
            let out = self.record("BatchGetItem", call).await?;
            if let Some(mut responses) = out.responses {
                found.extend(responses.remove(&*self.table).unwrap_or_default());
            }
            pending = out
                .unprocessed_keys
                .and_then(|mut m| m.remove(&*self.table))
                .map(|k| k.keys)
                .unwrap_or_default();
            attempt += 1;
            if !pending.is_empty() {
                backoff(attempt).await;
            }
        }
        Ok(found)
    }

    /// An empty transaction on this table.
    pub fn tx(&self) -> Tx {
        Tx::new(self.table.clone())
    }

    /// Writes many items, 25 per call (retrying unprocessed ones). For
    /// seeding data (benchmarks, imports); request paths use transactions.
    pub async fn batch_put(&self, items: Vec<Item>) -> Result<(), DbError> {
        use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
        let requests = items
            .into_iter()
            .map(|i| {
                let put = PutRequest::builder()
                    .set_item(Some(i))
                    .build()
                    .map_err(|e| DbError::Service(e.to_string()))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<_, DbError>>()?;
        self.batch_write(requests).await
    }

    /// Deletes many items by key, 25 per call (not atomically: for what a
    /// transaction already made unreachable).
    pub async fn batch_delete(&self, keys: Vec<Item>) -> Result<(), DbError> {
        use aws_sdk_dynamodb::types::{DeleteRequest, WriteRequest};
        let requests = keys
            .into_iter()
            .map(|k| {
                let delete = DeleteRequest::builder()
                    .set_key(Some(k))
                    .build()
                    .map_err(|e| DbError::Service(e.to_string()))?;
                Ok(WriteRequest::builder().delete_request(delete).build())
            })
            .collect::<Result<_, DbError>>()?;
        self.batch_write(requests).await
    }

    async fn batch_write(
        &self,
        requests: Vec<aws_sdk_dynamodb::types::WriteRequest>,
    ) -> Result<(), DbError> {
        for chunk in requests.chunks(25) {
            let mut pending = chunk.to_vec();
            let mut attempt = 0;
            while !pending.is_empty() {
                let call = self
                    .client
                    .batch_write_item()
                    .request_items(&*self.table, pending)
                    .return_consumed_capacity(ReturnConsumedCapacity::Total)
                    .send();
                let out = self.record("BatchWriteItem", call).await?;
                pending = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&*self.table))
                    .unwrap_or_default();
                attempt += 1;
                if !pending.is_empty() {
                    backoff(attempt).await;
                }
            }
        }
        Ok(())
    }

    /// One all-or-nothing transaction. A transaction conflict (another
    /// writer on the same items) is retried a few times before giving up;
    /// a failed condition is returned at once with its per-item reasons.
    pub async fn transact(&self, tx: Tx) -> Result<(), DbError> {
        let items = tx.items;
        if items.len() > self.transaction_limit {
            return Err(DbError::TooManyItems {
                items: items.len(),
                limit: self.transaction_limit,
            });
        }
        let mut attempt = 0;
        loop {
            let call = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send();
            match self.record("TransactWriteItems", call).await {
                // Writes that count on one item (a project's or a server's
                // applications) collide under load; they are short, so a
                // few jittered retries get through.
                Err(DbError::TransactionConflict) if attempt < 8 => {
                    attempt += 1;
                    backoff(attempt).await;
                }
                other => return other.map(|_| ()),
            }
        }
    }

    /// Atomically adds one to a named counter and returns the new value.
    /// Used for numeric ids, where gaps are harmless.
    pub async fn next_id(&self, counter: &str) -> Result<i64, DbError> {
        let attrs = self
            .update(|u| {
                u.set_key(Some(keys::key(&format!("COUNTER#{counter}"), "COUNTER")))
                    .update_expression("ADD n :one")
                    .expression_attribute_values(":one", AttributeValue::N("1".into()))
                    .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew)
            })
            .await?
            .unwrap_or_default();
        attrs
            .get("n")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| DbError::Decode(format!("counter {counter} has no number")))
    }
}

async fn backoff(attempt: u32) {
    let jitter = rand::random::<u64>() % 20;
    tokio::time::sleep(Duration::from_millis(
        10 * 2u64.pow(attempt.min(6)) + jitter,
    ))
    .await;
}

/// A string attribute value.
pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number attribute value.
pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// Encodes a record as an item. Empty strings are left out (records give
/// such fields `#[serde(default)]`): DynamoDB Local, which the tests run
/// against, still refuses them, and an absent attribute costs nothing.
pub fn to_item<T: Serialize>(value: &T) -> Result<Item, DbError> {
    let mut item: Item =
        serde_dynamo::to_item(value).map_err(|e| DbError::Decode(e.to_string()))?;
    strip_empty_strings(&mut item);
    Ok(item)
}

fn strip_empty_strings(map: &mut Item) {
    map.retain(|_, v| !matches!(v, AttributeValue::S(s) if s.is_empty()));
    for v in map.values_mut() {
        if let AttributeValue::M(inner) = v {
            strip_empty_strings(inner);
        }
    }
}

pub fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, DbError> {
    serde_dynamo::from_item(item).map_err(|e| DbError::Decode(e.to_string()))
}
