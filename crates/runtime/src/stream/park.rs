//! Parked changes: what a handler could not handle, kept in the table
//! until it can.
//!
//! A change a handler fails on is not handed back to the stream (that would
//! hold back every other handler and every later change of the shard, and
//! Lambda would give up on it some day): it is copied into a queue of its
//! own, one per handler and record (`PARK#<handler>#<hash of pk, sk>`; the
//! record is the changed item unless the handler names another,
//! [`Handler::record`](super::Handler::record)), and
//! the batch goes on. The queue's head item (`Q`) says whose it is, how
//! many changes wait, how often the first was tried and when it is due
//! again; it is filed by due time in `gsi1` (`PARKDUE`), where
//! [`retry`](super::retry) finds it, and by the time its first change was
//! parked in `gsi2` (`PARKAGE`), for the age metric. One counter
//! (`PARKED`/`COUNT`, attribute `n`) holds how many changes are parked in
//! all, in the same transactions, so a batch learns with one read whether
//! it must look for queues at all.
//!
//! Order: a handler's later changes to a record whose queue is not empty
//! join the queue behind it (unless the handler says their order does not
//! matter, [`Handler::ordered`](super::Handler::ordered)), so they are
//! handled in stream order, by the sweeper.
//!
//! Everything here is idempotent: parking a change already parked (a batch
//! delivered again) and unparking one already gone change nothing.

use std::{collections::HashSet, time::Duration};

use super::{Change, ChangeKind, Handler};
use crate::db::{
    self, Cond, Consistency, Db, DbError, Item, Query, Returns, Value, keys, size,
    table::{self, Index},
};

/// Where queues are filed: by due time (`PARKDUE`) and by the time their
/// first change was parked (`PARKAGE`).
const DUE: Index = table::INDEXES[0];
const AGE: Index = table::INDEXES[1];

/// The images of a change too large to share one item with the other are
/// stored in items of their own: a change's item stays under this.
const ITEM_BUDGET: usize = size::ITEM_LIMIT - 4 * 1024;

/// The longest error text kept on a queue.
const ERROR_CHARS: usize = 500;

/// How long a sweeper's claim on a queue lasts: past it another sweep may
/// take the queue up (the first one died, or its claim's answer was lost).
/// A sweep starts no change of the queue past half of it
/// ([`retry`](super::retry)), then releases the queue.
pub const LEASE: Duration = Duration::from_secs(30);

/// The first retry's wait, doubled after each failure up to [`MAX_WAIT`].
pub const FIRST_WAIT: Duration = Duration::from_secs(1);
pub const MAX_WAIT: Duration = Duration::from_secs(600);

/// The wait before retry number `attempts + 1` of a queue whose head has
/// failed `attempts` times (at least once): 1 s, 2 s, 4 s, ... 10 min.
pub fn backoff(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(20);
    FIRST_WAIT.saturating_mul(1u32 << doublings).min(MAX_WAIT)
}

/// The queue of `handler`'s parked changes to the record it keeps
/// `change` in order with ([`Handler::record`]).
pub fn queue_of(handler: &dyn Handler, change: &Change) -> String {
    let (pk, sk) = handler.record(change);
    keys::parked_pk(handler.name(), &pk, &sk)
}

fn queue_key(queue: &str) -> Item {
    keys::key(queue, keys::PARKED_QUEUE_SK)
}

/// `gsi1sk` of a queue due at `due_ms`.
fn filed(due_ms: i64, queue: &str) -> Value {
    db::s(format!("{due_ms:013}#{queue}"))
}

/// What a batch knows of the queues its changes could have to wait
/// behind.
#[derive(Debug, Default)]
pub struct Parked {
    queues: HashSet<String>,
}

impl Parked {
    /// Reads which of `queues` hold changes: one strong read of the
    /// counter, and, only when something is parked at all, the queues'
    /// head items.
    pub async fn load(db: &Db, queues: HashSet<String>) -> Result<Self, DbError> {
        if queues.is_empty() {
            return Ok(Self::default());
        }
        let count = db
            .get(keys::parked_count())
            .await?
            .map_or(0, |c| db::number(&c, "n"));
        if count <= 0 {
            return Ok(Self::default());
        }
        let keys = queues.iter().map(|q| queue_key(q)).collect();
        let found = db
            .batch_get_many(keys, Some(&["pk"]), Consistency::Strong)
            .await?;
        Ok(Self {
            queues: found
                .iter()
                .map(|i| db::text(i, "pk").to_string())
                .collect(),
        })
    }

    /// Whether the queue held changes at the batch's start (a lane keeps
    /// track of what it parks since).
    pub fn holds(&self, queue: &str) -> bool {
        self.queues.contains(queue)
    }
}

