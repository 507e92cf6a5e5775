//! Issues and pull-request records. Both live under their repository's id,
//! keyed by the per-repository number they share; every write that moves a
//! counter (repository, milestone) does so in the same transaction, guarded
//! by the issue's `version`, so concurrent writers cannot double-count.
//!
//! - model: [`IssueRecord`] (here), [`fields`] (bounds), [`rules`] (who may
//!   do what, state changes), [`index::query::Checks`] and the query parsing
//!   atop [`search`] (pure, unit-tested);
//! - operations: [`ops`] (one per route) and [`search`] (the listings);
//! - store: [`create`], [`edit`], [`deps`] and the counter
//!   moves here (keys, `Tx`);
//! - views: [`views`] (Gitea's `Issue`, `PullRequest`), [`options`]
//!   (request bodies, `PullReview`).

pub mod assignees;
pub mod comments;
pub mod create;
pub mod deps;
pub mod edit;
mod error;
pub mod fields;
pub mod index;
pub mod lock;
mod opening;
pub mod ops;
pub mod options;
pub mod params;
pub mod pull_list;
pub mod reactions;
pub mod rules;
pub mod search;
pub mod times;
pub mod views;

use serde::{Deserialize, Serialize};

pub use error::{Error, Result};

/// Most deleted issues of one repository whose comments are being removed
/// at once (each makes the repository's comment listings pass over its
/// leftovers until its clean-up job is done).
pub const MAX_PURGING: i64 = 100;

use crate::{
    db::{self, Cond, Db, Item, Tx, keys},
    milestones, outbox,
};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssueRecord {
    /// Global id (Gitea exposes one besides the number).
    pub id: i64,
    pub repo_id: i64,
    /// Per-repository number shared by issues and pull requests.
    pub index: i64,
    #[serde(default)]
    pub is_pull: bool,
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default, rename = "ref")]
    pub git_ref: String,
    /// Lower-case login of the poster.
    pub poster: String,
    #[serde(default)]
    pub assignees: Vec<String>,
    #[serde(default)]
    pub labels: Vec<i64>,
    /// Milestone id, 0 for none.
    #[serde(default)]
    pub milestone: i64,
    #[serde(default)]
    pub closed: bool,
    #[serde(default)]
    pub closed_at: i64,
    /// Deadline (23:59:59 of its day), 0 for none.
    #[serde(default)]
    pub due: i64,
    pub created: i64,
    pub updated: i64,
    /// Bumped by every body change (the optimistic check of body edits).
    #[serde(default)]
    pub content_version: i64,
    /// Bumped by every write (the condition of every transaction).
    #[serde(default)]
    pub version: i64,
    /// Lower-case logins mentioned as `@login` in the title or body.
    #[serde(default)]
    pub mentions: Vec<String>,
    #[serde(default)]
    pub head: String,
    #[serde(default)]
    pub base: String,
    /// Whether maintainers may push to the head branch (the poster's say).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_maintainer_edit: bool,
    #[serde(default)]
    pub merged: bool,
    #[serde(default)]
    pub merged_at: i64,
    #[serde(default)]
    pub review_requested: Vec<String>,
    #[serde(default)]
    pub reviewed: Vec<String>,
    /// Plain comments on it (Gitea's `comments`): moved by every comment
    /// create and delete in its transaction, with `version`.
    #[serde(default)]
    pub comments: i64,
    /// Locked: only writers of its kind may comment.
    #[serde(default)]
    pub is_locked: bool,
    #[serde(default)]
    pub lock_reason: String,
    /// Lower-case logins of users mentioned in its comments (never
    /// removed, as Gitea's), at most [`fields::MAX_MENTIONS`].
    #[serde(default)]
    pub comment_mentions: Vec<String>,
    /// A pull request's latest review, for webhooks (the stream carries
    /// it): who, the outcome, its count, the start of its body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_review: Option<LastReview>,
    /// The token of the last write, which its pending marks hold until the
    /// index has it (`index::pending`); absent on items written before.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ixw: String,
    /// Who made the last write (lower-case login; `-` for none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ixb: String,
}

/// A pull request's latest review.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastReview {
    pub login: String,
    /// `APPROVED`, `REQUEST_CHANGES` or `COMMENT`.
    pub event: String,
    /// The pull request's reviews so far (each review changes the item).
    pub n: i64,
    /// The review's body, cut to [`LastReview::EXCERPT_CHARS`].
    #[serde(default)]
    pub excerpt: String,
}

impl LastReview {
    /// How much of a review's body the pull request keeps (its item stays
    /// well within DynamoDB's 400 KB whatever the bodies).
    pub const EXCERPT_CHARS: usize = 1024;
}

impl IssueRecord {
    /// The stored item: the record, its key and its listing-index keys.
    pub fn to_item(&self) -> Result<Item> {
        let mut item = db::to_item(self)?;
        item.extend(keys::issue(self.repo_id, self.index));
        item.insert(
            "gsi1pk".into(),
            db::s(keys::issue_list_pk(self.repo_id, self.is_pull, self.closed)),
        );
        item.insert(
            "gsi1sk".into(),
            db::s(keys::issue_list_sk(self.created, self.index)),
        );
        Ok(item)
    }

