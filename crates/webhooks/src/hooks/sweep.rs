//! The sweeper: what makes a retry happen. Pending deliveries are filed by
//! due time in `gsi1` (`HOOKDUE`); a scheduled run of the stream function
//! (every minute on AWS, every second under the local pump) reads what is
//! due, a bounded number of pages, and touches each delivery: its change
//! comes back on the stream, where the [`Sender`](super::send::Sender)
//! sends it. A touch also moves the due time one lease ahead, so a send
//! that dies is taken up again, and it is conditional on the due time read,
//! so an attempt recorded meanwhile is not undone.

use serde::Serialize;

use super::delivery::{DUE_PK, LEASE};
use crate::{
    db::{self, Cond, Db, DbError, Query, Range, Returns, table},
    time,
};

/// Deliveries touched per page, and pages per run: a run costs at most
/// this many reads and writes, whatever the backlog (the rest waits a
/// minute).
pub const PAGE: i32 = 100;
pub const PAGES: usize = 5;

/// What one run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Swept {
    pub due: usize,
    pub touched: usize,
    /// How long past its due time the oldest due delivery waited (ms).
    pub lag_ms: u64,
}

/// Touches the deliveries due by now.
pub async fn sweep(db: &Db) -> Result<Swept, DbError> {
    let now = time::now_ms();
    // Due times are 13 digits, then `#`: everything due by `now` sorts
    // before `now` followed by `#~`.
    let upto = format!("{now:013}#~");
    let mut out = Swept::default();
    let index = table::INDEXES[0];
    let mut cursor = None;
    for _ in 0..PAGES {
        let query = Query::index(index, DUE_PK)
            .range(Range::AtMost(upto.clone()))
            .fields(&[table::PK, table::SK, index.sk])
            .limit(PAGE)
            .after(cursor.take());
        let page = db.query_page(query).await?;
        for item in &page.items {
            if out.due == 0 {
                let due: i64 = db::text(item, "gsi1sk")
                    .split('#')
                    .next()
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(now);
                out.lag_ms = (now - due).max(0) as u64;
            }
            out.due += 1;
            if touch(db, item, now).await? {
                out.touched += 1;
            }
        }
        cursor = page.next;
        if cursor.is_none() {
            break;
        }
    }
    Ok(out)
}

/// Raises the delivery's `touch` and moves its due time a lease ahead,
/// unless it changed since it was read (`false` then).
async fn touch(db: &Db, item: &db::Item, now: i64) -> Result<bool, DbError> {
    let (pk, sk, filed) = (
        db::text(item, "pk"),
        db::text(item, "sk"),
        db::text(item, "gsi1sk"),
    );
    let due = now + LEASE.as_millis() as i64;
    // The filing keeps its hook and delivery id, after the due time.
    let rest = filed.split_once('#').map_or("", |(_, rest)| rest);
    let filing = table::INDEXES[0].sk;
    let result = db
        .change(
            db::keys::key(pk, sk),
            db::Change::new()
                .set_plus("touch", 0, 1)
                .set("due", db::n(due))
                .set(filing, db::s(format!("{due:013}#{rest}"))),
            Some(Cond::eq(filing, db::s(filed))),
            Returns::Nothing,
        )
        .await;
    match result {
        Ok(_) => Ok(true),
        Err(DbError::ConditionFailed) => Ok(false),
        Err(e) => Err(e),
    }
}
