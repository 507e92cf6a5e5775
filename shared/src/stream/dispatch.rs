//! The handlers over a batch of changes, in stream order, each on its own:
//! a change one handler fails on is parked for that handler
//! ([`park`](super::park)) and retried later, while the other handlers,
//! and the later changes, go on. A handler's later changes to a record
//! with parked changes join them (in order) unless the handler says their
//! order does not matter.
//!
//! The batch fails (Lambda's partial batch response: "from this record
//! on") only where a change can be neither handled nor parked, which takes
//! the table itself failing the consumer: the change and everything after
//! it are delivered again, and Lambda retries until the table answers
//! (the mapping never gives up on a batch).

use std::{collections::HashSet, time::Instant};

use futures::future::BoxFuture;

use super::{
    Change,
    change::unpad_seq,
    park::{self, Parked},
};
use crate::{db::Db, time};

/// Background work on the table's changes. The consumer builds its handlers
/// afresh for each batch, so a handler may keep caches for the batch with
/// interior mutability.
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
    /// Handles one change. An error parks the change for this handler
    /// (retried until it succeeds), so it must be idempotent: a change may
    /// be handled again after it succeeded (a batch delivered again).
    fn handle<'a>(
        &'a self,
        db: &'a Db,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<(), crate::Error>>;
    /// Work gathered over the batch, run once after its last change (or
    /// where it stopped): what may run side by side, such as webhook
    /// sends. It cannot fail the batch, so it must leave what it could not
    /// finish where something else takes it up (a due time).
    fn finish<'a>(&'a self, _db: &'a Db) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// What became of a batch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dispatched {
    /// The sequence numbers (as received, unpadded) to report as batch
    /// item failures: empty, or exactly the first record neither handled
    /// nor parked.
    pub failed: Vec<String>,
    /// Changes parked, one per handler that parked one.
    pub parked: usize,
}

/// Runs every handler that wants each change, in order, parking what
/// fails (see the module's documentation).
pub async fn dispatch(db: &Db, changes: &[Change], handlers: &[Box<dyn Handler>]) -> Dispatched {
    dispatch_until(db, changes, handlers, None).await
}

/// [`dispatch`], stopping before a change that would start after
/// `deadline`: that change is reported as the first failure (not done yet,
/// so delivered again), so a batch that runs out of time keeps what it
/// finished instead of failing whole when Lambda stops the function.
pub async fn dispatch_until(
    db: &Db,
    changes: &[Change],
    handlers: &[Box<dyn Handler>],
    deadline: Option<Instant>,
) -> Dispatched {
    // Boxed: the handlers' futures within it are deep types.
    let done: BoxFuture<'_, Dispatched> = Box::pin(in_order(db, changes, handlers, deadline));
    let done = done.await;
    for handler in handlers {
        handler.finish(db).await;
    }
    done
}

/// The queues the batch's changes could have to wait behind.
fn queues(changes: &[Change], handlers: &[Box<dyn Handler>]) -> HashSet<String> {
    changes
        .iter()
        .flat_map(|c| {
            handlers
                .iter()
                .filter(|h| h.wants(c) && h.ordered(c))
                .map(|h| park::queue_pk(h.name(), c))
        })
        .collect()
}