    /// Records `write` as this record's last (see `index::pending`).
    pub fn written_by(&mut self, write: &index::pending::Write) {
        self.ixw = write.token.clone();
        self.ixb = write.writer.clone().unwrap_or_else(|| "-".into());
    }

    pub fn kind(&self) -> &'static str {
        if self.is_pull {
            "pull request"
        } else {
            "issue"
        }
    }
}

/// Lower-case logins written as `@login` in `text` (Gitea's mention rule:
/// `@` at a word start, followed by a valid user name), in order, without
/// repeats, at most [`fields::MAX_MENTIONS`]. One pass over the text.
pub fn mentions(text: &str) -> Vec<String> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut prev: Option<char> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let word_start =
            prev.is_none_or(|p| !(p.is_alphanumeric() || matches!(p, '.' | '_' | '-' | '@')));
        prev = Some(c);
        if c != '@' || !word_start {
            continue;
        }
        let start = at + 1;
        let mut end = start;
        while let Some(&(i, n)) = chars.peek() {
            if !is_name(n) {
                break;
            }
            end = i + n.len_utf8();
            prev = Some(n);
            chars.next();
        }
        let name = text[start..end].trim_end_matches(['.', '-', '_']);
        let name = crate::name::fold(name);
        if !name.is_empty() && seen.insert(name.clone()) {
            out.push(name);
            if out.len() == fields::MAX_MENTIONS {
                break;
            }
        }
    }
    out
}

pub async fn get(db: &Db, repo_id: i64, index: i64) -> Result<Option<IssueRecord>> {
    Ok(db.get_as(keys::issue(repo_id, index)).await?)
}

/// An issue by number, 404 when missing.
pub async fn find(db: &Db, repo_id: i64, index: i64) -> Result<IssueRecord> {
    get(db, repo_id, index)
        .await?
        .ok_or(Error::NoSuchIssue { repo_id, index })
}

/// Adds the counter moves for an issue going from `before` to `after`
/// (either may be absent: creation, deletion): repository totals by kind
/// and state, and the milestone totals with its membership item.
///
/// `number` claims the next issue number on creation: the repository's
/// `last_index` moves from `.0` to `.1` in the same update, on condition
/// that nobody else moved it first (DynamoDB allows one operation per item
/// in a transaction, so both changes share one update).
pub fn add_counter_moves(
    tx: &mut Tx,
    before: Option<&IssueRecord>,
    after: Option<&IssueRecord>,
    number: Option<(i64, i64)>,
) -> Result<()> {
    // Neither before nor after: nothing moves.
    let Some(sample) = after.or(before) else {
        return Ok(());
    };
    let (total, closed) = if sample.is_pull {
        ("num_pulls", "num_closed_pulls")
    } else {
        ("num_issues", "num_closed_issues")
    };
    let count = |i: Option<&IssueRecord>| {
        (
            i64::from(i.is_some()),
            i64::from(i.is_some_and(|i| i.closed)),
        )
    };
    let (b_total, b_closed) = count(before);
    let (a_total, a_closed) = count(after);
    let (d_total, d_closed) = (a_total - b_total, a_closed - b_closed);
    // A deleted issue takes its comments out of the repository's count.
    let comments = |i: Option<&IssueRecord>| i.map_or(0, |i| i.comments);
    let d_comments = comments(after) - comments(before);
    let comment_total = comments::model::repo_counter(sample.is_pull);
    let adds = db::Change::new()
        .add(total, db::n(d_total))
        .add(closed, db::n(d_closed))
        .add(comment_total, db::n(d_comments));
    match number {
        Some((prev, next)) => {
            tx.change(
                keys::repo_stats(sample.repo_id),
                adds.set("last_index", db::n(next)),
                Some(Cond::eq("last_index", db::n(prev))),
            )?;
        }
        // A deleted issue's comments go afterwards (its clean-up job):
        // the listings pass over them meanwhile, up to a bound.
        None if after.is_none() && comments(before) > 0 => {
            tx.change(
                keys::repo_stats(sample.repo_id),
                adds.add("purging", db::Value::Ns(vec![sample.index.to_string()])),
                Some(Cond::size_below("purging", MAX_PURGING)),
            )?;
        }
        None if d_total != 0 || d_closed != 0 || d_comments != 0 => {
            tx.change(keys::repo_stats(sample.repo_id), adds, None)?;
        }
        None => {}
    }
    let closed = |i: &IssueRecord| i64::from(i.closed);
    match (
        before.filter(|i| i.milestone != 0),
        after.filter(|i| i.milestone != 0),
    ) {
        (Some(b), Some(a)) if b.milestone == a.milestone => {
            if closed(a) != closed(b) {
                tx.change(
                    keys::milestone(a.repo_id, a.milestone),
                    db::Change::new().add("num_closed_issues", db::n(closed(a) - closed(b))),
                    Some(Cond::exists()),
                )?;
            }
        }
        (b, a) => {
            for (issue, sign) in [(b, -1), (a, 1)] {
                let Some(i) = issue else { continue };
                tx.change(
                    keys::milestone(i.repo_id, i.milestone),
                    db::Change::new()
                        .add("num_issues", db::n(sign))
                        .add("num_closed_issues", db::n(sign * closed(i))),
                    Some(Cond::exists()),
                )?;
                let member = keys::milestone_issue(i.repo_id, i.milestone, i.index);
                if sign > 0 {
                    tx.put(member)?;
                } else {
                    tx.delete(member)?;
                }
            }
        }
    }
    Ok(())
}

