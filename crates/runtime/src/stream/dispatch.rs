//! The handlers over a batch of changes, each on its own: a change one
//! handler fails on is parked for that handler ([`park`](super::park)) and
//! retried later, while the other handlers, and the later changes, go on.
//! A handler's later changes to a record with parked changes join them (in
//! order) unless the handler says their order does not matter.
//!
//! Order is kept per handler and record ([`Handler::record`]), not across
//! records: each handler's changes of one record form a lane, run in
//! stream order; a handler's lanes of one partition run up to
//! [`LANES_PER_PARTITION`] at once, and up to [`LANES_AT_ONCE`]
//! partitions side by side. A
//! batch's round trips then overlap instead of adding up (one record after
//! another, a batch of 100 changes took 280 to 365 sequential DynamoDB
//! calls), as Lambda's `ParallelizationFactor` does per partition key.
//!
//! The batch fails (Lambda's partial batch response: "from this record
//! on") only where a change can be neither handled nor parked, which takes
//! the table itself failing the consumer: the change and everything after
//! it are delivered again, and Lambda retries until the table answers
//! (the mapping never gives up on a batch).

use std::{collections::HashMap, time::Instant};

use futures::{StreamExt, future::BoxFuture};

use super::{
    Change, Handler,
    change::unpad_seq,
    park::{self, Parked},
};
use crate::{db::Db, time};

/// Partitions whose lanes run at once, at most: enough to overlap round
/// trips and, on a busy DynamoDB Local, to get the consumer its share of
/// the database next to the requests; few enough to stay within one
/// client's connections.
pub const LANES_AT_ONCE: usize = 32;

/// Lanes of one partition run at once, at most: as many as an owner's
/// index counters have shards, which the index spreads consecutive issue
/// numbers over (one at a time, a burst of creates in one repository
/// outran the consumer: a transaction's round trip per issue).
pub const LANES_PER_PARTITION: usize = 4;

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

/// One handler's changes of one record ([`Handler::record`]), in stream
/// order: positions in the batch.
struct Lane<'h> {
    handler: &'h dyn Handler,
    /// The handler's place in the list.
    at: usize,
    /// The partition of the record it keeps order by.
    pk: String,
    queue: String,
    changes: Vec<usize>,
}

/// The batch's lanes, in the order of their first change.
fn lanes<'h>(changes: &[Change], handlers: &'h [Box<dyn Handler>]) -> Vec<Lane<'h>> {
    let mut lanes: Vec<Lane<'h>> = Vec::new();
    let mut at: HashMap<(usize, String), usize> = HashMap::new();
    for (i, change) in changes.iter().enumerate() {
        for (h, handler) in handlers.iter().enumerate() {
            if !handler.wants(change) {
                continue;
            }
            let queue = park::queue_of(handler.as_ref(), change);
            let lane = *at.entry((h, queue.clone())).or_insert_with(|| {
                lanes.push(Lane {
                    handler: handler.as_ref(),
                    at: h,
                    pk: handler.record(change).0,
                    queue,
                    changes: Vec::new(),
                });
                lanes.len() - 1
            });
            lanes[lane].changes.push(i);
        }
    }
    lanes
}

