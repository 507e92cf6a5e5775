//! The handlers over a batch of changes, in stream order, stopping at the
//! first failure (Lambda's partial batch response can only say "from this
//! record on": a stream is consumed in order, so a later change must not
//! be applied before an earlier one that failed).

use std::time::Instant;

use futures::future::BoxFuture;

use super::{Change, change::unpad_seq};
use crate::db::Db;

/// Background work on the table's changes. The consumer builds its handlers
/// afresh for each batch, so a handler may keep caches for the batch with
/// interior mutability.
pub trait Handler: Send + Sync {
    fn name(&self) -> &'static str;
    /// Whether this handler cares (cheap, on keys only).
    fn wants(&self, change: &Change) -> bool;
    /// Handles one change. An error stops the batch at this record: it is reported as the first failure, so it and everything after it are delivered again (handlers must be idempotent).
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

/// Runs every handler that wants each change, in order; returns the sequence numbers (as received, unpadded) to report as batch item failures: empty, or exactly the first failed record's.
pub async fn dispatch(db: &Db, changes: &[Change], handlers: &[Box<dyn Handler>]) -> Vec<String> {
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
) -> Vec<String> {
    let failed = in_order(db, changes, handlers, deadline).await;
    for handler in handlers {
        handler.finish(db).await;
    }
    failed
}

async fn in_order(
    db: &Db,
    changes: &[Change],
    handlers: &[Box<dyn Handler>],
    deadline: Option<Instant>,
) -> Vec<String> {
    for change in changes {
        if deadline.is_some_and(|at| Instant::now() >= at) {
            tracing::warn!(
                seq = %unpad_seq(&change.seq),
                "out of time: the rest of the batch is left for its redelivery"
            );
            return vec![unpad_seq(&change.seq)];
        }
        for handler in handlers.iter().filter(|h| h.wants(change)) {
            if let Err(e) = handler.handle(db, change).await {
                // The error and where, never the item: images hold what
                // users wrote.
                tracing::error!(
                    handler = handler.name(),
                    seq = %unpad_seq(&change.seq),
                    kind = change.kind.name(),
                    error = %e,
                    "a stream handler failed; the batch is redelivered from this record"
                );
                return vec![unpad_seq(&change.seq)];
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
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
        log: Log,
    }

    impl Handler for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn wants(&self, change: &Change) -> bool {
            change.pk().starts_with(self.prefix)
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

    /// A handle that could reach no database (the fakes never call it).
    fn db() -> Db {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .endpoint_url("http://127.0.0.1:9")
            .build();
        Db::with_client(aws_sdk_dynamodb::Client::from_conf(config), "t")
    }

    fn handlers(log: &Log, fail_on: &'static [&'static str]) -> Vec<Box<dyn Handler>> {
        vec![
            Box::new(Fake {
                name: "repos",
                prefix: "REPO#",
                fail_on,
                log: log.clone(),
            }),
            Box::new(Fake {
                name: "all",
                prefix: "",
                fail_on: &[],
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
        let failed = dispatch(&db(), &batch(), &handlers(&log, &[])).await;
        assert_eq!(failed, Vec::<String>::new());
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
    async fn the_first_failure_stops_the_batch_and_is_reported_alone() {
        let log = Log::default();
        // Fails on c, and would on d: only c is reported, d is never tried.
        let failed = dispatch(&db(), &batch(), &handlers(&log, &["c", "d"])).await;
        assert_eq!(failed, ["3"], "unpadded, exactly the first failed record");
        let seen = log.lock().unwrap().clone();
        let want = [("repos", "a"), ("all", "a"), ("all", "b"), ("repos", "c")];
        assert_eq!(
            seen,
            want.map(|(h, sk)| (h, sk.to_string())),
            "nothing after the failing handler runs, not even the next handler of the same change"
        );
    }

    #[tokio::test]
    async fn no_handlers_or_no_changes_fail_nothing() {
        assert!(dispatch(&db(), &batch(), &[]).await.is_empty());
        let log = Log::default();
        assert!(
            dispatch(&db(), &[], &handlers(&log, &["a"]))
                .await
                .is_empty()
        );
        assert!(log.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_change_past_the_deadline_is_left_for_redelivery() {
        let log = Log::default();
        let past = Instant::now() - Duration::from_millis(1);
        let failed = dispatch_until(&db(), &batch(), &handlers(&log, &[]), Some(past)).await;
        assert_eq!(failed, ["1"]);
        assert!(log.lock().unwrap().is_empty());
        let later = Instant::now() + Duration::from_secs(60);
        let failed = dispatch_until(&db(), &batch(), &handlers(&log, &[]), Some(later)).await;
        assert!(failed.is_empty());
    }
}
