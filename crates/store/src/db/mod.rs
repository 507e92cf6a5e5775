//! DynamoDB access. Every call goes through [`Db`], which adds the table
//! name, asks for consumed capacity and records both in the request's
//! [`Metrics`], so the per-request log line is complete.
//!
//! Every call is checked against the function's [`Grant`] first (see
//! [`access`]): a call the function's IAM policy would refuse fails here,
//! with its name, in every test.
//!
//! Faults are bounded: every call has connect, attempt and operation
//! timeouts, so a stalled database answers within seconds; reads and
//! transactions (which carry an idempotency token) are retried by the SDK,
//! single writes are not (a second `ADD` would count twice); batch retry
//! loops give up after a few rounds.

pub mod access;
pub mod actor;
mod attrs;
mod batch;
mod budget;
mod cleanup;
mod connect;
mod consumed;
mod error;
mod expr;
pub mod keys;
mod metrics;
mod ops;
pub mod permission;
mod prefix;
mod request;
pub mod size;
pub mod table;
pub mod tx;

use std::{
    collections::HashMap,
    future::Future,
    sync::{Arc, atomic::Ordering},
};

use aws_sdk_dynamodb::{
    Client,
    operation::{
        delete_item::builders::DeleteItemFluentBuilder, get_item::builders::GetItemFluentBuilder,
        put_item::builders::PutItemFluentBuilder, query::builders::QueryFluentBuilder,
        update_item::builders::UpdateItemFluentBuilder,
    },
    types::{AttributeValue, ReturnConsumedCapacity},
};
use serde::de::DeserializeOwned;

pub use access::{Action, Grant, Permission, Resource};
pub(crate) use attrs::projection_of;
pub use attrs::{b, flag, from_item, n, number, s, text, to_item};
pub use base::telemetry::MetricsSnapshot;
use batch::backoff;
pub use budget::Budget;
pub use cleanup::{CLEANUP_BUDGET, cleanup};
pub use connect::{Clients, connect};
use consumed::Consumed;
pub use error::{DbError, Reasons};
use error::{Op, from_sdk, from_transact};
pub use expr::{Change, Cond, Query, Range, Returns};
pub use metrics::Metrics;
pub use ops::Page;
pub use request::Marker;
use request::RequestState;
pub use tx::Tx;

/// One attribute's value, as items hold it.
pub type Value = AttributeValue;

/// One DynamoDB item.
pub type Item = HashMap<String, AttributeValue>;

/// How fresh a read must be. The rule: a read that decides a write (a
/// permission, a name's owner, a counter a transaction is conditioned on),
/// that answers for one item its client may just have written (`GET` of
/// an issue, a milestone, a repository), or that serves a listing of
/// issues, pull requests or comments (their entries, documents, pages and
/// the labels and milestones they show: a write shows in the next listing,
/// as Gitea's do) is strong. Other pages and what renders them (a
/// repository's labels and milestones, the users a page refers to) are
/// eventual, at half the read units: a change made a moment ago may be
/// missing there for a second or so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consistency {
    Strong,
    Eventual,
}

impl Consistency {
    fn strong(self) -> bool {
        self == Consistency::Strong
    }
}

/// A handle on the table for one request: cheap to clone, and every clone
/// adds to the same [`Metrics`].
#[derive(Clone, Debug)]
pub struct Db {
    clients: Clients,
    table: Arc<str>,
    metrics: Arc<Metrics>,
    request: Arc<RequestState>,
    transaction_limit: usize,
    /// What the function serving the request may call; `None` for the
    /// operators' tools (bootstrap, check-data, seeding), which may call
    /// anything.
    grant: Option<&'static Grant>,
}

/// The condition of a write that needs its item to exist.
pub(crate) const EXISTS: &str = "attribute_exists(pk)";

impl Db {
    pub fn new(clients: Clients, table: impl Into<Arc<str>>) -> Self {
        Self {
            clients,
            table: table.into(),
            metrics: Arc::default(),
            request: Arc::default(),
            transaction_limit: 100,
            grant: None,
        }
    }

    /// A handle over one client for both kinds of call (tools and tests).
    pub fn with_client(client: Client, table: impl Into<Arc<str>>) -> Self {
        Self::new(
            Clients {
                retrying: client.clone(),
                once: client,
                sdk: None,
            },
            table,
        )
    }

    /// The same handle, with the database's transaction size limit.
    pub fn with_transaction_limit(mut self, items: usize) -> Self {
        self.transaction_limit = items;
        self
    }

    /// Items one transaction may hold.
    pub fn transaction_limit(&self) -> usize {
        self.transaction_limit
    }

    /// A handle with fresh metrics and state, for the next request.
    pub fn for_request(&self) -> Self {
        Self {
            clients: self.clients.clone(),
            table: self.table.clone(),
            metrics: Arc::default(),
            request: Arc::default(),
            transaction_limit: self.transaction_limit,
            grant: self.grant,
        }
    }