/// Lanes grouped by handler and partition, in the order of their first
/// change.
fn by_partition(lanes: Vec<Lane<'_>>) -> Vec<Vec<Lane<'_>>> {
    let mut groups: Vec<Vec<Lane<'_>>> = Vec::new();
    let mut at: HashMap<(usize, String), usize> = HashMap::new();
    for lane in lanes {
        let group = *at.entry((lane.at, lane.pk.clone())).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[group].push(lane);
    }
    groups
}

/// What became of one lane: changes parked, and the first change it left
/// neither handled nor parked (it stops there).
#[derive(Default)]
struct LaneDone {
    parked: usize,
    stopped_at: Option<usize>,
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
    if deadline.is_some_and(|at| Instant::now() >= at) {
        tracing::warn!("out of time before the batch began: it is left for its redelivery");
        out.failed = vec![unpad_seq(&first.seq)];
        return out;
    }
    let lanes = lanes(changes, handlers);
    let ordered_queues = lanes
        .iter()
        .filter(|l| l.changes.iter().any(|&i| l.handler.ordered(&changes[i])))
        .map(|l| l.queue.clone())
        .collect();
    let parked = match Parked::load(db, ordered_queues).await {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(error = %e, "parked changes unreadable; the batch is delivered again");
            out.failed = vec![unpad_seq(&first.seq)];
            return out;
        }
    };
    let parked = &parked;
    // Each handler's read-ahead for its lanes, all at once.
    let wanted: Vec<Vec<&Change>> = handlers
        .iter()
        .map(|h| changes.iter().filter(|c| h.wants(c)).collect())
        .collect();
    futures::future::join_all(handlers.iter().zip(&wanted).map(|(h, w)| h.prepare(db, w))).await;
    // One handler's lanes of one partition run a few at a time (their
    // writes share items, such as an owner's counters, and would collide
    // as transactions); partitions run side by side. Boxed, and
    // made before they are streamed: the handlers' futures within them are
    // deep types.
    let runs: Vec<BoxFuture<'_, Vec<LaneDone>>> = by_partition(lanes)
        .into_iter()
        .map(|group| {
            Box::pin(async move {
                let mut lanes: Vec<BoxFuture<'_, LaneDone>> = Vec::new();
                for lane in group {
                    let held = parked.holds(&lane.queue);
                    lanes.push(Box::pin(lane_in_order(db, changes, lane, held, deadline)));
                }
                futures::stream::iter(lanes)
                    .buffer_unordered(LANES_PER_PARTITION)
                    .collect::<Vec<_>>()
                    .await
            }) as BoxFuture<'_, Vec<LaneDone>>
        })
        .collect();
    let done: Vec<LaneDone> = futures::stream::iter(runs)
        .buffer_unordered(LANES_AT_ONCE)
        .collect::<Vec<_>>()
        .await
        .into_iter()
        .flatten()
        .collect();
    out.parked = done.iter().map(|d| d.parked).sum();
    if let Some(i) = done.iter().filter_map(|d| d.stopped_at).min() {
        out.failed = vec![unpad_seq(&changes[i].seq)];
    }
    out
}

/// Runs one lane's changes in order. `held`: its queue holds parked
/// changes, which its ordered changes must join.
async fn lane_in_order(
    db: &Db,
    changes: &[Change],
    lane: Lane<'_>,
    mut held: bool,
    deadline: Option<Instant>,
) -> LaneDone {
    let mut out = LaneDone::default();
    let handler = lane.handler;
    if !held && lane.changes.len() > 1 {
        let run: Vec<&Change> = lane.changes.iter().map(|&i| &changes[i]).collect();
        if deadline.is_some_and(|at| Instant::now() >= at) {
            out.stopped_at = lane.changes.first().copied();
            return out;
        }
        if let Some(done) = handler.handle_run(db, &run) {
            let Err(e) = done.await else {
                return out;
            };
            let mut failure = e.to_string();
            for &i in &lane.changes {
                if !park_one(db, handler, &changes[i], &failure).await {
                    out.stopped_at = Some(i);
                    return out;
                }
                out.parked += 1;
                failure = BEHIND.to_string();
            }
            return out;
        }
    }
    for &i in &lane.changes {
        let change = &changes[i];
        if deadline.is_some_and(|at| Instant::now() >= at) {
            tracing::warn!(
                seq = %unpad_seq(&change.seq),
                "out of time: the rest of the batch is left for its redelivery"
            );
            out.stopped_at = Some(i);
            return out;
        }
        let failure = if handler.ordered(change) && held {
            BEHIND.to_string()
        } else {
            match handler.handle(db, change).await {
                Ok(()) => continue,
                Err(e) => e.to_string(),
            }
        };
        if !park_one(db, handler, change, &failure).await {
            out.stopped_at = Some(i);
            return out;
        }
        held = true;
        out.parked += 1;
    }
    out
}

/// Why a change that did not fail is parked.
const BEHIND: &str = "behind an earlier parked change of the same record";

