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

use super::{Db, DbError, Item, actor};

/// What one request's transactions must also do when the request carries
/// an `Idempotency-Key`: mark the key's item committed, on condition that
/// this attempt still owns it.
#[derive(Clone, Debug)]
pub struct Marker {
    pub key: Item,
    pub attempt: String,
}

/// The most one request may read: a ceiling every route declares (its
/// `Limits`), checked before each read, so no request, whatever its input
/// or caller, costs more than this plus one call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Read calls (each a round trip).
    pub calls: u32,
    /// Read units consumed.
    pub read_units: f64,
}

/// Per-request state besides the metrics.
#[derive(Debug, Default)]
pub(super) struct RequestState {
    pub(super) budget: Mutex<Option<Budget>>,
    pub(super) marker: Mutex<Option<Marker>>,
    pub(super) committed: AtomicBool,
    pub(super) writes_started: AtomicBool,
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