async fn in_order(
    db: &Db,
    changes: &[Change],
    handlers: &[Box<dyn Handler>],
    deadline: Option<Instant>,
) -> Dispatched {
    let mut out = Dispatched::default();
    let Some(first) = changes.first() else {
        return out;
    };
    let mut parked = match Parked::load(db, queues(changes, handlers)).await {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(error = %e, "parked changes unreadable; the batch is delivered again");
            out.failed = vec![unpad_seq(&first.seq)];
            return out;
        }
    };
    for change in changes {
        if deadline.is_some_and(|at| Instant::now() >= at) {
            tracing::warn!(
                seq = %unpad_seq(&change.seq),
                "out of time: the rest of the batch is left for its redelivery"
            );
            out.failed = vec![unpad_seq(&change.seq)];
            return out;
        }
        for handler in handlers.iter().filter(|h| h.wants(change)) {
            let queue = park::queue_pk(handler.name(), change);
            let failure = if handler.ordered(change) && parked.holds(&queue) {
                "behind an earlier parked change of the same record".to_string()
            } else {
                match handler.handle(db, change).await {
                    Ok(()) => continue,
                    Err(e) => e.to_string(),
                }
            };
            // The error and where, never the item: images hold what users
            // wrote.
            tracing::warn!(
                handler = handler.name(),
                seq = %unpad_seq(&change.seq),
                kind = change.kind.name(),
                error = %failure,
                "a stream handler's change is parked"
            );
            if let Err(e) = park::park(db, handler.name(), change, &failure, time::now_ms()).await {
                tracing::error!(
                    handler = handler.name(),
                    seq = %unpad_seq(&change.seq),
                    error = %e,
                    "a change could not be parked; the batch is delivered again from it"
                );
                out.failed = vec![unpad_seq(&change.seq)];
                return out;
            }
            parked.add(queue);
            out.parked += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    //! Without a database: handlers whose order does not matter need no
    //! read of the parked queues, and a failure cannot be parked, so it
    //! fails the batch. Parking itself is tested on DynamoDB Local
    //! (functions/stream/tests/park.rs).
    use std::{
        sync::{Arc, Mutex},
        time::Duration,
    };

    use super::*;
    use crate::{
        db::keys,
        stream::{ChangeKind, pad_seq},
    };

    type Log = Arc<Mutex<Vec<(&'static str, String)>>>;

    /// Records what it handled; wants the changes whose pk starts with
    /// `prefix`; fails on the sort keys in `fail_on`.
    struct Fake {
        name: &'static str,
        prefix: &'static str,
        fail_on: &'static [&'static str],
        ordered: bool,
        log: Log,
    }

    impl Handler for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn wants(&self, change: &Change) -> bool {
            change.pk().starts_with(self.prefix)
        }
        fn ordered(&self, _change: &Change) -> bool {
            self.ordered
        }
        fn handle<'a>(
            &'a self,
            _db: &'a Db,
            change: &'a Change,
        ) -> BoxFuture<'a, Result<(), crate::Error>> {
            Box::pin(async move {
                self.log
                    .lock()
                    .unwrap()
                    .push((self.name, change.sk().to_string()));
                if self.fail_on.contains(&change.sk()) {
                    return Err(crate::Error::Unavailable("throttled".into()));
                }
                Ok(())
            })
        }
    }

    fn change(seq: &str, pk: &str, sk: &str) -> Change {
        Change {
            seq: pad_seq(seq),
            kind: ChangeKind::Modify,
            keys: keys::key(pk, sk),
            old: None,
            new: Some(keys::key(pk, sk)),
            at_ms: 0,
        }
    }

    /// A handle that could reach no database.
    fn db() -> Db {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .endpoint_url("http://127.0.0.1:9")
            .build();
        Db::with_client(aws_sdk_dynamodb::Client::from_conf(config), "t")
    }

    fn handlers(
        log: &Log,
        fail_on: &'static [&'static str],
        ordered: bool,
    ) -> Vec<Box<dyn Handler>> {
        vec![
            Box::new(Fake {
                name: "repos",
                prefix: "REPO#",
                fail_on,
                ordered,
                log: log.clone(),
            }),
            Box::new(Fake {
                name: "all",
                prefix: "",
                fail_on: &[],
                ordered,
                log: log.clone(),
            }),
        ]
    }

    fn batch() -> Vec<Change> {
        vec![
            change("000000000000000000001", "REPO#1", "a"),
            change("000000000000000000002", "OWNER#x", "b"),
            change("000000000000000000003", "REPO#1", "c"),
            change("000000000000000000004", "REPO#2", "d"),
        ]
    }

    #[tokio::test]
    async fn every_wanting_handler_sees_every_change_in_order() {
        let log = Log::default();
        let done = dispatch(&db(), &batch(), &handlers(&log, &[], false)).await;
        assert_eq!(done, Dispatched::default());
        let seen = log.lock().unwrap().clone();
        let want = [
            ("repos", "a"),
            ("all", "a"),
            ("all", "b"),
            ("repos", "c"),
            ("all", "c"),
            ("repos", "d"),
            ("all", "d"),
        ];
        assert_eq!(
            seen,
            want.map(|(h, sk)| (h, sk.to_string())),
            "handlers in registration order, changes in stream order, `wants` filtering"
        );
    }

    #[tokio::test]
    async fn a_change_neither_handled_nor_parked_fails_the_batch_from_it() {
        let log = Log::default();
        // Fails on c, and would on d; the table is unreachable, so c cannot
        // be parked: c is reported, d is never tried.
        let done = dispatch(&db(), &batch(), &handlers(&log, &["c", "d"], false)).await;
        assert_eq!(
            done.failed,
            ["3"],
            "unpadded, exactly the first failed record"
        );
        assert_eq!(done.parked, 0);
        let seen = log.lock().unwrap().clone();
        let want = [("repos", "a"), ("all", "a"), ("all", "b"), ("repos", "c")];
        assert_eq!(
            seen,
            want.map(|(h, sk)| (h, sk.to_string())),
            "nothing after the failing handler runs, not even the next handler of the same change"
        );
    }

    #[tokio::test]
    async fn without_the_parked_queues_an_ordered_batch_does_not_start() {
        let log = Log::default();
        let done = dispatch(&db(), &batch(), &handlers(&log, &[], true)).await;
        assert_eq!(done.failed, ["1"]);
        assert!(log.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn no_handlers_or_no_changes_fail_nothing() {
        assert!(dispatch(&db(), &batch(), &[]).await.failed.is_empty());
        let log = Log::default();
        assert!(
            dispatch(&db(), &[], &handlers(&log, &["a"], true))
                .await
                .failed
                .is_empty()
        );
        assert!(log.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_change_past_the_deadline_is_left_for_redelivery() {
        let log = Log::default();
        let past = Instant::now() - Duration::from_millis(1);
        let done = dispatch_until(&db(), &batch(), &handlers(&log, &[], false), Some(past)).await;
        assert_eq!(done.failed, ["1"]);
        assert!(log.lock().unwrap().is_empty());
        let later = Instant::now() + Duration::from_secs(60);
        let done = dispatch_until(&db(), &batch(), &handlers(&log, &[], false), Some(later)).await;
        assert!(done.failed.is_empty());
    }
}
