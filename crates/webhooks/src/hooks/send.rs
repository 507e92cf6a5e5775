//! The stream consumer's second webhook step: a delivery that is new, or
//! that the sweeper touched, is sent. Its hook is read first (a deleted or
//! inactive hook cancels it), the target checked again under the allow-list
//! in force and resolved once ([`outbound::resolve_checked`]), and the
//! request posted to that address alone. The attempt is recorded with the
//! delivery's next state (delivered, due again by the retry schedule, or
//! failed).
//!
//! Sends of one batch run side by side after its last change
//! ([`Handler::finish`]), at most [`AT_ONCE`] at a time, each within
//! [`TIME_LIMIT`]: a slow receiver costs the batch seconds, not minutes,
//! and holds no other change back. What fails to be recorded stays
//! pending with its due time, for the sweeper.

use std::{sync::Arc, sync::Mutex, time::Duration};

use futures::{StreamExt, future::BoxFuture};

use super::{
    delivery::{self, AttemptRecord, CANCELLED, DeliveryRecord, PENDING},
    line,
    model::HookRecord,
    wire,
};
use crate::{
    Config,
    db::{self, Db, keys},
    outbound::{self, SystemResolver},
    stream::{Change, ChangeKind, Handler},
    time,
};

/// Most sends in flight at once.
pub const AT_ONCE: usize = 16;
/// The time one send may take, from lookup to the answer's last byte read.
pub const TIME_LIMIT: Duration = Duration::from_secs(5);

/// Sends the deliveries a batch brings. Made afresh for each batch.
pub struct Sender {
    config: Arc<Config>,
    due: Mutex<Vec<DeliveryRecord>>,
}

impl Sender {
    pub fn new(config: Arc<Config>) -> Self {
        Self {
            config,
            due: Mutex::default(),
        }
    }
}

/// The delivery a change brings to be sent: a pending delivery just made,
/// or touched by the sweeper (not the sender's own records of attempts).
pub fn to_send(change: &Change) -> Option<DeliveryRecord> {
    let new = change.new.as_ref()?;
    let d: DeliveryRecord = db::from_item(new.clone()).ok()?;
    if d.state != PENDING {
        return None;
    }
    let touched = match (&change.kind, &change.old) {
        (ChangeKind::Insert, _) | (_, None) => true,
        (_, Some(old)) => {
            db::from_item::<DeliveryRecord>(old.clone()).map_or(true, |o| o.touch != d.touch)
        }
    };
    touched.then_some(d)
}

impl Handler for Sender {
    fn name(&self) -> &'static str {
        "hook-sender"
    }

    fn wants(&self, change: &Change) -> bool {
        change.kind != ChangeKind::Remove && delivery::is_delivery(change.pk(), change.sk())
    }

    fn handle<'a>(&'a self, _db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        if let Some(d) = to_send(change) {
            self.due.lock().unwrap_or_else(|p| p.into_inner()).push(d);
        }
        Box::pin(async { Ok(()) })
    }

    fn finish<'a>(&'a self, db: &'a Db) -> BoxFuture<'a, ()> {
        let due = std::mem::take(&mut *self.due.lock().unwrap_or_else(|p| p.into_inner()));
        Box::pin(async move {
            let outcomes: Vec<Result<Outcome, crate::Error>> = futures::stream::iter(due)
                .map(|d| async move {
                    let outcome = send(db, &self.config, &d).await;
                    if let Err(e) = &outcome {
                        // Still pending with its due time: the sweeper
                        // takes it up again.
                        tracing::warn!(delivery = %d.id, hook = d.hook_id, error = %e,
                            "a webhook delivery was not recorded; it stays due");
                    }
                    outcome
                })
                .buffer_unordered(AT_ONCE)
                .collect()
                .await;
            let mut sent = line::Sent::default();
            for o in outcomes {
                match o {
                    Ok(Outcome::Attempted { ok }) => {
                        sent.attempts += 1;
                        sent.failures += usize::from(!ok);
                    }
                    Ok(Outcome::Cancelled | Outcome::Settled) => {}
                    Err(_) => sent.unrecorded += 1,
                }
            }
            line::sent(&self.config, "stream", sent);
        })
    }
}

/// What one send came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A request was made (or refused before connecting), and recorded.
    Attempted { ok: bool },
    /// Its hook is gone or inactive: nothing sent.
    Cancelled,
    /// Its answer is stored already (or it is gone): nothing sent.
    Settled,
}