/// Deletes an issue: its item, its counters' share (comments included)
/// and its milestone membership in one transaction, whatever else points
/// at it, on condition that it did not change since it was read (a comment
/// written meanwhile re-reads it). Its number is never handed out again.
/// Both sides of its dependencies and its comments, any number of them
/// (readers may attach dependents to public issues and comment on them),
/// go afterwards, off the request path: the stream consumer's purge job
/// (`index::jobs`), started by the issue's removal. Meanwhile links to it
/// are skipped wherever they are read, and the repository's comment
/// listings pass over its comments (the counters item's `purging` set).
/// At most [`MAX_PURGING`] deleted issues of a repository are cleaned up
/// at once: past that, the delete answers 503 until one is done.
pub async fn delete(db: &Db, issue: &IssueRecord) -> Result<()> {
    const ATTEMPTS: u32 = 10;
    let mut current = issue.clone();
    let write = index::pending::Write::deletion(db);
    for attempt in 0..ATTEMPTS {
        let mut tx = db.tx();
        tx.delete_when(
            keys::issue(current.repo_id, current.index),
            Cond::eq("version", db::n(current.version)),
        )?;
        add_counter_moves(&mut tx, Some(&current), None, None)?;
        tx.put(outbox::event(
            db,
            current.repo_id,
            outbox::ISSUE_DELETED,
            &current,
        )?)?;
        write.mark(&mut tx, current.repo_id, current.index)?;
        match db.transact(tx).await {
            Ok(()) => break,
            Err(e) if e.failed_condition() == Some(0) && attempt + 1 < ATTEMPTS => {
                current = match get(db, current.repo_id, current.index).await? {
                    Some(fresh) => fresh,
                    None => {
                        return Err(Error::NoSuchIssue {
                            repo_id: current.repo_id,
                            index: current.index,
                        });
                    }
                };
            }
            Err(e) if e.failed_condition() == Some(0) => return Err(Error::ChangedWhileDeleting),
            Err(e) if e.failed_condition() == Some(1) => return Err(Error::CleanupBacklog),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Deletes the milestone a path names (`id_or_title`, see
/// [`milestones::find`]), after taking it off its issues, as the seed does.
pub async fn delete_milestone(db: &Db, repo_id: i64, id_or_title: &str) -> Result<()> {
    let m = milestones::find(db, repo_id, id_or_title).await?;
    detach_milestone(db, repo_id, m.id).await?;
    Ok(milestones::delete(db, &m).await?)
}

/// Takes a milestone off every issue that has it (before the milestone is
/// deleted), each through the normal edit path so counters and membership
/// items follow. Returns how many issues were changed.
pub async fn detach_milestone(db: &Db, repo_id: i64, milestone_id: i64) -> Result<usize> {
    let members = db
        .query_prefix(
            &keys::repo_pk(repo_id),
            &keys::milestone_issue_prefix(milestone_id),
        )
        .await?;
    let mut changed = 0;
    for m in members {
        let Some(index) = m
            .get("sk")
            .and_then(|v| v.as_s().ok())
            .and_then(|sk| sk.rsplit('#').next())
            .and_then(|n| n.parse::<i64>().ok())
        else {
            continue;
        };
        let Some(issue) = get(db, repo_id, index).await? else {
            continue;
        };
        edit::update(db, issue, None, |i| {
            if i.milestone == milestone_id {
                i.milestone = 0;
            }
            Ok(())
        })
        .await?;
        changed += 1;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_mentions() {
        assert_eq!(
            super::mentions("hi @Alice and @bob.smith, cc @carol."),
            ["alice", "bob.smith", "carol"]
        );
        assert!(super::mentions("mail a@b.io or @@x or @").is_empty());
        assert_eq!(super::mentions("@dup @DUP"), ["dup"]);
        assert_eq!(super::mentions("x@y @z@w"), ["z"]);
    }

    #[test]
    fn mentions_are_capped_and_linear() {
        // 20,000 distinct names: only the first 50 are kept, in one pass.
        let text: String = (0..20_000).map(|i| format!("@u{i} ")).collect();
        let found = super::mentions(&text);
        assert_eq!(found.len(), super::fields::MAX_MENTIONS);
        assert_eq!(found[49], "u49");
        // One long name: the scan does not restart inside it.
        let long = format!("@{}", "a".repeat(900_000));
        assert_eq!(super::mentions(&long)[0].len(), 900_000);
    }
}
