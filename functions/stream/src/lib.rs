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

use std::time::Duration;

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
        times::cleanup::TimeLeftovers,
    },
    stream::{line::ParkedLine, park, retry},
};

shared::grant! {
    // Reads: documents, repositories, owners, labels and milestones, jobs'
    // pages; writes: listing entries (batches), documents with their
    // counts (transactions: put, update, delete), jobs, and what deleted
    // issues leave (batches; their comments found by the comments' index).
    // Parked changes: their queues' heads (batch reads), put, updated
    // and deleted in transactions, found by due time (an index query).
    // Run locks due (an index query): a silent run failed (a transaction),
    // a live one filed again (update).
    table: &[
        GetItem, BatchGetItem, Query, PutItem, UpdateItem, DeleteItem, BatchWriteItem,
    ],
    indexes: &[Query],
    rare: &[],
}

/// What a scheduled run does: the webhook sweeper (deliveries due again),
/// the retries of parked changes, each with its log line and metrics, and
/// the runs whose runner went silent. Any failing fails the run, after
/// all had their turn.
pub fn scheduled<'a>(
    app: &'a App,
    db: &'a Db,
) -> BoxFuture<'a, Result<serde_json::Value, shared::Error>> {
    Box::pin(async move {
        let swept = shared::hooks::sweep::sweep(db).await;
        if let Ok(swept) = &swept {
            shared::hooks::line::swept(
                &app.config,
                "stream",
                swept.due,
                swept.touched,
                swept.lag_ms,
            );
        }
        let retried = retry_parked(app, db).await;
        let runs = shared::deploy::runs::silence::sweep(db, &app.config, &app.sealer).await;
        Ok(serde_json::json!({ "hooks": swept?, "parked": retried?, "runs": runs? }))
    })
}

/// Retries the parked changes that are due, then logs how many are left
/// and how old the oldest is.
fn retry_parked<'a>(
    app: &'a App,
    db: &'a Db,
) -> BoxFuture<'a, Result<retry::Retried, shared::Error>> {
    Box::pin(retry_parked_now(app, db))
}

async fn retry_parked_now(app: &App, db: &Db) -> Result<retry::Retried, shared::Error> {
    let now = shared::time::now_ms();
    let retried = retry::retry_due(db, &handlers(app), now).await?;
    let (total, oldest) = park::census(db).await?;
    ParkedLine {
        total,
        oldest_age: Duration::from_millis(oldest.map_or(0, |t| (now - t).max(0) as u64)),
        retried: retried.retried,
        unparked: retried.unparked,
    }
    .write(&app.config, "stream");
    Ok(retried)
}

/// The handlers of one batch, made afresh for each (so they may keep
/// caches for the batch), in the order they see each change: the search
/// index, the comment listings, deleted comments' reactions, deleted
/// issues' and repositories' tracked times, then
/// webhooks (events into deliveries, deliveries sent).
pub fn handlers(app: &App) -> Vec<Box<dyn shared::stream::Handler>> {
    vec![
        Box::new(Indexer::default()),
        Box::new(Stubs),
        Box::new(Leftovers),
        Box::new(TimeLeftovers),
        Box::new(Notifier::new(app.config.clone())),
        Box::new(Sender::new(app.config.clone())),
    ]
}
