//! `Idempotency-Key` on creating routes, with the semantics of the IETF
//! httpapi draft and Stripe: the same key, caller and request within 24
//! hours replays the first completed answer (2xx or 4xx) and creates
//! nothing; a retry while the first is still running gets 409; the same
//! key with another request gets 422; a 5xx is not kept, so a retry runs.
//!
//! One item per key and caller holds the attempt that owns it. Every
//! transaction of that attempt also sets `committed` on it, on condition
//! that the attempt still owns the key ([`Db::mark_idempotent`]). So when
//! an attempt ends with its outcome unknown (the database stalled), a
//! later retry can tell: either the change committed (the retry gets a
//! 409 saying so), or it did not, and once the attempt's lease is over the
//! retry takes the key over, which also stops the stalled attempt's
//! transaction from ever committing.

use lambda_http::{
    Body,
    http::{HeaderValue, StatusCode},
};
use sha2::{Digest, Sha256};

use super::Response;
use crate::{
    Config, Error, Result,
    db::{self, Change, Cond, Db, DbError, Item, Returns, keys, number, table::TTL, text},
    time,
};

/// How long a replay stays available.
const KEEP_SECS: i64 = 24 * 3600;
/// How long an attempt owns its key before a retry may take it over: as
/// long as a request may last, with its last database call and a margin.
/// (A retry that takes over early is still safe: the earlier attempt's
/// transactions then fail their marker.)
fn lease_secs(config: &Config) -> i64 {
    let longest = config.request_timeout + config.db_operation_timeout;
    longest.as_secs() as i64 + 5
}
/// How long releasing a key after a 5xx may wait: when the database is the
/// reason for the 5xx it may not answer, and the client is waiting.
const RELEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);
/// Largest answer kept for replay: what an item holds besides the rest of
/// the record (a larger one is remembered as applied, not replayed).
const MAX_KEPT_BODY: usize = db::size::ITEM_LIMIT - 8 * 1024;

/// An attempt that owns its key.
pub struct Claim {
    key: Item,
    attempt: String,
}

impl Claim {
    /// What this attempt's transactions mark.
    pub fn marker(&self) -> db::Marker {
        db::Marker {
            key: self.key.clone(),
            attempt: self.attempt.clone(),
        }
    }
}

/// What to do with a request that carries a key.
pub enum Start {
    /// Run the handler; then [`finish`].
    Run(Claim),
    /// Answer with what the first request answered.
    Replay(Response),
}

/// The key as sent: 1 to 255 visible ASCII characters.
pub fn parse_key(raw: &[u8]) -> Result<&str> {
    match std::str::from_utf8(raw) {
        Ok(k) if !k.is_empty() && k.len() <= 255 && k.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(k)
        }
        _ => Err(Error::BadRequest(
            "Idempotency-Key must be 1 to 255 visible ASCII characters".into(),
        )),
    }
}

/// What makes two requests "the same": method, path, query and body.
pub fn fingerprint(method: &str, path_and_query: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update(b" ");
    h.update(path_and_query.as_bytes());
    h.update(b"\n");
    h.update(body);
    hex::encode(h.finalize())
}

