//! Deliveries: one item per event and hook, with the attempts made, in the
//! hook's delivery partition (`HOOKDLV#<hook id>`), kept [`KEEP_DAYS`] days.
//!
//! A delivery is made once (a conditional put under an id derived from the
//! stream record, so a batch delivered again adds nothing) and comes back
//! on the stream, where the sender sends it. While it is pending it is
//! filed by due time in `gsi1` (`HOOKDUE`): the sweeper touches what is
//! due, which brings it back to the sender. Each attempt is an item of its
//! own beside the delivery; the delivery's `attempts` and `state` move in
//! the same transaction, on condition that no other attempt got there
//! first.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{happened::Happening, model::HookRecord};
use crate::db::{self, Cond, Db, DbError, Item, Value, keys::key, table};

/// How long deliveries, their attempts and payloads are kept.
pub const KEEP_DAYS: i64 = 7;
/// How long a pending delivery may wait for its sender before the sweeper
/// takes it up again (a sender that died, or could not record its
/// attempt). Longer than a send can take (reads and the record, each
/// within the 3.5 s operation time-out, and the request's 5 s): two sends
/// of one delivery are never in flight at once.
pub const LEASE: Duration = Duration::from_secs(30);
/// The due-time index's partition.
pub const DUE_PK: &str = "HOOKDUE";

/// Where it stands.
pub const PENDING: &str = "pending";
pub const DELIVERED: &str = "delivered";
pub const FAILED: &str = "failed";
/// Its hook was deleted or turned off before it could be sent.
pub const CANCELLED: &str = "cancelled";

/// A delivery as stored. Read leniently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryRecord {
    /// The `X-Gitea-Delivery` id (a UUID), kept by every retry.
    pub id: String,
    pub hook_id: i64,
    /// The partition the hook lives in (its owner's).
    pub hook_pk: String,
    /// The fine-grained event (`X-Gitea-Event-Type`).
    pub event: String,
    pub action: String,
    /// The payload item's id.
    pub payload: String,
    pub state: String,
    #[serde(default)]
    pub attempts: i64,
    /// When it is next due (Unix ms); 0 once it is settled.
    #[serde(default)]
    pub due: i64,
    /// Raised by the sweeper to send it again.
    #[serde(default)]
    pub touch: i64,
    /// The delivery this one redelivers, or "".
    #[serde(default)]
    pub redelivery_of: String,
    /// A test delivery (`…/hooks/{id}/tests`): sent even to an inactive
    /// hook, as Gitea sends its tests.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
    /// Unix ms.
    pub created: i64,
}

/// One attempt: what was sent (secrets redacted) and what came back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub delivery: String,
    pub n: i64,
    /// Unix ms.
    pub at: i64,
    /// Where it was sent (the hook's URL then).
    #[serde(default)]
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    /// 0 when no status came back.
    #[serde(default)]
    pub status: u16,
    /// The answer's first kilobyte (lossy UTF-8).
    #[serde(default)]
    pub answer: String,
    /// What went wrong, when no status came back or the target was refused.
    #[serde(default)]
    pub error: String,
    pub millis: i64,
}

pub fn pk(hook_id: i64) -> String {
    format!("HOOKDLV#{hook_id:020}")
}

pub fn delivery_key(hook_id: i64, id: &str) -> Item {
    key(&pk(hook_id), &format!("D#{id}"))
}

/// Whether a key is a delivery's (not an attempt's).
pub fn is_delivery(pk: &str, sk: &str) -> bool {
    pk.starts_with("HOOKDLV#") && sk.starts_with("D#") && !sk.contains("#A#")
}

pub fn attempt_key(hook_id: i64, id: &str, n: i64) -> Item {
    key(&pk(hook_id), &format!("D#{id}#A#{n:03}"))
}

pub fn payload_key(id: &str) -> Item {
    key(&format!("HOOKEVT#{id}"), "PAYLOAD")
}

