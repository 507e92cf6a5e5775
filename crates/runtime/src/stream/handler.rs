//! What a piece of background work on the table's stream implements, and
//! what [`dispatch`](super::dispatch) calls it with.

use futures::future::BoxFuture;

use super::Change;
use crate::db::Db;

/// What handling comes to: a boxed future, as `dyn Handler` needs.
pub type Handled<'a> = BoxFuture<'a, Result<(), crate::Error>>;

/// Background work on the table's changes. The consumer builds its handlers
/// afresh for each batch, so a handler may keep caches for the batch with
/// interior mutability. Its changes of different records are handled side
/// by side: a handler whose result for one item depends on another's
/// changes says so with [`record`](Handler::record).
pub trait Handler: Send + Sync {
    /// Its name, which also names its parked changes' queues: keep it.
    fn name(&self) -> &'static str;
    /// Whether this handler cares (cheap, on keys only).
    fn wants(&self, change: &Change) -> bool;
    /// Whether `change` must wait behind the handler's parked changes to
    /// the same record (the default). A handler whose result does not
    /// depend on the order of one record's changes says `false`, and its
    /// changes are handled at once even when an earlier one is parked.
    fn ordered(&self, _change: &Change) -> bool {
        true
    }
    /// The record (pk, sk) whose changes this handler keeps in order: the
    /// changed item itself by default. A handler whose result for one item
    /// depends on another's changes names that other item, so that both
    /// share one queue when parked (the index files a comment's words into
    /// its issue's document).
    fn record(&self, change: &Change) -> (String, String) {
        (change.pk().to_string(), change.sk().to_string())
    }
    /// Reads ahead, once per batch, what the handler's lanes will need
    /// (`changes`: the batch's changes it wants), so that they need not
    /// each read it in turn. It cannot fail: what it could not read, the
    /// lanes read themselves.
    fn prepare<'a>(&'a self, _db: &'a Db, _changes: &'a [&'a Change]) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    /// Handles a lane's changes (one record's, in stream order) together,
    /// where that costs less than one by one (the index reads and writes an
    /// issue's document once for all of them); `None`: one by one, as by
    /// default. An error parks them all, in order.
    fn handle_run<'a>(&'a self, _db: &'a Db, _changes: &'a [&'a Change]) -> Option<Handled<'a>> {
        None
    }
    /// Handles one change. An error parks the change for this handler
    /// (retried until it succeeds), so it must be idempotent: a change may
    /// be handled again after it succeeded (a batch delivered again).
    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> Handled<'a>;
    /// Work gathered over the batch, run once after its last change (or
    /// where it stopped): what may run side by side, such as webhook
    /// sends. It cannot fail the batch, so it must leave what it could not
    /// finish where something else takes it up (a due time).
    fn finish<'a>(&'a self, _db: &'a Db) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