/// Claims `key` for this attempt, or says how to answer without running.
pub async fn start(
    db: &Db,
    config: &Config,
    caller: &str,
    key: &str,
    fingerprint: &str,
) -> Result<Start> {
    let now = time::now();
    let lease = lease_secs(config);
    let item_key = keys::idempotency(caller, &hex::encode(Sha256::digest(key.as_bytes())));
    let attempt = hex::encode(rand::random::<[u8; 12]>());
    let mut item = item_key.clone();
    item.extend([
        ("fp".to_string(), db::s(fingerprint)),
        ("state".to_string(), db::s("pending")),
        ("attempt".to_string(), db::s(&attempt)),
        ("lease".to_string(), db::n(now + lease)),
        ("ttl".to_string(), db::n(now + KEEP_SECS)),
    ]);
    let claimed = db
        .put_when(item, Cond::absent().or(Cond::lt(TTL, db::n(now))))
        .await;
    match claimed {
        Ok(()) => {
            return Ok(Start::Run(Claim {
                key: item_key,
                attempt,
            }));
        }
        Err(DbError::ConditionFailed) => {}
        Err(e) => return Err(e.into()),
    }
    let Some(old) = db.get(item_key.clone()).await? else {
        // Gone in between (a 5xx released it): this retry may run, but
        // another one may be racing it; let the client come back.
        return Err(in_progress());
    };
    if text(&old, "fp") != fingerprint {
        return Err(Error::Unprocessable(
            "Idempotency-Key was already used with a different request".into(),
        ));
    }
    if text(&old, "state") == "done" {
        if old.contains_key("too_large") {
            return Err(Error::Conflict(
                "the request with this Idempotency-Key was applied; its answer was too large \
                 to keep for replay: read the resource to see it"
                    .into(),
            ));
        }
        return Ok(Start::Replay(replay(&old)));
    }
    if old.contains_key("committed") {
        return Err(if number(&old, "lease") > now {
            in_progress()
        } else {
            Error::Conflict(
                "the request with this Idempotency-Key was applied, but its answer was lost \
                 (the database failed after the change); read the resource to see it"
                    .into(),
            )
        });
    }
    if number(&old, "lease") > now {
        return Err(in_progress());
    }
    // The earlier attempt never committed and its lease is over: take over.
    let old_attempt = text(&old, "attempt").to_string();
    let taken = db
        .change(
            item_key.clone(),
            Change::new()
                .set("attempt", db::s(&attempt))
                .set("lease", db::n(now + lease)),
            Some(owned_by(&old_attempt)),
            Returns::Nothing,
        )
        .await;
    match taken {
        Ok(_) => Ok(Start::Run(Claim {
            key: item_key,
            attempt,
        })),
        Err(DbError::ConditionFailed) => Err(in_progress()),
        Err(e) => Err(e.into()),
    }
}

/// The key is still `attempt`'s, and nothing it did committed.
fn owned_by(attempt: &str) -> Cond {
    Cond::eq("attempt", db::s(attempt)).and(Cond::lacks("committed"))
}

fn in_progress() -> Error {
    Error::Conflict(
        "a request with this Idempotency-Key is still being processed; retry later".into(),
    )
}

fn replay(old: &Item) -> Response {
    let status = StatusCode::from_u16(number(old, "status") as u16).unwrap_or(StatusCode::OK);
    let body = match old.get("body").and_then(|v| v.as_s().ok()) {
        Some(b) => Body::Text(b.clone()),
        None => Body::Empty,
    };
    let mut res = Response::new(body);
    *res.status_mut() = status;
    let ctype = text(old, "ctype");
    if let Ok(v) = HeaderValue::from_str(ctype)
        && !ctype.is_empty()
    {
        res.headers_mut().insert("content-type", v);
    }
    res.headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    res
}

/// Keeps a 2xx or 4xx answer for replay. A 5xx releases the key unless
/// this attempt committed a change (then a retry learns that it did).
/// Failures here are logged: the client's answer is already decided.
pub async fn finish(db: &Db, claim: Claim, res: &Response) {
    let outcome = if res.status().is_server_error() {
        if db.committed() {
            return;
        }
        // Only while uncommitted: a late transaction of this attempt then
        // fails its marker, so releasing cannot lose a change.
        let release = db.delete_when(claim.key, owned_by(&claim.attempt));
        match tokio::time::timeout(RELEASE_WAIT, release).await {
            Ok(done) => done,
            Err(_) => return,
        }
    } else {
        let (body, too_large) = match res.body() {
            Body::Text(t) if t.len() <= MAX_KEPT_BODY => (Some(t.clone()), false),
            Body::Text(_) | Body::Binary(_) => (None, true),
            _ => (None, false),
        };
        let ctype = res
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mut change = Change::new()
            .set("state", db::s("done"))
            .set("status", db::n(res.status().as_u16()));
        if !ctype.is_empty() {
            change = change.set("ctype", db::s(ctype));
        }
        if let Some(b) = body.filter(|b| !b.is_empty()) {
            change = change.set("body", db::s(b));
        }
        if too_large {
            change = change.set("too_large", db::b(true));
        }
        let kept = Cond::eq("attempt", db::s(&claim.attempt));
        db.change(claim.key, change, Some(kept), Returns::Nothing)
            .await
            .map(|_| ())
    };
    if let Err(e) = outcome {
        tracing::warn!(error = %e, "could not record the idempotent outcome");
    }
}
