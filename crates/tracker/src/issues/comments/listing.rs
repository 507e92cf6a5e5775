//! Comment listings, oldest first as Gitea's: one issue's comments and a
//! repository's, per kind the caller may read. Totals come from the
//! issue's and repository's counters (exact at all times).
//!
//! Every page reads the comment listings of the search index
//! ([`crate::issues::index::stubs`]), which each comment's write keeps in
//! its own transaction, strongly consistent: a comment shows in the next
//! listing once its write answered. An entry is a few bytes however long
//! the comment, so a deep page or a window costs the entries before it,
//! not the comments; the page's comments are then read by key.
//!
//! - A page past the end is empty without reading anything.
//! - A `since`/`before` window is the comments created within it and
//!   still unchanged since, plus those edited within it (created before):
//!   both ranges of the listings, merged.
//! - While a deleted issue's comments are being removed (the counters
//!   item's `purging` set), a repository's listing passes over that
//!   issue's entries: each entry names its issue, so they cost a few bytes
//!   each, and no page shows a hole.

use std::collections::BTreeSet;

use super::super::{Error, IssueRecord, Result};
use super::model::CommentRecord;
use crate::{
    db::{self, Consistency, Db, keys},
    issues::index::{
        lists,
        walk::{Entry, Place, Walk},
    },
    page::Page,
    repos::RepoStats,
};

/// Most entries a window reads to count its comments exactly (past that,
/// the total is the listing's whole count, an upper bound).
const COUNT_ENTRIES: usize = 20_000;

/// Most edited comments a `since` window considers.
const MAX_EDITED: usize = 2_000;

/// A page of an unfiltered listing past the first reads this many more
/// entries, in case some comments went since their entries were read.
const SLACK: usize = 10;

/// `since` / `before` (Unix seconds, inclusive) on a listed item's time: a
/// comment's `updated`, a tracked time's `created`, as Gitea filters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub since: Option<i64>,
    pub before: Option<i64>,
}

impl Window {
    pub fn is_open(&self) -> bool {
        self.since.is_none() && self.before.is_none()
    }
}

/// One page of a listing and the number of comments it pages through.
pub struct Listed {
    pub shown: Vec<CommentRecord>,
    pub total: u64,
}

/// Where a listing's comments are indexed.
struct Source {
    /// The comment listings, by creation, and of edited ones, by update.
    created: Vec<String>,
    edited: Vec<String>,
    /// Every comment of the listing (the counters).
    total: u64,
    repo_id: i64,
    /// Deleted issues whose comments are still being removed.
    purging: BTreeSet<i64>,
}

impl Source {
    /// Whether an entry may be shown: not a comment of a deleted issue
    /// (an entry from before entries named their issue says 0: its
    /// comment is checked once read).
    fn shows(&self, e: &Entry) -> bool {
        !self.purging.contains(&e.issue)
    }
}

/// One issue's comments.
pub async fn of_issue(db: &Db, issue: &IssueRecord, window: Window, page: Page) -> Result<Listed> {
    let source = Source {
        created: vec![lists::issue_comments_pk(issue.repo_id, issue.index, false)],
        edited: vec![lists::issue_comments_pk(issue.repo_id, issue.index, true)],
        total: issue.comments.max(0) as u64,
        repo_id: issue.repo_id,
        purging: BTreeSet::new(),
    };
    list(db, &source, window, page).await
}

/// A repository's comments on the kinds in `kinds` (`false` issues,
/// `true` pull requests), merged oldest first. Comments of deleted issues
/// (whose removal is still under way) are passed over.
pub async fn of_repo(
    db: &Db,
    repo_id: i64,
    stats: &RepoStats,
    kinds: &[bool],
    window: Window,
    page: Page,
) -> Result<Listed> {
    let total = kinds
        .iter()
        .map(|pull| {
            if *pull {
                stats.num_pull_comments
            } else {
                stats.num_issue_comments
            }
            .max(0) as u64
        })
        .sum();
    let source = Source {
        created: kinds
            .iter()
            .map(|k| lists::kind_comments_pk(repo_id, *k, false))
            .collect(),
        edited: kinds
            .iter()
            .map(|k| lists::kind_comments_pk(repo_id, *k, true))
            .collect(),
        total,
        repo_id,
        purging: stats.purging.clone(),
    };
    list(db, &source, window, page).await
}