/// A UUID (version 8, from SHA-256) named by `parts`: the same parts give
/// the same id, so a change handled twice makes the same items.
pub fn derived_id(parts: &[&str]) -> String {
    let digest = Sha256::digest(parts.join("\u{1f}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn ttl(now_ms: i64) -> Value {
    db::n(now_ms / 1000 + KEEP_DAYS * 86_400)
}

impl DeliveryRecord {
    /// A new delivery `id` of event `event_id` (`h`) to `hook`, pending
    /// and filed one lease ahead, so the sweeper covers a sender that dies.
    pub fn pending(
        id: String,
        hook: &HookRecord,
        h: &Happening,
        event_id: &str,
        now_ms: i64,
    ) -> Self {
        DeliveryRecord {
            id,
            hook_id: hook.id,
            hook_pk: super::store::pk(&hook.owner),
            event: h.event.name().to_string(),
            action: h.action.to_string(),
            payload: event_id.to_string(),
            state: PENDING.into(),
            attempts: 0,
            due: now_ms + LEASE.as_millis() as i64,
            touch: 0,
            redelivery_of: String::new(),
            test: false,
            created: now_ms,
        }
    }

    /// The stored item: listed by time under its hook (`gsi2`), and filed
    /// by due time (`gsi1`) while pending.
    pub fn to_item(&self) -> Result<Item, DbError> {
        let mut item = db::to_item(self)?;
        item.extend(delivery_key(self.hook_id, &self.id));
        item.insert("gsi2pk".into(), db::s(pk(self.hook_id)));
        item.insert(
            "gsi2sk".into(),
            db::s(format!("{:013}#{}", self.created, self.id)),
        );
        if self.state == PENDING {
            item.insert("gsi1pk".into(), db::s(DUE_PK));
            item.insert(
                "gsi1sk".into(),
                db::s(format!("{:013}#{}#{}", self.due, self.hook_id, self.id)),
            );
        }
        item.insert("ttl".into(), ttl(self.created));
        Ok(item)
    }
}

/// Stores a payload and its deliveries in one transaction, unless they
/// were stored already (the same change handled again): `false` then.
pub async fn create(
    db: &Db,
    payload_id: &str,
    payload: &[u8],
    deliveries: &[DeliveryRecord],
    now_ms: i64,
) -> Result<bool, DbError> {
    let mut item = payload_key(payload_id);
    item.insert(
        "body".into(),
        db::s(String::from_utf8_lossy(payload).into_owned()),
    );
    item.insert("ttl".into(), ttl(now_ms));
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    for d in deliveries {
        tx.put_if_absent(d.to_item()?)?;
    }
    match db.transact(tx).await {
        Ok(()) => Ok(true),
        Err(e) if e.failed_condition().is_some() => Ok(false),
        Err(e) => Err(e),
    }
}

/// The payload's JSON, if it is still kept.
pub async fn payload(db: &Db, id: &str) -> Result<Option<String>, DbError> {
    Ok(db
        .get(payload_key(id))
        .await?
        .map(|i| db::text(&i, "body").to_string()))
}

/// What a write that settles `d` needs: no other attempt recorded since
/// `d` was read, and `d` still pending (pending ones alone are filed by
/// due time).
pub fn unchanged(d: &DeliveryRecord) -> Cond {
    Cond::eq("attempts", db::n(d.attempts)).and(Cond::eq(table::INDEXES[0].pk, db::s(DUE_PK)))
}

/// Records `attempt` and moves `delivery` to `next`, unless another attempt
/// was recorded first (`false` then).
pub async fn record(
    db: &Db,
    delivery: &DeliveryRecord,
    next: &DeliveryRecord,
    attempt: &AttemptRecord,
) -> Result<bool, DbError> {
    let mut item = db::to_item(attempt)?;
    item.extend(attempt_key(delivery.hook_id, &delivery.id, attempt.n));
    item.insert("ttl".into(), ttl(attempt.at));
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    tx.put_when(next.to_item()?, unchanged(delivery))?;
    match db.transact(tx).await {
        Ok(()) => Ok(true),
        Err(e) if e.failed_condition().is_some() => Ok(false),
        Err(e) => Err(e),
    }
}

/// A delivery's state after attempt number `n` (1-based), by the retry
/// schedule: delivered, due again, or failed for good.
pub fn after_attempt(
    d: &DeliveryRecord,
    ok: bool,
    retries: &[Duration],
    now_ms: i64,
) -> DeliveryRecord {
    let attempts = d.attempts + 1;
    let (state, due) = match (ok, retries.get(d.attempts as usize)) {
        (true, _) => (DELIVERED, 0),
        (false, Some(wait)) => (PENDING, now_ms + wait.as_millis() as i64),
        (false, None) => (FAILED, 0),
    };
    DeliveryRecord {
        attempts,
        state: state.into(),
        due,
        ..d.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending() -> DeliveryRecord {
        DeliveryRecord {
            id: derived_id(&["1", "0", "7"]),
            hook_id: 7,
            hook_pk: "REPO#1".into(),
            event: "issues".into(),
            action: "opened".into(),
            payload: "p".into(),
            state: PENDING.into(),
            attempts: 0,
            due: 1_000,
            touch: 0,
            redelivery_of: String::new(),
            test: false,
            created: 500,
        }
    }

    #[test]
    fn ids_are_stable_uuids() {
        let a = derived_id(&["00001", "0", "7"]);
        assert_eq!(a, derived_id(&["00001", "0", "7"]));
        assert_ne!(a, derived_id(&["00001", "0", "8"]));
        let u = uuid::Uuid::parse_str(&a).unwrap();
        assert_eq!(u.get_version_num(), 8);
    }

    #[test]
    fn the_schedule_decides_retries_and_the_end() {
        let retries = [Duration::from_secs(10), Duration::from_secs(60)];
        let d = pending();
        let ok = after_attempt(&d, true, &retries, 2_000);
        assert_eq!((ok.state.as_str(), ok.attempts, ok.due), (DELIVERED, 1, 0));
        let one = after_attempt(&d, false, &retries, 2_000);
        assert_eq!((one.state.as_str(), one.due), (PENDING, 12_000));
        let two = after_attempt(&one, false, &retries, 20_000);
        assert_eq!((two.state.as_str(), two.due), (PENDING, 80_000));
        let three = after_attempt(&two, false, &retries, 90_000);
        assert_eq!((three.state.as_str(), three.attempts), (FAILED, 3));
    }

    #[test]
    fn only_pending_deliveries_are_filed_by_due_time() {
        let item = pending().to_item().unwrap();
        assert_eq!(db::text(&item, "gsi1pk"), DUE_PK);
        assert!(is_delivery(db::text(&item, "pk"), db::text(&item, "sk")));
        let done = DeliveryRecord {
            state: DELIVERED.into(),
            ..pending()
        };
        assert!(!done.to_item().unwrap().contains_key("gsi1pk"));
        assert!(!is_delivery("HOOKDLV#1", "D#x#A#001"));
    }
}
