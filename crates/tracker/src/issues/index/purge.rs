//! A deleted issue's leftovers, removed off the request path a page at a
//! time by the stream consumer's purge job ([`super::jobs`]): both sides of
//! its dependencies, then its comments with their listing entries (its
//! reactions go in `reactions::cleanup`). Until the last page, the repository's counters item names the issue in its
//! `purging` set and the comment listings pass over its comments, so no
//! page shows a hole and totals agree with what is shown; the last page
//! takes the number out of the set.
//!
//! The job's cursor says how far it went (`<removed>:<idle>:<gsi1sk>`).
//! The comments' index lags the table by moments, so a page that finds
//! fewer comments than the issue counted tries again a few times before
//! the job ends; `check-data` removes anything a failure leaves.

use super::stubs::{self, CommentPlace};
use crate::{
    db::{self, Change, Cond, Db, DbError, Item, Query, Range, Returns, keys, table::INDEXES},
    issues::deps,
};

/// Comments removed per page.
const PAGE: i32 = 50;

/// Pages in a row that may find fewer comments than expected before the
/// job ends anyway.
const IDLE_PAGES: u32 = 5;

/// Where a purge stands.
#[derive(Debug, Default, PartialEq, Eq)]
struct Cursor {
    removed: i64,
    idle: u32,
    after: String,
}

impl Cursor {
    fn parse(raw: &str) -> Cursor {
        let mut parts = raw.splitn(3, ':');
        Cursor {
            removed: parts.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            idle: parts.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            after: parts.next().unwrap_or("").to_string(),
        }
    }

    fn format(&self) -> String {
        format!("{}:{}:{}", self.removed, self.idle, self.after)
    }
}

/// One page of the clean-up of issue `index`, which counted `expected`
/// comments when it was deleted. `cursor` is empty on the first page.
/// Returns where the next page starts, or `None` once done.
pub async fn page(
    db: &Db,
    repo_id: i64,
    index: i64,
    expected: i64,
    cursor: &str,
) -> Result<Option<String>, DbError> {
    if cursor.is_empty() {
        deps::unlink(db, repo_id, index).await?;
    }
    let mut at = Cursor::parse(cursor);
    let found = next_comments(db, repo_id, index, &at.after).await?;
    let mut gone: Vec<Item> = Vec::with_capacity(found.len() * 5);
    for (c, gsi1sk) in &found {
        gone.push(keys::comment(c.repo_id, c.id));
        gone.extend(
            stubs::stubs(c)
                .into_keys()
                .map(|(pk, sk)| keys::key(&pk, &sk)),
        );
        at.after.clone_from(gsi1sk);
    }
    db.batch_delete(gone).await?;
    at.removed += found.len() as i64;
    if found.len() as i32 == PAGE {
        at.idle = 0;
        return Ok(Some(at.format()));
    }
    if at.removed < expected && at.idle < IDLE_PAGES {
        at.idle += 1;
        return Ok(Some(at.format()));
    }
    done(db, repo_id, index).await?;
    Ok(None)
}

/// The next comments of issue `index` after `after` in its comments'
/// index, with what their entries need.
async fn next_comments(
    db: &Db,
    repo_id: i64,
    index: i64,
    after: &str,
) -> Result<Vec<(CommentPlace, String)>, DbError> {
    let gsi1 = INDEXES[0];
    let mut q = Query::index(gsi1, keys::issue_comments_pk(repo_id, index))
        .fields(&[
            "id", "repo_id", "index", "is_pull", "created", "updated", gsi1.sk,
        ])
        .limit(PAGE);
    if !after.is_empty() {
        q = q.range(Range::Above(after.to_string()));
    }
    Ok(db
        .query_page(q)
        .await?
        .items
        .iter()
        .map(|i| (CommentPlace::of(i), db::text(i, gsi1.sk).to_string()))
        .collect())
}

/// The listings no longer pass over issue `index`.
async fn done(db: &Db, repo_id: i64, index: i64) -> Result<(), DbError> {
    let change = Change::new().delete("purging", db::Value::Ns(vec![index.to_string()]));
    let out = db
        .change(
            keys::repo_stats(repo_id),
            change,
            Some(Cond::exists()),
            Returns::Nothing,
        )
        .await;
    match out {
        // The repository is gone meanwhile.
        Err(DbError::ConditionFailed) => Ok(()),
        other => other.map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_start_empty() {
        let c = Cursor {
            removed: 150,
            idle: 2,
            after: "00000000000000000100#00000000000000000007".into(),
        };
        assert_eq!(Cursor::parse(&c.format()), c);
        assert_eq!(Cursor::parse(""), Cursor::default());
    }
}