/// A change as stored in its queue: one item, or, when its images do not
/// fit together, the item and one per image (`C#<seq>#old`, `#new`).
pub fn change_items(queue: &str, change: &Change, now_ms: i64) -> Vec<Item> {
    let sk = keys::parked_change_sk(&change.seq);
    let mut head = keys::key(queue, &sk);
    head.insert("seq".into(), db::s(&change.seq));
    head.insert("kind".into(), db::s(change.kind.name()));
    head.insert("at_ms".into(), db::n(change.at_ms));
    head.insert("keys".into(), Value::M(change.keys.clone()));
    let images = [("old", &change.old), ("new", &change.new)];
    let together: usize = size::item(head.iter())
        + images
            .iter()
            .filter_map(|(name, i)| Some(name.len() + size::value(&Value::M((*i).clone()?))))
            .sum::<usize>();
    // After the size is taken: where the images go depends on the change
    // alone, so unparking names the same items.
    head.insert("parked".into(), db::n(now_ms));
    let mut items = Vec::new();
    let mut apart = Vec::new();
    for (name, image) in images {
        let Some(image) = image else { continue };
        let value = Value::M(image.clone());
        if together <= ITEM_BUDGET {
            head.insert(name.into(), value);
        } else {
            let mut part = keys::key(queue, &format!("{sk}#{name}"));
            part.insert("image".into(), value);
            items.push(part);
            apart.push(db::s(name));
        }
    }
    if !apart.is_empty() {
        head.insert("apart".into(), Value::L(apart));
    }
    items.insert(0, head);
    items
}

/// The changes stored as [`change_items`], in stream order. A change whose
/// images were cut off (the read's last page) is left out.
pub fn changes_of(items: &[Item]) -> Vec<Change> {
    let mut out: Vec<(Change, Vec<String>)> = Vec::new();
    for item in items {
        let sk = db::text(item, "sk");
        if let Some(image) = item.get("image").and_then(|v| v.as_m().ok()) {
            let Some((change, missing)) = out.last_mut() else {
                continue;
            };
            let part = sk.rsplit('#').next().unwrap_or("");
            match part {
                "old" => change.old = Some(image.clone()),
                "new" => change.new = Some(image.clone()),
                _ => continue,
            }
            missing.retain(|m| m != part);
            continue;
        }
        let Some(kind) = ChangeKind::parse(db::text(item, "kind")) else {
            continue;
        };
        let map = |name: &str| item.get(name).and_then(|v| v.as_m().ok()).cloned();
        let apart = match item.get("apart") {
            Some(Value::L(l)) => l.iter().filter_map(|v| v.as_s().ok().cloned()).collect(),
            _ => Vec::new(),
        };
        out.push((
            Change {
                seq: db::text(item, "seq").to_string(),
                kind,
                keys: map("keys").unwrap_or_default(),
                old: map("old"),
                new: map("new"),
                at_ms: db::number(item, "at_ms"),
            },
            apart,
        ));
    }
    out.into_iter()
        .filter(|(_, missing)| missing.is_empty())
        .map(|(c, _)| c)
        .collect()
}

fn truncated(error: &str) -> String {
    error.chars().take(ERROR_CHARS).collect()
}

/// Parks `change` for `handler`: its items, the queue's head (made, or
/// one more change), the counter, in one transaction. A change already
/// parked is left as it is.
pub async fn park(
    db: &Db,
    handler: &dyn Handler,
    change: &Change,
    error: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    let queue = queue_of(handler, change);
    let (record_pk, record_sk) = handler.record(change);
    let due = now_ms + backoff(1).as_millis() as i64;
    let mut tx = db.tx();
    for item in change_items(&queue, change, now_ms) {
        tx.put_if_absent(item)?;
    }
    let head = db::Change::new()
        .set("handler", db::s(handler.name()))
        .set("record_pk", db::s(record_pk))
        .set("record_sk", db::s(record_sk))
        .set_if_missing("first_parked", db::n(now_ms))
        .set_if_missing("due", db::n(due))
        .set_if_missing("error", db::s(truncated(error)))
        .set_if_missing("attempts", db::n(0))
        .set(DUE.pk, db::s(keys::PARKED_DUE_PK))
        .set_if_missing(DUE.sk, filed(due, &queue))
        .set(AGE.pk, db::s(keys::PARKED_AGE_PK))
        .set_if_missing(AGE.sk, filed(now_ms, &queue))
        .add("n", db::n(1));
    tx.change(queue_key(&queue), head, None)?;
    tx.change(
        keys::parked_count(),
        db::Change::new().add("n", db::n(1)),
        None,
    )?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        // Its first item exists: parked by an earlier delivery of the batch.
        Err(e) if e.failed_condition() == Some(0) => Ok(()),
        Err(e) => Err(e),
    }
}

