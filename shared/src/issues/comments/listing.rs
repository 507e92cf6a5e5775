//! Comment listings, oldest first as Gitea's: one issue's comments
//! (`gsi1`, `RIC#<repo>#<number>`) and a repository's, per kind the caller
//! may read (`gsi2`, `RC#<repo>#<i|p>`). Without `since`/`before` a listing
//! reads only where the comments up to the end of the page sit (a few
//! attributes each) and takes its total from the issue's or repository's
//! counters; with them it reads those attributes of the whole partition.
//! The page's comments are then read by key, in full.

use std::collections::HashSet;

use futures::{StreamExt, TryStreamExt};

use super::super::{IssueRecord, Result};
use super::model::CommentRecord;
use crate::{
    db::{self, Consistency, Db, Item, keys},
    http::paging::Page,
    repos::RepoStats,
};

/// `since` / `before` (Unix seconds, inclusive) on the comment's
/// `updated` time, as Gitea filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub since: Option<i64>,
    pub before: Option<i64>,
}

impl Window {
    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.before.is_none()
    }

    fn holds(&self, updated: i64) -> bool {
        self.since.is_none_or(|s| updated >= s) && self.before.is_none_or(|b| updated <= b)
    }
}

/// Where a comment sits in a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    created: i64,
    id: i64,
    index: i64,
    updated: i64,
}

/// What a listing reads of each comment before the page is chosen.
const PLACE: [&str; 4] = ["created", "id", "index", "updated"];

impl Entry {
    fn from_item(item: &Item) -> Self {
        Self {
            created: db::number(item, "created"),
            id: db::number(item, "id"),
            index: db::number(item, "index"),
            updated: db::number(item, "updated"),
        }
    }
}

/// One page of a listing and the number of comments it pages through.
pub struct Listed {
    pub shown: Vec<CommentRecord>,
    pub total: u64,
}

/// Reads the places of one index partition, oldest first, stopping once
/// `limit` entries the window holds were found (all of them when `None`).
async fn places(
    db: &Db,
    index: &'static str,
    pk: String,
    window: Window,
    limit: Option<usize>,
) -> Result<Vec<Entry>> {
    let (pk_attr, mut out, mut cursor) = (format!("{index}pk"), Vec::new(), None);
    loop {
        // Without a window every entry counts: ask for no more than needed.
        let want = limit
            .filter(|_| window.is_open())
            .map(|l| (l - out.len()).clamp(1, 1000) as i32);
        let page = db
            .query(|q| {
                db::project(
                    q.index_name(index)
                        .key_condition_expression(format!("{pk_attr} = :pk"))
                        .expression_attribute_values(":pk", db::s(&pk))
                        .set_limit(want)
                        .set_exclusive_start_key(cursor.take()),
                    Some(&PLACE),
                )
            })
            .await?;
        out.extend(
            page.items()
                .iter()
                .map(Entry::from_item)
                .filter(|e| window.holds(e.updated)),
        );
        let done = limit.is_some_and(|l| out.len() >= l);
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() && !done => cursor = Some(k),
            _ => return Ok(out),
        }
    }
}

/// The comments of `page` among `all` (sorted oldest first), read by key,
/// eventually consistent like the index that placed them.
async fn fetch(db: &Db, repo_id: i64, all: &[Entry], page: Page) -> Result<Vec<CommentRecord>> {
    let keys = page
        .slice(all)
        .iter()
        .map(|e| keys::comment(repo_id, e.id))
        .collect();
    let mut shown: Vec<CommentRecord> = db
        .batch_get_many(keys, None, Consistency::Eventual)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    shown.sort_by_key(|c| (c.created, c.id));
    Ok(shown)
}

/// One issue's comments.
pub async fn of_issue(db: &Db, issue: &IssueRecord, window: Window, page: Page) -> Result<Listed> {
    let pk = keys::issue_comments_pk(issue.repo_id, issue.index);
    let end = page.offset() + page.size as usize;
    let limit = window.is_open().then_some(end);
    let all = places(db, "gsi1", pk, window, limit).await?;
    let total = if window.is_open() {
        issue.comments.max(0) as u64
    } else {
        all.len() as u64
    };
    Ok(Listed {
        shown: fetch(db, issue.repo_id, &all, page).await?,
        total,
    })
}

/// A repository's comments on the kinds in `kinds` (`false` issues,
/// `true` pull requests), merged oldest first. Comments of an issue
/// deleted moments ago (whose removal is still under way, or failed) are
/// left out of the page.
pub async fn of_repo(
    db: &Db,
    repo_id: i64,
    stats: &RepoStats,
    kinds: &[bool],
    window: Window,
    page: Page,
) -> Result<Listed> {
    let end = page.offset() + page.size as usize;
    let limit = window.is_open().then_some(end);
    let reads: Vec<_> = kinds
        .iter()
        .map(|k| {
            places(
                db,
                "gsi2",
                keys::repo_comments_pk(repo_id, *k),
                window,
                limit,
            )
        })
        .collect();
    let mut all: Vec<Entry> = futures::stream::iter(reads)
        .buffer_unordered(2)
        .try_collect::<Vec<_>>()
        .await?
        .into_iter()
        .flatten()
        .collect();
    all.sort_by_key(|e| (e.created, e.id));
    let total = if window.is_open() {
        kinds
            .iter()
            .map(|pull| {
                if *pull {
                    stats.num_pull_comments
                } else {
                    stats.num_issue_comments
                }
                .max(0) as u64
            })
            .sum()
    } else {
        all.len() as u64
    };
    let mut shown = fetch(db, repo_id, &all, page).await?;
    let numbers: HashSet<i64> = shown.iter().map(|c| c.index).collect();
    let alive = alive_issues(db, repo_id, numbers).await?;
    shown.retain(|c| alive.contains(&c.index));
    Ok(Listed { shown, total })
}

/// Which of the issue numbers still name an issue (one batched read of
/// their numbers only).
async fn alive_issues(db: &Db, repo_id: i64, numbers: HashSet<i64>) -> Result<HashSet<i64>> {
    let numbers: Vec<i64> = numbers.into_iter().collect();
    let mut alive = HashSet::new();
    for chunk in numbers.chunks(100) {
        let keys = chunk.iter().map(|n| keys::issue(repo_id, *n)).collect();
        for item in db.batch_get_projected(keys, Some(&["index"])).await? {
            alive.insert(db::number(&item, "index"));
        }
    }
    Ok(alive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_inclusive() {
        let w = Window {
            since: Some(10),
            before: Some(20),
        };
        assert!(!w.is_open());
        assert!(w.holds(10) && w.holds(20) && !w.holds(9) && !w.holds(21));
        assert!(Window::default().holds(i64::MIN) && Window::default().is_open());
    }
}
