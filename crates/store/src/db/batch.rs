//! Batch reads and writes: at most 100 keys or 25 writes a call, bounded
//! retry rounds for what DynamoDB leaves unprocessed.

use std::time::Duration;

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

use super::{
    Action, Consistency, Db, DbError, Item, Permission, Query, error::Op, projection_of, size,
};

impl Db {
    /// Reads up to 100 items by key in one call (retrying unprocessed keys),
    /// strongly consistent.
    pub async fn batch_get(&self, keys: Vec<Item>) -> Result<Vec<Item>, DbError> {
        self.batch_get_projected(keys, None).await
    }

    /// Like [`Db::batch_get`], keeping only the named attributes.
    pub async fn batch_get_projected(
        &self,
        keys: Vec<Item>,
        projection: Option<&[&str]>,
    ) -> Result<Vec<Item>, DbError> {
        self.batch_get_with(keys, projection, Consistency::Strong)
            .await
    }

    /// Any number of items by key, as fresh as `consistency` asks (see
    /// [`Consistency`]): one call per 100 keys, all in flight at once (at
    /// most 8), so the read takes one round trip's time.
    pub async fn batch_get_many(
        &self,
        keys: Vec<Item>,
        projection: Option<&[&str]>,
        consistency: Consistency,
    ) -> Result<Vec<Item>, DbError> {
        use futures::{StreamExt, TryStreamExt};
        let reads: Vec<_> = keys
            .chunks(100)
            .map(|c| self.batch_get_with(c.to_vec(), projection, consistency))
            .collect();
        let found: Vec<Vec<Item>> = futures::stream::iter(reads)
            .buffer_unordered(8)
            .try_collect()
            .await?;
        Ok(found.into_iter().flatten().collect())
    }

    /// Up to 100 items by key, as fresh as `consistency` asks.
    pub async fn batch_get_with(
        &self,
        keys: Vec<Item>,
        projection: Option<&[&str]>,
        consistency: Consistency,
    ) -> Result<Vec<Item>, DbError> {
        use aws_sdk_dynamodb::types::KeysAndAttributes;
        let mut found = Vec::new();
        let mut pending: Vec<Item> = keys.into_iter().filter(size::key_fits).collect();
        let mut attempt = 0u32;
        while !pending.is_empty() {
            if attempt == BATCH_ROUNDS {
                return Err(DbError::Unavailable(format!(
                    "{} keys still unprocessed after {BATCH_ROUNDS} rounds",
                    pending.len()
                )));
            }
            let mut request = KeysAndAttributes::builder()
                .set_keys(Some(pending))
                .consistent_read(consistency.strong());
            if let Some(fields) = projection {
                let (expression, names) = projection_of(fields);
                request = request
                    .projection_expression(expression)
                    .set_expression_attribute_names(Some(names));
            }
            let request = request
                .build()
                .map_err(|e| DbError::Service(e.to_string()))?;
            let call = self
                .clients
                .retrying
                .batch_get_item()
                .request_items(&*self.table, request)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send();
            let out = self
                .record(Permission::table(Action::BatchGetItem), Op::Read, call)
                .await?;
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

    /// Deletes every item `q` finds, one page of keys at a time, so
    /// memory holds a page whatever their number. Idempotent: for what a
    /// transaction already made unreachable.
    pub async fn delete_found(&self, q: Query) -> Result<(), DbError> {
        let q = q.fields(&["pk", "sk"]);
        let mut start = None;
        loop {
            let page = self.query_page(q.clone().after(start)).await?;
            self.batch_delete(page.items).await?;
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok(()),
            }
        }
    }

    /// Deletes many items by key, 25 per call (not atomically: for what a
    /// transaction already made unreachable).
    pub async fn batch_delete(&self, keys: Vec<Item>) -> Result<(), DbError> {
        use aws_sdk_dynamodb::types::{DeleteRequest, WriteRequest};
        // One batch may not name a key twice.
        let mut seen = std::collections::HashSet::new();
        let requests = keys
            .into_iter()
            .filter(|k| seen.insert(format!("{:?}{:?}", k.get("pk"), k.get("sk"))))
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
        use futures::{StreamExt, TryStreamExt};
        let chunks: Vec<_> = requests.chunks(25).map(<[_]>::to_vec).collect();
        // A few batches in flight at once, as one Lambda should.
        futures::stream::iter(chunks.into_iter().map(|c| self.batch_write_one(c)))
            .buffer_unordered(8)
            .try_collect::<Vec<()>>()
            .await
            .map(|_| ())
    }

    async fn batch_write_one(
        &self,
        chunk: Vec<aws_sdk_dynamodb::types::WriteRequest>,
    ) -> Result<(), DbError> {
        let mut pending = chunk;
        let mut attempt = 0;
        while !pending.is_empty() {
            if attempt == BATCH_ROUNDS {
                return Err(DbError::Unavailable(format!(
                    "{} writes still unprocessed after {BATCH_ROUNDS} rounds",
                    pending.len()
                )));
            }
            // Batch puts and deletes are idempotent: the SDK may retry.
            let call = self
                .clients
                .retrying
                .batch_write_item()
                .request_items(&*self.table, pending)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send();
            let out = self
                .record(Permission::table(Action::BatchWriteItem), Op::Write, call)
                .await?;
            pending = out
                .unprocessed_items
                .and_then(|mut m| m.remove(&*self.table))
                .unwrap_or_default();
            attempt += 1;
            if !pending.is_empty() {
                backoff(attempt).await;
            }
        }
        Ok(())
    }
}

/// Rounds of a batch call before unprocessed keys or writes give up.
pub(super) const BATCH_ROUNDS: u32 = 6;

pub(super) async fn backoff(attempt: u32) {
    let jitter = rand::random::<u64>() % 20;
    tokio::time::sleep(Duration::from_millis(
        10 * 2u64.pow(attempt.min(6)) + jitter,
    ))
    .await;
}
