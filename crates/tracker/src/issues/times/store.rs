//! Tracked times in the table (keys in `db::keys`): a time's copies and
//! its listings' counts are written and removed together, in one
//! transaction, so a count never differs from its entries; the per-user
//! cap is a condition on the count of the user's times on the issue.

use std::collections::BTreeMap;

use super::super::{Error, Result};
use super::{MAX_PER_USER_ISSUE, TimeRecord, Window};
use crate::{
    db::{self, Change, Cond, Db, DbError, Item, Query, Range, Tx, keys},
    page::Page,
};

/// Tries of a write that meets a concurrent one before giving up (503).
const ATTEMPTS: u32 = 8;

/// Times removed per transaction: 6 deletes each, plus at most 3 counts
/// per user and 2 shared ones, within DynamoDB's 100 items.
pub const REMOVE_CHUNK: usize = 10;

/// Most entries a `since`/`before` window reads to count its times
/// exactly; past that, `X-Total-Count` is the whole listing's count.
const COUNT_ENTRIES: i64 = 2_000;

/// Items [`add_to`] puts in a transaction, in order: the issue's check,
/// the capped count, then the rest (callers append after them).
pub const ADD_ITEMS: usize = 12;

pub(super) async fn pause(attempt: u32) {
    let ms = 10 * (1u64 << attempt.min(5)) + rand::random::<u64>() % 10;
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
}

fn counts(n: i64, s: i64) -> Change {
    Change::new().add("n", db::n(n)).add("s", db::n(s))
}

/// Adds `t` to `tx`: the issue must exist (item 0), the user's count on
/// the issue must be under the cap (item 1), then the copy by id, every
/// listing's entry and the other counts.
pub fn add_to(tx: &mut Tx, t: &TimeRecord) -> Result<()> {
    tx.require(keys::issue(t.repo_id, t.index))?;
    let listings = t.listings();
    let (pk, tag) = &listings[0];
    tx.change(
        keys::time_count(pk, tag),
        counts(1, t.time),
        Some(Cond::below("n", db::n(MAX_PER_USER_ISSUE))),
    )?;
    tx.put(record_item(t, keys::time_by_id(t.repo_id, t.id))?)?;
    for (pk, tag) in &listings {
        tx.put(record_item(t, keys::time_entry(pk, tag, t.created, t.id))?)?;
    }
    for (pk, tag) in &listings[1..] {
        tx.change(keys::time_count(pk, tag), counts(1, t.time), None)?;
    }
    Ok(())
}

fn record_item(t: &TimeRecord, key: Item) -> Result<Item> {
    let mut item = db::to_item(t)?;
    item.extend(key);
    Ok(item)
}

/// Stores `t` on its own (the body of `POST /times`).
pub async fn add(db: &Db, t: &TimeRecord) -> Result<()> {
    let mut tx = db.tx();
    add_to(&mut tx, t)?;
    db.transact(tx).await.map_err(|e| added_error(e, t))
}

/// What a failed add means: the issue went (404), the cap (422).
pub fn added_error(e: DbError, t: &TimeRecord) -> Error {
    match e.failed_condition() {
        Some(0) => Error::NoSuchIssue {
            repo_id: t.repo_id,
            index: t.index,
        },
        Some(1) => Error::TooManyTimes(MAX_PER_USER_ISSUE),
        _ => e.into(),
    }
}

/// A time by id in a repository (strongly consistent: it decides a delete).
pub async fn get(db: &Db, repo_id: i64, id: i64) -> Result<Option<TimeRecord>> {
    Ok(db.get_as(keys::time_by_id(repo_id, id)).await?)
}

