//! Writing straight into the table: batched puts, reserved ids.

use std::time::Duration;

use aws_sdk_dynamodb::{
    config::timeout::TimeoutConfig,
    error::DisplayErrorContext,
    types::{PutRequest, WriteRequest},
};
use shared::db::{self, Db, Item, keys};
use tokio::task::JoinSet;

use crate::{Error, IN_FLIGHT};

/// BatchWriteItem calls of 25 items, [`IN_FLIGHT`] at once, each on a task
/// of its own so they proceed while the next items are computed. They go
/// to the client directly, without `ReturnConsumedCapacity`: DynamoDB
/// Local spends about 60 % more time per item when asked for it, and the
/// seeding's own cost is not what the bench measures.
pub(crate) struct Writer {
    pub(crate) client: aws_sdk_dynamodb::Client,
    pub(crate) table: String,
    pub(crate) buf: Vec<Item>,
    pub(crate) flying: JoinSet<Result<(), String>>,
    pub(crate) most: usize,
    pub(crate) written: u64,
}

impl Writer {
    pub(crate) fn new(db: &Db) -> Self {
        let most = std::env::var("SEED_CONCURRENCY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(IN_FLIGHT);
        // The functions' client gives up after 3.5 s; a seeding call may
        // wait out a pause of DynamoDB Local's JVM.
        let timeouts = TimeoutConfig::builder()
            .operation_timeout(Duration::from_secs(60))
            .operation_attempt_timeout(Duration::from_secs(30))
            .build();
        let config = db.client().config().to_builder().timeout_config(timeouts);
        Self {
            client: aws_sdk_dynamodb::Client::from_conf(config.build()),
            table: db.table().to_string(),
            buf: Vec::with_capacity(25),
            flying: JoinSet::new(),
            most,
            written: 0,
        }
    }

    pub(crate) async fn push(&mut self, item: Item) -> Result<(), Error> {
        self.buf.push(item);
        if self.buf.len() == 25 {
            self.send().await?;
        }
        Ok(())
    }

    async fn send(&mut self) -> Result<(), Error> {
        while self.flying.len() >= self.most {
            if let Some(done) = self.flying.join_next().await {
                done??;
            }
        }
        let batch = std::mem::take(&mut self.buf);
        self.written += batch.len() as u64;
        let (client, table) = (self.client.clone(), self.table.clone());
        self.flying.spawn(write(client, table, batch));
        Ok(())
    }

    pub(crate) async fn finish(mut self) -> Result<u64, Error> {
        if !self.buf.is_empty() {
            self.send().await?;
        }
        while let Some(done) = self.flying.join_next().await {
            done??;
        }
        Ok(self.written)
    }
}

/// One BatchWriteItem, again with what DynamoDB left unprocessed.
pub(crate) async fn write(
    client: aws_sdk_dynamodb::Client,
    table: String,
    items: Vec<Item>,
) -> Result<(), String> {
    let mut pending = items
        .into_iter()
        .map(|i| {
            let put = PutRequest::builder()
                .set_item(Some(i))
                .build()
                .map_err(|e| e.to_string())?;
            Ok(WriteRequest::builder().put_request(put).build())
        })
        .collect::<Result<Vec<_>, String>>()?;
    for attempt in 0..8u64 {
        let sent = client
            .batch_write_item()
            .request_items(&table, pending.clone())
            .send()
            .await;
        match sent {
            Ok(out) => {
                pending = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&table))
                    .unwrap_or_default();
                if pending.is_empty() {
                    return Ok(());
                }
            }
            // Puts are idempotent: a call DynamoDB Local was too slow to
            // answer (a pause of its JVM) is sent again.
            Err(e) if attempt < 7 => {
                eprintln!("BatchWriteItem again: {}", DisplayErrorContext(e));
            }
            Err(e) => return Err(format!("BatchWriteItem: {}", DisplayErrorContext(e))),
        }
        tokio::time::sleep(Duration::from_millis(20 << attempt)).await;
    }
    Err("writes left unprocessed after 8 attempts".into())
}

/// Reserves `n` ids of a counter (`COUNTER#<name>`, as `Db::next_id`
/// hands them out): the first of them.
pub(crate) async fn reserve(db: &Db, counter: &str, n: usize) -> Result<i64, Error> {
    let attrs = db
        .change(
            keys::key(&format!("COUNTER#{counter}"), "COUNTER"),
            db::Change::new().add("n", db::n(n)),
            None,
            db::Returns::UpdatedNew,
        )
        .await?
        .unwrap_or_default();
    let last: i64 = attrs
        .get("n")
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .ok_or("counter without a number")?;
    Ok(last - n as i64 + 1)
}
