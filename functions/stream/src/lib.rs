//! Stream function: the one consumer of the table's DynamoDB stream. Each
//! batch of changes goes, in stream order, to the handlers of
//! [`handlers`] that want it (`shared::stream`); what a handler fails on is
//! delivered again, with everything after it.
//!
//! To add background work: write a `shared::stream::Handler` in `shared`
//! (next to the area it serves), list it in [`handlers`], and add the
//! DynamoDB actions it calls to the grant below (`table` for the table,
//! `indexes` for index queries, in IAM's terms), then `make routes`, which
//! writes them into this function's policy in template.yaml.

use futures::future::BoxFuture;
use shared::{
    app::App,
    db::{
        Action::{BatchGetItem, BatchWriteItem, DeleteItem, GetItem, PutItem, Query, UpdateItem},
        Db,
    },
    hooks::{notify::Notifier, send::Sender},
    issues::{
        index::{Indexer, stubs::Stubs},
        reactions::cleanup::Leftovers,
    },
};

shared::grant! {
    // Reads: documents, repositories, owners, labels and milestones, jobs'
    // pages; writes: listing entries (batches), documents with their
    // counts (transactions: put, update, delete), jobs, and what deleted
    // issues leave (batches; their comments found by the comments' index).
    table: &[
        GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem, BatchWriteItem,
    ],
    indexes: &[Query],
    rare: &[],
}

/// What a scheduled run does: the webhook sweeper (deliveries due again),
/// with its log line and metrics.
pub fn scheduled<'a>(
    app: &'a App,
    db: &'a Db,
) -> BoxFuture<'a, Result<serde_json::Value, shared::Error>> {
    Box::pin(async move {
        let swept = shared::hooks::sweep::sweep(db).await?;
        shared::hooks::line::swept(
            &app.config,
            "stream",
            swept.due,
            swept.touched,
            swept.lag_ms,
        );
        Ok(serde_json::to_value(swept).unwrap_or_default())
    })
}

/// The handlers of one batch, made afresh for each (so they may keep
/// caches for the batch), in the order they see each change: the search
/// index, the comment listings, deleted comments' reactions, then
/// webhooks (events into deliveries, deliveries sent).
pub fn handlers(app: &App) -> Vec<Box<dyn shared::stream::Handler>> {
    vec![
        Box::new(Indexer::default()),
        Box::new(Stubs),
        Box::new(Leftovers),
        Box::new(Notifier::new(app.config.clone())),
        Box::new(Sender::new(app.config.clone())),
    ]
}
