//! What this project adds to Gitea's hooks API: a hook's recent deliveries
//! with their attempts (`GET …/hooks/{id}/deliveries`), sending one again
//! as a new delivery linked to the first (`POST …/deliveries/{id}/redeliver`),
//! and Gitea's `POST /repos/{o}/{r}/hooks/{id}/tests`, which delivers a
//! sample `issues` event now (Gitea's tests send a push, which does not
//! exist here).

use std::collections::HashMap;

use serde::Serialize;

use super::{
    Error, Result,
    delivery::{self, AttemptRecord, DeliveryRecord, KEEP_DAYS, LEASE, PENDING},
    happened::{Happening, Subject},
    model::HookRecord,
    payload::{self, RepoFacts},
};
use crate::{
    Config,
    db::{self, Consistency, Db, Query, actor::Actor, table},
    issues::IssueRecord,
    time,
};

/// Most deliveries one page shows (each brings its attempts: one query).
pub const MAX_PAGE: usize = 10;
/// How far back the list reaches: the newest this many deliveries.
pub const MAX_LISTED: usize = 100;

/// A delivery with its attempts and payload.
pub struct Entry {
    pub delivery: DeliveryRecord,
    pub attempts: Vec<AttemptRecord>,
    /// The JSON sent, while it is kept.
    pub payload: Option<String>,
}

/// Page `page` (from 1) of `limit` of the hook's deliveries, newest first,
/// among the newest [`MAX_LISTED`]; and whether more follow.
pub async fn list(db: &Db, hook_id: i64, page: usize, limit: usize) -> Result<(Vec<Entry>, bool)> {
    let limit = limit.clamp(1, MAX_PAGE);
    let skip = (page.max(1) - 1) * limit;
    if skip >= MAX_LISTED {
        return Ok((Vec::new(), false));
    }
    let read = (skip + limit + 1).min(MAX_LISTED) as i32;
    // A hook's deliveries by time (`gsi2`), newest first.
    let out = db
        .query_page(
            Query::index(table::INDEXES[1], delivery::pk(hook_id))
                .backward()
                .limit(read),
        )
        .await?;
    let items = &out.items;
    let more = items.len() > skip + limit && skip + limit < MAX_LISTED;
    let deliveries: Vec<DeliveryRecord> = items
        .iter()
        .skip(skip)
        .take(limit)
        .map(|i| db::from_item(i.clone()))
        .collect::<Result<_, _>>()?;
    let pk = delivery::pk(hook_id);
    let prefixes: Vec<String> = deliveries
        .iter()
        .map(|d| format!("D#{}#A#", d.id))
        .collect();
    let attempts =
        futures::future::try_join_all(prefixes.iter().map(|p| db.query_prefix(&pk, p))).await?;
    let payloads = payloads(db, &deliveries).await?;
    let entries = deliveries
        .into_iter()
        .zip(attempts)
        .map(|(d, items)| {
            let attempts = items
                .into_iter()
                .map(db::from_item)
                .collect::<Result<Vec<AttemptRecord>, _>>()?;
            Ok(Entry {
                payload: payloads.get(&d.payload).cloned(),
                delivery: d,
                attempts,
            })
        })
        .collect::<Result<Vec<_>, db::DbError>>()?;
    Ok((entries, more))
}

