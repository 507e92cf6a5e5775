//! What a [`Db`] handle knows of the request it serves, besides its
//! metrics: the idempotency marker its transactions carry, its read
//! budget, its deadline, who it writes for, and whether it wrote.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use super::{Budget, Db, DbError, Item, actor};

/// What one request's transactions must also do when the request carries
/// an `Idempotency-Key`: mark the key's item committed, on condition that
/// this attempt still owns it.
#[derive(Clone, Debug)]
pub struct Marker {
    pub key: Item,
    pub attempt: String,
}

/// Per-request state besides the metrics.
#[derive(Debug, Default)]
pub(super) struct RequestState {
    pub(super) budget: Mutex<Option<Budget>>,
    pub(super) marker: Mutex<Option<Marker>>,
    pub(super) committed: AtomicBool,
    pub(super) writes_started: AtomicBool,
    /// Reads sent so far, counted as they start: reads launched at once
    /// are each held to the budget, not only those that came back.
    pub(super) reads_started: std::sync::atomic::AtomicU32,
    /// When the request must have answered.
    deadline: Mutex<Option<std::time::Instant>>,
    /// On whose behalf it writes (signed-in callers).
    actor: Mutex<Option<actor::Actor>>,
}

impl Db {
    /// Makes every later transaction of this request mark `marker`'s item
    /// (`None`: no longer).
    pub fn mark_idempotent(&self, marker: Option<Marker>) {
        *self
            .request
            .marker
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = marker;
    }

    /// A keyed request must change things through transactions, which
    /// carry its marker: a single put or delete could not tell a retry
    /// whether it happened. (Counter `ADD`s for ids are fine: a retry that
    /// takes the next id only leaves a gap.)
    pub(super) fn assert_unkeyed(&self, what: &str) {
        debug_assert!(
            self.request
                .marker
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_none(),
            "a {what} in a request with an Idempotency-Key: write through a transaction"
        );
    }

    /// Makes `actor` the author of what this request writes through
    /// [`Db::stamp`].
    pub fn set_actor(&self, actor: actor::Actor) {
        *self.request.actor.lock().unwrap_or_else(|p| p.into_inner()) = Some(actor);
    }

    /// The request's actor (signed-in callers), if any.
    pub fn actor(&self) -> Option<actor::Actor> {
        self.request
            .actor
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Names the request's actor in `item`, a change that notifies (see
    /// [`actor`]); background work has none and writes none.
    pub fn stamp(&self, mut item: Item) -> Result<Item, DbError> {
        let actor = self
            .request
            .actor
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some(a) = actor {
            a.stamp(&mut item)?;
        }
        Ok(item)
    }

    /// Limits what the rest of this request may read.
    pub fn set_budget(&self, budget: Budget) {
        *self
            .request
            .budget
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(budget);
    }

    /// When the request must have answered (cleanup after a committed delete
    /// stops in time for it).
    pub fn set_deadline(&self, at: std::time::Instant) {
        *self
            .request
            .deadline
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(at);
    }

    /// How long work that may be cut short can still take in this request.
    pub fn time_left(&self, most: Duration) -> Duration {
        const MARGIN: Duration = Duration::from_secs(1);
        let deadline = *self
            .request
            .deadline
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        match deadline {
            Some(at) => most.min(at.saturating_duration_since(std::time::Instant::now() + MARGIN)),
            None => most,
        }
    }

    /// Forgets that writes were sent (the idempotency claim's own write
    /// does not make a request's outcome unknown).
    pub fn forget_writes(&self) {
        self.request.writes_started.store(false, Ordering::SeqCst);
    }

    /// Whether a transaction of this request committed.
    pub fn committed(&self) -> bool {
        self.request.committed.load(Ordering::SeqCst)
    }

    /// Whether this request has sent a write (its outcome may be unknown).
    pub fn writes_started(&self) -> bool {
        self.request.writes_started.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::keys;
    use futures::StreamExt;

    #[tokio::test]
    async fn reads_sent_at_once_are_each_held_to_the_budget() {
        // A loopback listener that takes connections and never answers:
        // reads within the budget stay in flight, those past it are
        // refused before they are sent.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let at = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((conn, _)) = listener.accept().await {
                held.push(conn);
            }
        });
        let endpoint = format!("http://{at}");
        let config = base::Config::from_lookup(|k| match k {
            "TABLE_NAME" => Some("t".into()),
            "DYNAMODB_ENDPOINT" => Some(endpoint.clone()),
            _ => None,
        })
        .unwrap();
        let db = Db::new(crate::db::connect(&config).await, "t").for_request();
        db.set_budget(Budget {
            calls: 2,
            read_units: 1000.0,
        });
        let mut reads: futures::stream::FuturesUnordered<_> = (0..5)
            .map(|i| db.get(keys::key("P", &i.to_string())))
            .collect();
        let mut refused = 0;
        while let Ok(Some(done)) =
            tokio::time::timeout(Duration::from_millis(500), reads.next()).await
        {
            assert!(matches!(done, Err(DbError::OverBudget { .. })), "{done:?}");
            refused += 1;
        }
        assert_eq!(
            refused, 3,
            "two reads fit the budget, however many are in flight"
        );
    }
}