/// Removes `times` (at most [`REMOVE_CHUNK`]) with every copy, moving the
/// counts by what goes, in one transaction; each must still be there, so
/// two removers never both lower a count. `Ok(false)`: one was gone or a
/// concurrent write met it; read again and retry.
pub async fn remove(db: &Db, times: &[TimeRecord]) -> Result<bool> {
    let mut moves: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
    let mut tx = db.tx();
    for t in times {
        tx.delete_when(keys::time_by_id(t.repo_id, t.id), Cond::exists())?;
        for (pk, tag) in t.listings() {
            tx.delete(keys::time_entry(&pk, &tag, t.created, t.id))?;
            let m = moves.entry((pk, tag)).or_default();
            (m.0, m.1) = (m.0 - 1, m.1 - t.time);
        }
    }
    for ((pk, tag), (n, s)) in moves {
        tx.change(keys::time_count(&pk, &tag), counts(n, s), None)?;
    }
    match db.transact(tx).await {
        Ok(()) => Ok(true),
        Err(e) if e.failed_condition().is_some() => Ok(false),
        Err(DbError::TransactionConflict) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Removes every time of a listing (a user's on an issue, an issue's, a
/// repository's by id), [`REMOVE_CHUNK`] at a time, reading again after
/// each; `false` when it had none.
pub async fn remove_listed(db: &Db, pk: &str, prefix: &str) -> Result<bool> {
    let mut any = false;
    let mut failures = 0;
    loop {
        let q = Query::table(pk).prefix(prefix).limit(REMOVE_CHUNK as i32);
        let page = db.query_page(q).await?;
        if page.items.is_empty() {
            return Ok(any);
        }
        let times: Vec<TimeRecord> = page
            .items
            .into_iter()
            .map(db::from_item)
            .collect::<Result<_, _>>()?;
        if remove(db, &times).await? {
            any = true;
        } else {
            failures += 1;
            if failures >= ATTEMPTS {
                return Err(Error::Busy);
            }
            pause(failures).await;
        }
    }
}

/// One page of a listing and the number of times it pages through.
pub struct Listed {
    pub shown: Vec<TimeRecord>,
    pub total: u64,
}

/// The sort keys of a listing's entries within `window`; `None` when
/// none can be in it (times are never created before 1970).
fn range(tag: &str, window: Window) -> Option<Range> {
    let since = window.since.unwrap_or(0).max(0);
    let to = match window.before {
        Some(b) if b < since => return None,
        Some(b) => keys::time_entries_to(tag, b),
        None => format!("{}~", keys::time_entries(tag)),
    };
    Some(Range::Between(keys::time_entries_from(tag, since), to))
}

/// The `page` of a listing within `window`, oldest first (by `created`).
/// The total is the listing's count when no window is given, else the
/// window's entries counted (up to [`COUNT_ENTRIES`]). The entries are
/// read up to the page's end, strongly consistent; a page past the total
/// reads nothing more.
pub async fn page(
    db: &Db,
    listing: &(String, String),
    window: Window,
    page: Page,
) -> Result<Listed> {
    let (pk, tag) = listing;
    let Some(range) = range(tag, window) else {
        return Ok(Listed {
            shown: Vec::new(),
            total: 0,
        });
    };
    let total = if window.is_open() {
        let count = db.get(keys::time_count(pk, tag)).await?;
        count.map_or(0, |c| db::number(&c, "n")).max(0) as u64
    } else {
        let q = Query::table(pk).range(range.clone());
        match db.count_at_most(q, COUNT_ENTRIES).await? {
            Some(n) => n as u64,
            None => {
                let count = db.get(keys::time_count(pk, tag)).await?;
                count.map_or(0, |c| db::number(&c, "n")).max(0) as u64
            }
        }
    };
    let (skip, take) = (page.offset(), page.size as usize);
    if skip as u64 >= total || take == 0 {
        return Ok(Listed {
            shown: Vec::new(),
            total,
        });
    }
    let found = db
        .query_first(Query::table(pk).range(range), skip + take)
        .await?;
    let shown = found
        .into_iter()
        .skip(skip)
        .take(take)
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    Ok(Listed { shown, total })
}

/// What a deleted issue's times leave once they are gone: the counts of
/// its listings. Idempotent.
pub async fn remove_issue_counts(db: &Db, repo_id: i64, index: i64) -> Result<()> {
    let (pk, tag) = keys::times_of_issue(repo_id, index);
    db.batch_delete(vec![keys::time_count(&pk, &tag)]).await?;
    let users = keys::times_of_issue_users_prefix(index);
    db.delete_found(Query::table(pk).prefix(users)).await?;
    Ok(())
}