/// The payloads of `deliveries`, by id, in one batched read.
async fn payloads(
    db: &Db,
    deliveries: &[DeliveryRecord],
) -> Result<HashMap<String, String>, db::DbError> {
    let mut ids: Vec<&str> = deliveries.iter().map(|d| d.payload.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let keys = ids.iter().map(|id| delivery::payload_key(id)).collect();
    let found = db.batch_get_many(keys, None, Consistency::Eventual).await?;
    Ok(found
        .iter()
        .map(|i| {
            let id = db::text(i, "pk").trim_start_matches("HOOKEVT#").to_string();
            (id, db::text(i, "body").to_string())
        })
        .collect())
}

/// Sends delivery `id` of `hook` again, as a new delivery (its own id,
/// linked to the first) of the same payload: the new one, with the
/// payload and no attempts yet. An `id` that is no UUID names none.
pub async fn redeliver(db: &Db, hook: &HookRecord, id: &str) -> Result<Entry> {
    let Ok(uuid) = uuid::Uuid::try_parse(id) else {
        return Err(Error::NoSuchDelivery(id.to_string()));
    };
    let id = uuid.hyphenated().to_string();
    let first: DeliveryRecord = db
        .get_as(delivery::delivery_key(hook.id, &id))
        .await?
        .ok_or_else(|| Error::NoSuchDelivery(id.clone()))?;
    let Some(payload) = delivery::payload(db, &first.payload).await? else {
        return Err(Error::PayloadGone { days: KEEP_DAYS });
    };
    let now = time::now_ms();
    let again = DeliveryRecord {
        id: uuid::Uuid::new_v4().to_string(),
        hook_pk: super::store::pk(&hook.owner),
        state: PENDING.into(),
        attempts: 0,
        due: now + LEASE.as_millis() as i64,
        touch: 0,
        redelivery_of: first.id.clone(),
        created: now,
        ..first
    };
    // A transaction, so that a request with an Idempotency-Key carries its
    // marker (db::Db::mark_idempotent).
    let mut tx = db.tx();
    tx.put_if_absent(again.to_item()?)?;
    db.transact(tx).await?;
    Ok(Entry {
        delivery: again,
        attempts: Vec::new(),
        payload: Some(payload),
    })
}

/// Delivers a sample `issues` event (`opened`, of an issue numbered 0 that
/// does not exist) to `hook` of the repository `facts`, as `actor`, now,
/// whatever the hook's events and even if it is inactive.
pub async fn test(
    db: &Db,
    config: &Config,
    hook: &HookRecord,
    facts: &RepoFacts,
    actor: Actor,
) -> crate::Result<DeliveryRecord> {
    let now = time::now_ms();
    let sample = IssueRecord {
        repo_id: facts.repo.id,
        title: "A test delivery".into(),
        body: format!(
            "Sent by POST /api/v1/repos/{}/hooks/{}/tests.",
            facts.repo.full_name(),
            hook.id
        ),
        poster: crate::name::fold(&actor.name),
        created: now / 1000,
        updated: now / 1000,
        ..IssueRecord::default()
    };
    let h = Happening {
        repo_id: facts.repo.id,
        event: super::events::Event::Issues,
        action: "opened",
        changes: None,
        subject: Subject::Issue(Box::new(sample)),
        actor: Some(actor),
        detail: None,
    };
    let body = payload::render(db, config, facts, &h)
        .await?
        .unwrap_or_default();
    let event_id = uuid::Uuid::new_v4().to_string();
    let d = DeliveryRecord {
        test: true,
        ..DeliveryRecord::pending(uuid::Uuid::new_v4().to_string(), hook, &h, &event_id, now)
    };
    delivery::create(db, &event_id, &body, std::slice::from_ref(&d), now).await?;
    Ok(d)
}

/// A delivery as this project's API shows it.
#[derive(Serialize)]
pub struct DeliveryView {
    /// The `X-Gitea-Delivery` id.
    pub id: String,
    /// `X-Gitea-Event` and `X-Gitea-Event-Type`.
    pub event: &'static str,
    pub event_type: String,
    pub action: String,
    /// `pending`, `delivered`, `failed` (every attempt failed) or
    /// `cancelled` (the hook was deleted or turned off first).
    pub status: String,
    pub test: bool,
    /// The delivery this one sends again, if any.
    pub redelivery_of: Option<String>,
    pub created_at: String,
    /// When the next attempt is due, while pending.
    pub next_attempt_at: Option<String>,
    /// The JSON payload, while it is kept.
    pub payload: Option<String>,
    pub attempts: Vec<AttemptView>,
}

#[derive(Serialize)]
pub struct AttemptView {
    pub number: i64,
    pub delivered_at: String,
    pub duration_ms: i64,
    pub request: RequestView,
    /// `null` when no answer came (see `error`).
    pub response: Option<ResponseView>,
    pub error: String,
}

#[derive(Serialize)]
pub struct RequestView {
    pub url: String,
    pub http_method: &'static str,
    /// As sent, with `Authorization` redacted.
    pub headers: std::collections::BTreeMap<String, String>,
}

#[derive(Serialize)]
pub struct ResponseView {
    pub status: u16,
    /// The answer's first kilobyte.
    pub body: String,
}

fn rfc3339_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl DeliveryView {
    pub fn new(e: &Entry, hook: &HookRecord) -> Self {
        let d = &e.delivery;
        Self {
            id: d.id.clone(),
            event: super::events::header_of(&d.event),
            event_type: d.event.clone(),
            action: d.action.clone(),
            status: d.state.clone(),
            test: d.test,
            redelivery_of: (!d.redelivery_of.is_empty()).then(|| d.redelivery_of.clone()),
            created_at: rfc3339_ms(d.created),
            next_attempt_at: (d.state == PENDING).then(|| rfc3339_ms(d.due)),
            payload: e.payload.clone(),
            attempts: e
                .attempts
                .iter()
                .map(|a| AttemptView {
                    number: a.n,
                    delivered_at: rfc3339_ms(a.at),
                    duration_ms: a.millis,
                    request: RequestView {
                        url: match a.url.is_empty() {
                            true => hook.url.clone(),
                            false => a.url.clone(),
                        },
                        http_method: "POST",
                        headers: a.request_headers.iter().cloned().collect(),
                    },
                    response: (a.status != 0).then(|| ResponseView {
                        status: a.status,
                        body: a.answer.clone(),
                    }),
                    error: a.error.clone(),
                })
                .collect(),
        }
    }
}
