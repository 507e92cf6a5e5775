//! Parked changes on DynamoDB Local, each test on a table of its own: a
//! handler that fails parks its change and the batch goes on; its later
//! changes of the same record wait behind it (unless their order does not
//! matter); the scheduled retry hands them over in order once it
//! succeeds, with backoff while it does not.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicBool, Ordering},
};

use shared::{
    db::{self, Db, keys},
    stream::{Change, ChangeKind, Handler, dispatch, pad_seq, park, retry},
};

type Log = Arc<Mutex<Vec<String>>>;

/// Wants the repository partitions' changes; while `failing`, fails on
/// the records whose sort key is in `fails_on`. Logs what it handled as
/// `sk@version`.
struct Flaky {
    name: &'static str,
    fails_on: &'static [&'static str],
    failing: Arc<AtomicBool>,
    ordered: bool,
    log: Log,
}

impl Handler for Flaky {
    fn name(&self) -> &'static str {
        self.name
    }
    fn wants(&self, change: &Change) -> bool {
        change.pk().starts_with("REPO#")
    }
    fn ordered(&self, _change: &Change) -> bool {
        self.ordered
    }
    fn handle<'a>(&'a self, _db: &'a Db, change: &'a Change) -> shared::stream::Handled<'a> {
        Box::pin(async move {
            if self.failing.load(Ordering::SeqCst) && self.fails_on.contains(&change.sk()) {
                return Err(shared::Error::Unavailable("throttled".into()));
            }
            let v = change.new.as_ref().map_or(0, |i| db::number(i, "v"));
            self.log
                .lock()
                .unwrap()
                .push(format!("{}@{v}", change.sk()));
            Ok(())
        })
    }
}

struct Setup {
    db: Db,
    failing: Arc<AtomicBool>,
    flaky: Log,
    steady: Log,
    handlers: Vec<Box<dyn Handler>>,
}

async fn setup(ordered: bool) -> Setup {
    let app = shared::testing::app().await;
    // The consumer's own grant: parking calls nothing it lacks.
    let db = app.db.for_request().granted(&stream::DYNAMODB);
    let failing = Arc::new(AtomicBool::new(true));
    let (flaky, steady) = (Log::default(), Log::default());
    let handlers: Vec<Box<dyn Handler>> = vec![
        Box::new(Flaky {
            name: "flaky",
            fails_on: &["ISSUE#1"],
            failing: failing.clone(),
            ordered,
            log: flaky.clone(),
        }),
        Box::new(Flaky {
            name: "steady",
            fails_on: &[],
            failing: failing.clone(),
            ordered: true,
            log: steady.clone(),
        }),
    ];
    Setup {
        db,
        failing,
        flaky,
        steady,
        handlers,
    }
}

/// Version `v` of record `sk` (repository 1), as change number `seq`.
fn change(seq: u64, sk: &str, v: i64) -> Change {
    let mut new = keys::key("REPO#1", sk);
    new.insert("v".into(), db::n(v));
    Change {
        seq: pad_seq(&seq.to_string()),
        kind: ChangeKind::Modify,
        keys: keys::key("REPO#1", sk),
        old: None,
        new: Some(new),
        at_ms: shared::time::now_ms(),
    }
}

fn batch() -> Vec<Change> {
    vec![
        change(1, "ISSUE#1", 1),
        change(2, "ISSUE#2", 1),
        change(3, "ISSUE#1", 2),
    ]
}

async fn parked_count(db: &Db) -> i64 {
    db.get(keys::parked_count())
        .await
        .unwrap()
        .map_or(0, |i| db::number(&i, "n"))
}