/// A queue's head, as the sweeper reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Queue {
    pub pk: String,
    pub handler: String,
    /// Failed retries of the change at its front.
    pub attempts: u32,
    /// When its first change was parked (Unix ms).
    pub first_parked: i64,
}

impl Queue {
    fn from_item(item: &Item) -> Self {
        Self {
            pk: db::text(item, "pk").to_string(),
            handler: db::text(item, "handler").to_string(),
            attempts: db::number(item, "attempts").clamp(0, i64::from(u32::MAX)) as u32,
            first_parked: db::number(item, "first_parked"),
        }
    }
}

/// Takes queue `filed` (its `gsi1sk` as the sweeper read it) for one
/// [`LEASE`]: moves its due time that far ahead, unless another sweep took
/// it first (`None`).
pub async fn claim(db: &Db, queue: &str, was: &str, now_ms: i64) -> Result<Option<Queue>, DbError> {
    let until = now_ms + LEASE.as_millis() as i64;
    let result = db
        .change(
            queue_key(queue),
            db::Change::new()
                .set("due", db::n(until))
                .set(DUE.sk, filed(until, queue)),
            Some(Cond::eq(DUE.sk, db::s(was))),
            Returns::AllNew,
        )
        .await;
    match result {
        Ok(item) => Ok(item.as_ref().map(Queue::from_item)),
        Err(DbError::ConditionFailed) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The first changes of a queue, in stream order (at most about `limit`).
pub async fn front(db: &Db, queue: &str, limit: i32) -> Result<Vec<Change>, DbError> {
    let page = db
        .query_page(
            Query::table(queue)
                .prefix(keys::PARKED_CHANGE_PREFIX)
                .limit(limit),
        )
        .await?;
    Ok(changes_of(&page.items))
}

/// Removes `change`, handled at last, from `queue`; the queue goes with
/// its last change (the sweeper's claim on the rest holds until
/// [`release`]).
pub async fn unpark(db: &Db, queue: &str, change: &Change, now_ms: i64) -> Result<(), DbError> {
    // `now_ms` only names the change's items (see `change_items`).
    // The queue's count decides whether the head goes too; a change parked
    // meanwhile makes the first try fail on its condition, then the second
    // holds.
    for more in [false, true] {
        let mut tx = db.tx();
        for item in change_items(queue, change, now_ms) {
            let key = keys::key(db::text(&item, "pk"), db::text(&item, "sk"));
            tx.delete_existing(key)?;
        }
        if more {
            tx.change(
                queue_key(queue),
                db::Change::new()
                    .set("attempts", db::n(0))
                    .add("n", db::n(-1)),
                Some(Cond::gt("n", db::n(1))),
            )?;
        } else {
            tx.delete_when(queue_key(queue), Cond::eq("n", db::n(1)))?;
        }
        tx.change(
            keys::parked_count(),
            db::Change::new().add("n", db::n(-1)),
            None,
        )?;
        match db.transact(tx).await {
            Ok(()) => return Ok(()),
            // Already gone (a sweep before this one unparked it).
            Err(e) if e.failed_condition() == Some(0) => return Ok(()),
            Err(e) if e.failed_condition().is_some() => continue,
            Err(e) => return Err(e),
        }
    }
    Err(DbError::Service(format!(
        "parked queue {queue}: its count is neither 1 nor more"
    )))
}

/// Ends a sweeper's claim on `queue`, whose front succeeded: what is left
/// of it is due at once. Nothing when the queue is gone.
pub async fn release(db: &Db, queue: &str, now_ms: i64) -> Result<(), DbError> {
    let result = db
        .change(
            queue_key(queue),
            db::Change::new()
                .set("due", db::n(now_ms))
                .set(DUE.sk, filed(now_ms, queue)),
            Some(Cond::exists()),
            Returns::Nothing,
        )
        .await;
    match result {
        Ok(_) | Err(DbError::ConditionFailed) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The front of `queue` failed again (`attempts` times now): due after
/// the [`backoff`], with the error.
pub async fn retry_later(
    db: &Db,
    queue: &str,
    attempts: u32,
    error: &str,
    now_ms: i64,
) -> Result<(), DbError> {
    let due = now_ms + backoff(attempts).as_millis() as i64;
    db.change(
        queue_key(queue),
        db::Change::new()
            .set("due", db::n(due))
            .set(DUE.sk, filed(due, queue))
            .set("attempts", db::n(i64::from(attempts)))
            .set("error", db::s(truncated(error))),
        Some(Cond::exists()),
        Returns::Nothing,
    )
    .await
    .map(|_| ())
}

/// How many changes are parked in all, and since when the oldest queue
/// waits (Unix ms; `None` when nothing is parked). For the metrics: the
/// age is read from `gsi2`, eventually consistent.
pub async fn census(db: &Db) -> Result<(i64, Option<i64>), DbError> {
    let count = db
        .get(keys::parked_count())
        .await?
        .map_or(0, |c| db::number(&c, "n"));
    if count <= 0 {
        return Ok((count, None));
    }
    let page = db
        .query_page(
            Query::index(AGE, keys::PARKED_AGE_PK)
                .fields(&["first_parked"])
                .limit(1),
        )
        .await?;
    let oldest = page.items.first().map(|i| db::number(i, "first_parked"));
    Ok((count, oldest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::pad_seq;

    fn change(body: usize) -> Change {
        let image = |v: &str| {
            let mut i = keys::key("REPO#1", "ISSUE#7");
            i.insert("body".into(), db::s(v.repeat(body)));
            i
        };
        Change {
            seq: pad_seq("42"),
            kind: ChangeKind::Modify,
            keys: keys::key("REPO#1", "ISSUE#7"),
            old: Some(image("a")),
            new: Some(image("b")),
            at_ms: 1_764_000_000_000,
        }
    }

    #[test]
    fn backoff_doubles_from_a_second_to_ten_minutes() {
        let waits: Vec<u64> = (0..=12).map(|a| backoff(a).as_secs()).collect();
        assert_eq!(waits, [1, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600]);
        assert_eq!(backoff(u32::MAX), MAX_WAIT);
    }

    /// Handles nothing; keeps changes in order with their own item, or
    /// (`whole_partition`) with everything of its partition.
    struct Named {
        name: &'static str,
        whole_partition: bool,
    }

    impl Handler for Named {
        fn name(&self) -> &'static str {
            self.name
        }
        fn wants(&self, _change: &Change) -> bool {
            true
        }
        fn record(&self, change: &Change) -> (String, String) {
            match self.whole_partition {
                true => (change.pk().to_string(), String::new()),
                false => (change.pk().to_string(), change.sk().to_string()),
            }
        }
        fn handle<'a>(&'a self, _db: &'a Db, _change: &'a Change) -> crate::stream::Handled<'a> {
            Box::pin(async { Ok(()) })
        }
    }

    #[test]
    fn queues_are_per_handler_and_record() {
        let named = |name| Named {
            name,
            whole_partition: false,
        };
        let (search, hooks) = (named("search"), named("hooks"));
        let a = change(1);
        let mut other_record = change(1);
        other_record.keys = keys::key("REPO#1", "ISSUE#8");
        assert_eq!(queue_of(&search, &a), queue_of(&search, &a));
        assert_ne!(queue_of(&search, &a), queue_of(&hooks, &a));
        assert_ne!(queue_of(&search, &a), queue_of(&search, &other_record));
        assert!(queue_of(&search, &a).starts_with("PARK#search#"));
        // A handler may keep other items' changes in one queue.
        let partition = Named {
            name: "search",
            whole_partition: true,
        };
        assert_eq!(
            queue_of(&partition, &a),
            queue_of(&partition, &other_record)
        );
        // Keys with the separator in them cannot collide.
        assert_ne!(
            keys::parked_pk("h", "A#B", "C"),
            keys::parked_pk("h", "A", "B#C")
        );
    }

    #[test]
    fn a_small_change_is_one_item_and_round_trips() {
        let c = change(10);
        let items = change_items("PARK#h#x", &c, 5);
        assert_eq!(items.len(), 1);
        assert_eq!(db::text(&items[0], "sk"), format!("C#{}", c.seq));
        assert_eq!(changes_of(&items), vec![c]);
    }

    #[test]
    fn large_images_go_apart_and_come_back_together() {
        // Two images of 300 KB each: over one item's 400 KB together.
        let c = change(300 * 1024);
        let mut items = change_items("PARK#h#x", &c, 5);
        assert_eq!(items.len(), 3);
        for item in &items {
            assert!(size::item(item.iter()) <= size::ITEM_LIMIT);
        }
        // As a query reads them: by sort key, the change's item first.
        items.sort_by(|a, b| db::text(a, "sk").cmp(db::text(b, "sk")));
        assert_eq!(db::text(&items[0], "sk"), format!("C#{}", c.seq));
        assert_eq!(changes_of(&items), vec![c.clone()]);
        // A read that stopped before the last image leaves the change out.
        assert_eq!(changes_of(&items[..2]), vec![]);
        // Several changes in one read keep their order.
        let mut later = change(1);
        later.seq = pad_seq("43");
        let mut all = items;
        all.extend(change_items("PARK#h#x", &later, 6));
        assert_eq!(changes_of(&all), vec![c, later]);
    }

    #[test]
    fn a_removal_without_a_new_image_round_trips() {
        let mut c = change(3);
        c.kind = ChangeKind::Remove;
        c.new = None;
        assert_eq!(changes_of(&change_items("PARK#h#x", &c, 5)), vec![c]);
    }
}