/// Sends `d` once and records the attempt, unless its answer is stored
/// already.
pub async fn send(db: &Db, config: &Config, d: &DeliveryRecord) -> Result<Outcome, crate::Error> {
    // The stream's image may be older than the delivery (a batch delivered
    // again, a touch that raced an attempt): the stored delivery decides,
    // so one whose answer is stored is never sent again.
    let stored: Option<DeliveryRecord> =
        db.get_as(delivery::delivery_key(d.hook_id, &d.id)).await?;
    let Some(d) = stored.filter(|s| s.state == PENDING && s.attempts == d.attempts) else {
        return Ok(Outcome::Settled);
    };
    let d = &d;
    let hook: Option<HookRecord> = db.get_as(keys::hook(&d.hook_pk, d.hook_id)).await?;
    let Some(hook) = hook.filter(|h| h.active || d.test) else {
        let cancelled = DeliveryRecord {
            state: CANCELLED.into(),
            due: 0,
            ..d.clone()
        };
        db.put_when(cancelled.to_item()?, delivery::unchanged(d))
            .await
            .or_else(|e| match e {
                db::DbError::ConditionFailed => Ok(()),
                other => Err(other),
            })?;
        return Ok(Outcome::Cancelled);
    };
    let payload = delivery::payload(db, &d.payload).await?.unwrap_or_default();
    let out = wire::outgoing(&hook, d, payload.as_bytes());
    let started = time::now_ms();
    let result = attempt(config, &hook, &out).await;
    let (status, answer, error) = match &result {
        Ok(a) => (
            a.status,
            String::from_utf8_lossy(&a.body).into_owned(),
            String::new(),
        ),
        Err(e) => (0, String::new(), e.clone()),
    };
    let ok = (200..300).contains(&status);
    let now = time::now_ms();
    let record = AttemptRecord {
        delivery: d.id.clone(),
        n: d.attempts + 1,
        at: started,
        url: hook.url.clone(),
        request_headers: out.recorded_headers(),
        status,
        answer,
        error,
        millis: now - started,
    };
    let next = delivery::after_attempt(d, ok, &config.hook_retries, now);
    delivery::record(db, d, &next, &record).await?;
    Ok(Outcome::Attempted { ok })
}

/// One request: the target checked and resolved again, then posted to.
async fn attempt(
    config: &Config,
    hook: &HookRecord,
    out: &wire::Outgoing,
) -> Result<outbound::Answer, String> {
    let allow = &config.hook_allowed_hosts;
    let target = outbound::check_url(&hook.url, allow).map_err(|e| e.to_string())?;
    let lookup = outbound::resolve_checked(&target, allow, &SystemResolver);
    let addr = tokio::time::timeout(TIME_LIMIT, lookup)
        .await
        .map_err(|_| format!("no address for {} within {TIME_LIMIT:?}", target.host_str()))?
        .map_err(|e| e.to_string())?;
    let headers: Vec<(&str, String)> = out.headers.iter().map(|(n, v)| (*n, v.clone())).collect();
    outbound::post(&target, addr, &headers, out.body.clone(), TIME_LIMIT)
        .await
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        hooks::{HookOwner, NewHook},
        stream::pad_seq,
    };

    /// A hook on a listener of ours, and whether anything connected to it.
    async fn listening_hook() -> (HookRecord, tokio::net::TcpListener) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/in", listener.local_addr().unwrap());
        let hook = NewHook {
            kind: "gitea".into(),
            url,
            content_type: "json".into(),
            secret: String::new(),
            authorization_header: String::new(),
            events: vec!["issues".into()],
            branch_filter: String::new(),
            active: true,
        }
        .record(1, HookOwner::Site, 0);
        (hook, listener)
    }

    #[tokio::test]
    async fn a_target_the_list_in_force_refuses_is_never_connected_to() {
        // The hook was made under a list that allowed loopback; the list in
        // force at delivery (the default, external) does not.
        let config = Config::from_lookup(|_| None).unwrap();
        let (hook, listener) = listening_hook().await;
        let out = wire::outgoing(&hook, &d(0, PENDING), b"{}");
        let e = attempt(&config, &hook, &out).await.unwrap_err();
        assert!(e.contains("loopback"), "{e}");
        let accepted = tokio::time::timeout(Duration::from_millis(300), listener.accept()).await;
        assert!(accepted.is_err(), "the refused target was connected to");
        // Under a list that allows it, the same attempt connects.
        let config =
            Config::from_lookup(|k| (k == "HOOK_ALLOWED_HOSTS").then(|| "loopback".to_string()))
                .unwrap();
        let sent = tokio::spawn(async move { attempt(&config, &hook, &out).await });
        let (mut conn, _) = listener.accept().await.unwrap();
        use tokio::io::AsyncWriteExt;
        let mut buf = vec![0; 4096];
        let _ = tokio::io::AsyncReadExt::read(&mut conn, &mut buf).await;
        conn.write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(sent.await.unwrap().unwrap().status, 204);
    }

    fn d(touch: i64, state: &str) -> DeliveryRecord {
        DeliveryRecord {
            id: "x".into(),
            hook_id: 1,
            hook_pk: "SITEHOOKS".into(),
            event: "issues".into(),
            action: "opened".into(),
            payload: "p".into(),
            state: state.into(),
            attempts: 0,
            due: 1,
            touch,
            redelivery_of: String::new(),
            test: false,
            created: 1,
        }
    }

    fn change(kind: ChangeKind, old: Option<DeliveryRecord>, new: DeliveryRecord) -> Change {
        Change {
            seq: pad_seq("1"),
            kind,
            keys: delivery::delivery_key(1, "x"),
            old: old.map(|o| o.to_item().unwrap()),
            new: Some(new.to_item().unwrap()),
            at_ms: 0,
        }
    }

    #[test]
    fn new_and_touched_pending_deliveries_are_sent_and_nothing_else() {
        let sent = |c: &Change| to_send(c).is_some();
        assert!(sent(&change(ChangeKind::Insert, None, d(0, PENDING))));
        assert!(sent(&change(
            ChangeKind::Modify,
            Some(d(0, PENDING)),
            d(1, PENDING)
        )));
        // The sender's own record of a failed attempt: due again later.
        let mut retry = d(0, PENDING);
        retry.attempts = 1;
        assert!(!sent(&change(
            ChangeKind::Modify,
            Some(d(0, PENDING)),
            retry
        )));
        assert!(!sent(&change(
            ChangeKind::Modify,
            Some(d(0, PENDING)),
            d(0, delivery::DELIVERED)
        )));
    }
}