fn seen(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

#[tokio::test]
async fn a_failing_handler_parks_in_order_and_the_others_go_on() {
    let s = setup(true).await;
    // Before anything was parked: nothing can be due by then, however slow
    // the machine.
    let before = shared::time::now_ms();
    let done = dispatch(&s.db, &batch(), &s.handlers).await;
    assert!(done.failed.is_empty(), "nothing handed back: {done:?}");
    assert_eq!(
        done.parked, 2,
        "ISSUE#1's first change failed, its second waits behind it"
    );
    assert_eq!(seen(&s.flaky), ["ISSUE#2@1"], "the other record went on");
    // In order per record; records side by side.
    let mut steady = seen(&s.steady);
    steady.sort();
    assert_eq!(
        steady,
        ["ISSUE#1@1", "ISSUE#1@2", "ISSUE#2@1"],
        "the other handler saw everything"
    );
    assert_eq!(parked_count(&s.db).await, 2);

    // The same batch delivered again parks nothing twice.
    dispatch(&s.db, &batch(), &s.handlers).await;
    assert_eq!(parked_count(&s.db).await, 2);

    // Not due yet: nothing retried.
    let now = shared::time::now_ms();
    let r = retry::retry_due(&s.db, &s.handlers, before - 1_000)
        .await
        .unwrap();
    assert_eq!(r, retry::Retried::default());

    // Due, still failing: tried once, then due after the backoff.
    let r = retry::retry_due(&s.db, &s.handlers, now + 2_000)
        .await
        .unwrap();
    assert_eq!((r.due, r.retried, r.unparked), (1, 1, 0));
    let r = retry::retry_due(&s.db, &s.handlers, now + 2_500)
        .await
        .unwrap();
    assert_eq!(r.due, 0, "backing off");

    // Mended: both changes, in stream order, and the queue is gone.
    s.failing.store(false, Ordering::SeqCst);
    let r = retry::retry_due(&s.db, &s.handlers, now + 10_000)
        .await
        .unwrap();
    assert_eq!((r.due, r.retried, r.unparked), (1, 2, 2));
    assert_eq!(
        seen(&s.flaky),
        // ISSUE#2 twice: the batch was delivered twice.
        ["ISSUE#2@1", "ISSUE#2@1", "ISSUE#1@1", "ISSUE#1@2"]
    );
    assert_eq!(parked_count(&s.db).await, 0);
    let queue = park::queue_of(s.handlers[0].as_ref(), &change(1, "ISSUE#1", 1));
    assert!(
        s.db.query_prefix(&queue, keys::PARKED_CHANGE_PREFIX)
            .await
            .unwrap()
            .is_empty(),
        "no change of the queue is left"
    );
    let head = keys::key(&queue, keys::PARKED_QUEUE_SK);
    assert!(s.db.get(head).await.unwrap().is_none(), "nor its head");

    // Nothing parked any more: a later change is handled at once.
    let done = dispatch(&s.db, &[change(4, "ISSUE#1", 3)], &s.handlers).await;
    assert_eq!((done.failed.len(), done.parked), (0, 0));
    assert_eq!(seen(&s.flaky).last().unwrap(), "ISSUE#1@3");
}

#[tokio::test]
async fn changes_whose_order_does_not_matter_do_not_wait() {
    let s = setup(false).await;
    let mut changes = batch();
    // The record's second change fails no more: it goes at once.
    let done = dispatch(&s.db, &changes[..1], &s.handlers).await;
    assert_eq!(done.parked, 1);
    s.failing.store(false, Ordering::SeqCst);
    changes.remove(0);
    let done = dispatch(&s.db, &changes, &s.handlers).await;
    assert_eq!(done.parked, 0);
    assert_eq!(seen(&s.flaky), ["ISSUE#2@1", "ISSUE#1@2"]);
    let r = retry::retry_due(&s.db, &s.handlers, shared::time::now_ms() + 2_000)
        .await
        .unwrap();
    assert_eq!((r.retried, r.unparked), (1, 1));
    assert_eq!(parked_count(&s.db).await, 0);
}

#[tokio::test]
async fn a_change_parked_while_its_queue_is_retried_is_not_lost() {
    let s = setup(true).await;
    dispatch(&s.db, &batch()[..1], &s.handlers).await;
    s.failing.store(false, Ordering::SeqCst);
    // The sweeper has read the queue's front (one change) when another
    // change of the record is parked behind it.
    let queue = park::queue_of(s.handlers[0].as_ref(), &change(1, "ISSUE#1", 1));
    let front = park::front(&s.db, &queue, 25).await.unwrap();
    assert_eq!(front.len(), 1);
    dispatch(&s.db, &[change(3, "ISSUE#1", 2)], &s.handlers).await;
    park::unpark(&s.db, &queue, &front[0], shared::time::now_ms())
        .await
        .unwrap();
    assert_eq!(parked_count(&s.db).await, 1, "the later change stays");
    let r = retry::retry_due(&s.db, &s.handlers, shared::time::now_ms() + 1_000)
        .await
        .unwrap();
    assert_eq!(r.unparked, 1);
    assert_eq!(seen(&s.flaky), ["ISSUE#1@2"]);
    assert_eq!(parked_count(&s.db).await, 0);
    // Unparking a change that is gone changes nothing.
    park::unpark(&s.db, &queue, &front[0], shared::time::now_ms())
        .await
        .unwrap();
    assert_eq!(parked_count(&s.db).await, 0);
}