async fn list(db: &Db, source: &Source, window: Window, page: Page) -> Result<Listed> {
    let size = page.size as usize;
    if window.is_open() {
        if page.offset() as u64 >= source.total {
            return Ok(Listed {
                shown: Vec::new(),
                total: source.total,
            });
        }
        let mut walk = Walk::new(source.created.clone(), true, None);
        let need = page.offset() + size + SLACK;
        let places = take_where(db, &mut walk, need, usize::MAX, |e| source.shows(e)).await?;
        let wanted: Vec<Place> = places.into_iter().skip(page.offset()).collect();
        let mut shown = fetch(db, source, &wanted).await?;
        shown.truncate(size);
        return Ok(Listed {
            shown,
            total: source.total,
        });
    }

    let since = window.since.unwrap_or(0);
    let before = window.before.unwrap_or(i64::MAX / 2);
    // Edited within the window, created before it: they come first.
    let mut early: Vec<Place> = Vec::new();
    if window.since.is_some() {
        let mut edited = Walk::new(source.edited.clone(), true, None).within(since, before);
        while !edited.all_read() {
            edited.fill(db, 1000).await?;
            if edited.read > MAX_EDITED {
                return Err(Error::TooBroad(format!(
                    "more than {MAX_EDITED} comments were edited within this window: narrow it"
                )));
            }
        }
        early = edited
            .settled()
            .into_iter()
            .filter(|e| e.extra < since && source.shows(e))
            .map(|e| (e.extra, e.place.1, e.place.2))
            .collect();
        early.sort();
    }
    // Created within the window and not changed after it.
    let mut created = Walk::new(source.created.clone(), true, None).within(since, before);
    let need = (page.offset() + size).saturating_sub(early.len());
    let keep = |e: &Entry| e.extra <= before && source.shows(e);
    let mut places = early.clone();
    places.extend(take_where(db, &mut created, need, COUNT_ENTRIES, keep).await?);
    let shown_places: Vec<Place> = places
        .iter()
        .skip(page.offset())
        .take(size)
        .copied()
        .collect();
    // Count on, within bounds, for the total.
    let mut counted = places.len();
    counted += take_where(db, &mut created, usize::MAX, COUNT_ENTRIES, keep)
        .await?
        .len();
    let total = if created.exhausted() {
        counted as u64
    } else {
        source.total.max(counted as u64)
    };
    Ok(Listed {
        shown: fetch(db, source, &shown_places).await?,
        total,
    })
}

/// The next `need` entries of a walk that `keep` accepts, reading at most
/// `most` entries in all.
async fn take_where(
    db: &Db,
    walk: &mut Walk,
    need: usize,
    most: usize,
    keep: impl Fn(&Entry) -> bool,
) -> Result<Vec<Place>> {
    let mut out = Vec::new();
    let mut chunk = need.clamp(20, 1000);
    while out.len() < need {
        let settled = walk.settled_up_to(need - out.len());
        if settled.is_empty() {
            if walk.exhausted() || walk.read >= most {
                break;
            }
            walk.fill(db, chunk).await?;
            chunk = (chunk * 2).min(1000);
            continue;
        }
        out.extend(settled.iter().filter(|e| keep(e)).map(|e| e.place));
    }
    Ok(out)
}

/// The comments at `places`, read by key (strongly consistent: as they
/// are now), in order; those gone meanwhile, and those of deleted issues
/// that an entry did not say, are left out.
async fn fetch(db: &Db, source: &Source, places: &[Place]) -> Result<Vec<CommentRecord>> {
    let keys = places
        .iter()
        .map(|p| keys::comment(source.repo_id, p.2))
        .collect();
    let mut shown: Vec<CommentRecord> = db
        .batch_get_many(keys, None, Consistency::Strong)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<std::result::Result<_, _>>()?;
    shown.retain(|c| !source.purging.contains(&c.index));
    shown.sort_by_key(|c| (c.created, c.id));
    Ok(shown)
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
        assert!(Window::default().is_open());
    }
}