    /// The same handle, limited to what `grant` allows.
    pub fn granted(mut self, grant: &'static Grant) -> Self {
        self.grant = Some(grant);
        self
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// The retrying client, for table administration (bootstrap, tools).
    pub fn client(&self) -> &Client {
        &self.clients.retrying
    }

    pub fn metrics(&self) -> MetricsSnapshot {
        self.metrics.snapshot()
    }

    /// One call that needs one permission, counted under its action's
    /// name.
    async fn record<T: Consumed, E>(
        &self,
        needs: Permission,
        kind: Op,
        call: impl Future<Output = Result<T, aws_sdk_dynamodb::error::SdkError<E>>>,
    ) -> Result<T, DbError>
    where
        E: aws_sdk_dynamodb::error::ProvideErrorMetadata
            + std::error::Error
            + Send
            + Sync
            + 'static,
    {
        self.record_with(needs.action.name(), &[needs], kind, call, |e| {
            from_sdk(e, kind)
        })
        .await
    }

    /// Sends `call` (futures do nothing until awaited: nothing reaches the
    /// database unless the grant holds every permission in `needs`) and
    /// adds its cost to the request's metrics.
    async fn record_with<T: Consumed, E>(
        &self,
        op: &'static str,
        needs: &[Permission],
        kind: Op,
        call: impl Future<Output = Result<T, E>>,
        map: impl FnOnce(E) -> DbError,
    ) -> Result<T, DbError> {
        if let Some(grant) = self.grant {
            access::enforce(grant, needs)?;
        }
        if kind == Op::Read {
            self.within_budget()?;
        }
        if kind == Op::Write {
            self.request.writes_started.store(true, Ordering::SeqCst);
        }
        self.metrics.start();
        let result = call.await;
        match &result {
            Ok(out) => self.metrics.add(op, out.consumed()),
            Err(_) => self.metrics.add(op, Vec::new()),
        }
        result.map_err(map)
    }

    /// Refuses a read once the request's budget is spent.
    fn within_budget(&self) -> Result<(), DbError> {
        let Some(budget) = *self
            .request
            .budget
            .lock()
            .unwrap_or_else(|p| p.into_inner())
        else {
            return Ok(());
        };
        let spent = self.metrics.snapshot();
        // This read counts from now on: one sent beside others that have
        // not come back yet is held to the budget as well.
        let calls = self.request.reads_started.fetch_add(1, Ordering::SeqCst);
        if calls >= budget.calls || spent.read_units >= budget.read_units {
            return Err(DbError::OverBudget {
                calls,
                read_units: spent.read_units,
                budget,
            });
        }
        Ok(())
    }

    /// Strongly consistent read of one item (see [`Consistency`]: single
    /// items stay strong).
    pub async fn get(&self, key: Item) -> Result<Option<Item>, DbError> {
        self.get_with(|b| b.set_key(Some(key))).await
    }

    pub(crate) async fn get_with(
        &self,
        f: impl FnOnce(GetItemFluentBuilder) -> GetItemFluentBuilder,
    ) -> Result<Option<Item>, DbError> {
        let b = f(self
            .clients
            .retrying
            .get_item()
            .table_name(&*self.table)
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Total));
        if b.get_key().as_ref().is_some_and(|k| !size::key_fits(k)) {
            return Ok(None);
        }
        Ok(self
            .record(Permission::table(Action::GetItem), Op::Read, b.send())
            .await?
            .item)
    }

    /// Reads one item and decodes it.
    pub async fn get_as<T: DeserializeOwned>(&self, key: Item) -> Result<Option<T>, DbError> {
        self.get(key).await?.map(from_item).transpose()
    }

