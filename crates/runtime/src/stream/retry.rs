//! The parked changes' sweeper: a scheduled run of the stream function
//! (every minute on AWS, every second under the local pump) takes the
//! queues that are due ([`park`]'s `PARKDUE` filing), each under a lease,
//! and hands their changes, in stream order, to the handler that parked
//! them. A change that succeeds leaves its queue; the first that fails
//! again stops its queue until the [`backoff`](park::backoff) has passed.
//! Queues go side by side, at most [`AT_ONCE`] at a time, until
//! [`TIME_BUDGET`] is spent; the rest waits for the next run.

use std::time::{Duration, Instant};

use futures::{StreamExt, future::BoxFuture};
use serde::Serialize;

use super::{Handler, park};
use crate::db::{self, Db, DbError, Query, Range, keys, table};

/// Queues read per page of the due filing.
const PAGE: i32 = 50;
/// Changes of one queue taken per claim.
const CHANGES: i32 = 25;
/// Queues retried at once.
pub const AT_ONCE: usize = 8;
/// No new page is started after this much of a run (the function's own
/// time-out is 120 s).
pub const TIME_BUDGET: Duration = Duration::from_secs(30);

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Retried {
    /// Queues due.
    pub due: usize,
    /// Changes handed to their handler again.
    pub retried: usize,
    /// Of those, the ones that succeeded and left their queue.
    pub unparked: usize,
}

impl std::ops::AddAssign for Retried {
    fn add_assign(&mut self, o: Self) {
        self.due += o.due;
        self.retried += o.retried;
        self.unparked += o.unparked;
    }
}

/// Retries the queues due by `now_ms` with `handlers` (the consumer's, by
/// name), then lets each handler finish its work.
pub async fn retry_due(
    db: &Db,
    handlers: &[Box<dyn Handler>],
    now_ms: i64,
) -> Result<Retried, DbError> {
    let started = Instant::now();
    let upto = format!("{now_ms:013}#~");
    let mut out = Retried::default();
    // The due filing (`gsi1`).
    let index = table::INDEXES[0];
    let mut cursor = None;
    let result = loop {
        let query = Query::index(index, keys::PARKED_DUE_PK)
            .range(Range::AtMost(upto.clone()))
            .fields(&[table::PK, index.sk])
            .limit(PAGE)
            .after(cursor.take());
        let page = match db.query_page(query).await {
            Ok(page) => page,
            Err(e) => break Err(e),
        };
        out.due += page.items.len();
        let due: Vec<(String, String)> = page
            .items
            .iter()
            .map(|i| {
                (
                    db::text(i, "pk").to_string(),
                    db::text(i, "gsi1sk").to_string(),
                )
            })
            .collect();
        let runs: Vec<Retried> = futures::stream::iter(due)
            // Boxed: the futures of handlers within it are deep types.
            .map(|(pk, filed)| -> BoxFuture<'_, Retried> {
                Box::pin(queue(db, handlers, pk, filed, now_ms))
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        for r in runs {
            out += r;
        }
        cursor = page.next;
        if cursor.is_none() || started.elapsed() >= TIME_BUDGET {
            break Ok(out);
        }
    };
    for handler in handlers {
        handler.finish(db).await;
    }
    result
}

/// One due queue (`pk`, filed as `filed`): claimed, then its front
/// retried in order.
async fn queue(
    db: &Db,
    handlers: &[Box<dyn Handler>],
    pk: String,
    filed: String,
    now_ms: i64,
) -> Retried {
    let pk = pk.as_str();
    let mut out = Retried::default();
    let outcome: Result<(), DbError> = async {
        let Some(q) = park::claim(db, pk, &filed, now_ms).await? else {
            return Ok(());
        };
        let Some(handler) = handlers.iter().find(|h| h.name() == q.handler) else {
            // Parked by a handler this code does not have (a deploy in
            // progress): its lease runs out, and the code that has it
            // takes the queue up.
            tracing::warn!(queue = pk, handler = %q.handler, "no such handler here");
            return Ok(());
        };
        let claimed = Instant::now();
        for change in park::front(db, pk, CHANGES).await? {
            // Well within the claim's lease: the rest waits for a later
            // run rather than risk a second sweep handling it alongside.
            if claimed.elapsed() >= park::LEASE / 2 {
                break;
            }
            out.retried += 1;
            if let Err(e) = handler.handle(db, &change).await {
                tracing::warn!(queue = pk, handler = %q.handler, attempts = q.attempts + 1,
                    error = %e, "a parked change failed again");
                return park::retry_later(db, pk, q.attempts + 1, &e.to_string(), now_ms).await;
            }
            park::unpark(db, pk, &change, now_ms).await?;
            out.unparked += 1;
        }
        park::release(db, pk, crate::time::now_ms()).await
    }
    .await;
    if let Err(e) = outcome {
        // The claim's lease brings the queue back.
        tracing::warn!(queue = pk, error = %e, "a parked queue was left for its lease to run out");
    }
    out
}