/// Parks `change` for `handler`, which failed on it: whether it is parked
/// (if not, the batch is delivered again from it).
async fn park_one(db: &Db, handler: &dyn Handler, change: &Change, failure: &str) -> bool {
    // The error and where, never the item: images hold what users wrote.
    tracing::warn!(
        handler = handler.name(),
        seq = %unpad_seq(&change.seq),
        kind = change.kind.name(),
        error = %failure,
        "a stream handler's change is parked"
    );
    match park::park(db, handler, change, failure, time::now_ms()).await {
        Ok(()) => true,
        Err(e) => {
            tracing::error!(
                handler = handler.name(),
                seq = %unpad_seq(&change.seq),
                error = %e,
                "a change could not be parked; the batch is delivered again from it"
            );
            false
        }
    }
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

    /// (handler, sort key, unpadded sequence number) of each change handled.
    type Log = Arc<Mutex<Vec<(&'static str, String, String)>>>;

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
        /// "runs" handlers take a record's changes together.
        fn handle_run<'a>(
            &'a self,
            _db: &'a Db,
            changes: &'a [&'a Change],
        ) -> Option<crate::stream::Handled<'a>> {
            (self.name == "runs").then(|| -> crate::stream::Handled<'a> {
                let seqs: Vec<String> = changes.iter().map(|c| unpad_seq(&c.seq)).collect();
                let sk = changes[0].sk().to_string();
                self.log
                    .lock()
                    .unwrap()
                    .push((self.name, sk, seqs.join("+")));
                Box::pin(async { Ok(()) })
            })
        }
        fn handle<'a>(&'a self, _db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
            Box::pin(async move {
                self.log.lock().unwrap().push((
                    self.name,
                    change.sk().to_string(),
                    unpad_seq(&change.seq),
                ));
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

    /// Record REPO#1/a changes twice.
    fn batch() -> Vec<Change> {
        vec![
            change("000000000000000000001", "REPO#1", "a"),
            change("000000000000000000002", "OWNER#x", "b"),
            change("000000000000000000003", "REPO#1", "a"),
            change("000000000000000000004", "REPO#2", "d"),
        ]
    }

    fn seen(log: &Log) -> Vec<String> {
        let mut seen: Vec<String> = log
            .lock()
            .unwrap()
            .iter()
            .map(|(h, sk, seq)| format!("{h}:{sk}@{seq}"))
            .collect();
        seen.sort();
        seen
    }

    /// Each handler's changes of each record, in the order handled.
    fn per_record(log: &Log) -> HashMap<(&'static str, String), Vec<String>> {
        let mut out: HashMap<_, Vec<String>> = HashMap::new();
        for (h, sk, seq) in log.lock().unwrap().iter() {
            out.entry((*h, sk.clone())).or_default().push(seq.clone());
        }
        out
    }

    #[tokio::test]
    async fn every_wanting_handler_sees_every_change_in_order_per_record() {
        let log = Log::default();
        let done = dispatch(&db(), &batch(), &handlers(&log, &[], false)).await;
        assert_eq!(done, Dispatched::default());
        assert_eq!(
            seen(&log),
            [
                "all:a@1",
                "all:a@3",
                "all:b@2",
                "all:d@4",
                "repos:a@1",
                "repos:a@3",
                "repos:d@4"
            ],
            "`wants` filters"
        );
        let lanes = per_record(&log);
        assert_eq!(lanes[&("repos", "a".to_string())], ["1", "3"]);
        assert_eq!(lanes[&("all", "a".to_string())], ["1", "3"]);
    }

    #[tokio::test]
    async fn a_handler_may_take_a_records_changes_together() {
        let log = Log::default();
        let runs: Vec<Box<dyn Handler>> = vec![Box::new(Fake {
            name: "runs",
            prefix: "",
            fail_on: &[],
            ordered: false,
            log: log.clone(),
        })];
        let done = dispatch(&db(), &batch(), &runs).await;
        assert_eq!(done, Dispatched::default());
        assert_eq!(seen(&log), ["runs:a@1+3", "runs:b@2", "runs:d@4"]);
    }

    #[tokio::test]
    async fn a_change_neither_handled_nor_parked_fails_the_batch_from_it() {
        let log = Log::default();
        // Fails on a; the table is unreachable, so a@1 cannot be parked:
        // it is reported, and its record's later change is never tried.
        let done = dispatch(&db(), &batch(), &handlers(&log, &["a"], false)).await;
        assert_eq!(
            done.failed,
            ["1"],
            "unpadded, exactly the first failed record"
        );
        assert_eq!(done.parked, 0);
        assert_eq!(
            per_record(&log)[&("repos", "a".to_string())],
            ["1"],
            "the lane stops at its failure"
        );
        // Other records' lanes and other handlers ran; they see those
        // changes again with the redelivery (handlers are idempotent).
        assert!(seen(&log).contains(&"repos:d@4".to_string()));
        assert!(seen(&log).contains(&"all:a@3".to_string()));
    }

    #[tokio::test]
    async fn of_several_unparkable_changes_the_first_is_reported() {
        let log = Log::default();
        let mut hs = handlers(&log, &["d"], false);
        hs.push(Box::new(Fake {
            name: "owners",
            prefix: "OWNER#",
            fail_on: &["b"],
            ordered: false,
            log: log.clone(),
        }));
        // d@4 ("repos") and b@2 ("owners") can be neither handled nor
        // parked.
        let done = dispatch(&db(), &batch(), &hs).await;
        assert_eq!(done.failed, ["2"], "the earliest in stream order");
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