    pub(crate) async fn put(
        &self,
        f: impl FnOnce(PutItemFluentBuilder) -> PutItemFluentBuilder,
    ) -> Result<(), DbError> {
        self.assert_unkeyed("PutItem");
        let b = f(self
            .clients
            .once
            .put_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total));
        if let Some(item) = b.get_item() {
            size::check_item(item)?;
        }
        self.record(Permission::table(Action::PutItem), Op::Write, b.send())
            .await
            .map(|_| ())
    }

    pub(crate) async fn update(
        &self,
        f: impl FnOnce(UpdateItemFluentBuilder) -> UpdateItemFluentBuilder,
    ) -> Result<Option<Item>, DbError> {
        let b = f(self
            .clients
            .once
            .update_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total));
        if let Some(values) = b.get_expression_attribute_values() {
            size::check(values.iter())?;
        }
        Ok(self
            .record(Permission::table(Action::UpdateItem), Op::Write, b.send())
            .await?
            .attributes)
    }

    pub(crate) async fn delete(
        &self,
        f: impl FnOnce(DeleteItemFluentBuilder) -> DeleteItemFluentBuilder,
    ) -> Result<(), DbError> {
        self.assert_unkeyed("DeleteItem");
        let b = self
            .clients
            .once
            .delete_item()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        self.record(
            Permission::table(Action::DeleteItem),
            Op::Write,
            f(b).send(),
        )
        .await
        .map(|_| ())
    }

    /// Deletes the item under `key`; [`DbError::ConditionFailed`] when
    /// there is none.
    pub async fn delete_existing(&self, key: Item) -> Result<(), DbError> {
        self.delete(|d| d.set_key(Some(key)).condition_expression(EXISTS))
            .await
    }

    /// Replaces the item under `item`'s key; [`DbError::ConditionFailed`]
    /// when there is none (it was deleted meanwhile).
    pub async fn put_existing(&self, item: Item) -> Result<(), DbError> {
        self.put(|p| p.set_item(Some(item)).condition_expression(EXISTS))
            .await
    }

    /// One page of a query (the caller sets key condition, limit, cursor).
    pub(crate) async fn query(
        &self,
        f: impl FnOnce(QueryFluentBuilder) -> QueryFluentBuilder,
    ) -> Result<aws_sdk_dynamodb::operation::query::QueryOutput, DbError> {
        let b = self
            .clients
            .retrying
            .query()
            .table_name(&*self.table)
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let b = f(b);
        // A query of an index is authorised on the index, not the table.
        let needs = match b.get_index_name() {
            Some(_) => Permission::indexes(Action::Query),
            None => Permission::table(Action::Query),
        };
        self.record(needs, Op::Read, b.send()).await
    }

    /// Every item of one segment of the table, with only `fields`. For the
    /// operator's tools: no request path scans.
    pub async fn scan_segment(
        &self,
        segment: i32,
        segments: i32,
        fields: &[&str],
    ) -> Result<Vec<Item>, DbError> {
        let (expression, names) = projection_of(fields);
        let mut out = Vec::new();
        let mut cursor = None;
        loop {
            let call = self
                .clients
                .retrying
                .scan()
                .table_name(&*self.table)
                .segment(segment)
                .total_segments(segments)
                .consistent_read(true)
                .projection_expression(&expression)
                .set_expression_attribute_names(Some(names.clone()))
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .set_exclusive_start_key(cursor.take())
                .send();
            let page = self
                .record(Permission::table(Action::Scan), Op::Read, call)
                .await?;
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => cursor = Some(k),
                _ => return Ok(out),
            }
        }
    }

    /// An empty transaction on this table.
    pub fn tx(&self) -> Tx {
        Tx::new(self.table.clone())
    }

    /// One all-or-nothing transaction. It carries a client request token,
    /// so the SDK's retries after a lost answer cannot apply it twice. A
    /// transaction conflict (another writer on the same items) is retried
    /// a few times before giving up; a failed condition is returned at once
    /// with its per-item reasons. In a request with an idempotency key the
    /// key's marker rides along as the last item.
    pub async fn transact(&self, tx: Tx) -> Result<(), DbError> {
        let mut items = tx.items;
        let marker = self
            .request
            .marker
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let marker_at = items.len();
        if let Some(m) = &marker {
            let mut t = Tx::new(self.table.clone());
            t.change(
                m.key.clone(),
                Change::new().set("committed", AttributeValue::Bool(true)),
                Some(Cond::eq("attempt", s(&m.attempt))),
            )?;
            items.extend(t.items);
        }
        if items.len() > self.transaction_limit {
            return Err(DbError::TooManyItems {
                items: items.len(),
                limit: self.transaction_limit,
            });
        }
        let needs = tx::permissions(&items);
        let mut attempt = 0;
        loop {
            let token = hex::encode(rand::random::<[u8; 16]>());
            let call = self
                .clients
                .retrying
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .client_request_token(token)
                .return_consumed_capacity(ReturnConsumedCapacity::Total)
                .send();
            match self
                .record_with("TransactWriteItems", &needs, Op::Write, call, from_transact)
                .await
            {
                // Writes that count on one item (a project's or a server's
                // applications) collide under load; they are short, so a
                // few jittered retries get through.
                Err(DbError::TransactionConflict) if attempt < 8 => {
                    attempt += 1;
                    backoff(attempt).await;
                }
                Err(DbError::Cancelled(reasons))
                    if marker.is_some()
                        && reasons.codes.get(marker_at).map(String::as_str)
                            == Some("ConditionalCheckFailed") =>
                {
                    return Err(DbError::Superseded);
                }
                Ok(out) => {
                    // DynamoDB Local reports 2 units for any transaction;
                    // DynamoDB charges 2 per item and KB: count at least
                    // 2 per item, so that local figures are not flattered.
                    let reported: f64 = out
                        .consumed_capacity()
                        .iter()
                        .map(|c| {
                            c.write_capacity_units()
                                .or(c.capacity_units())
                                .unwrap_or(0.0)
                        })
                        .sum();
                    self.metrics
                        .add_write_units((2.0 * items.len() as f64 - reported).max(0.0));
                    self.request.committed.store(true, Ordering::SeqCst);
                    return Ok(());
                }
                Err(e) => return Err(e),
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
