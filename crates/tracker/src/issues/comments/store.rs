//! Where comments are stored, and the writes that keep their counts exact.
//!
//! A comment lives under its repository by its global id. Creating or
//! deleting one is one transaction: the comment, the issue's `comments`
//! (with `version`, so an issue edit made from an older read re-reads and
//! cannot write the old count back) and the repository's count for its
//! kind. Recording mentions on the issue is a read-modify-write of its
//! list, so only then is the issue written on condition of the `version`
//! read; a lost race re-reads the issue and tries again.

use std::time::Duration;

use super::super::{Error, IssueRecord, Result};
use super::model::{self, CommentRecord};
use crate::{
    db::{self, Change, Cond, Db, DbError, keys},
    issues::index::{pending, stubs},
    outbox, time,
};

/// Attempts of one write under contention before answering 503.
const ATTEMPTS: u32 = 50;

async fn pause(attempt: u32) {
    let jitter = rand::random::<u64>() % (5 + 5 * u64::from(attempt.min(10)));
    tokio::time::sleep(Duration::from_millis(jitter)).await;
}

/// A comment of a repository by id.
pub async fn get(db: &Db, repo_id: i64, id: i64) -> Result<Option<CommentRecord>> {
    Ok(db.get_as(keys::comment(repo_id, id)).await?)
}

/// The issue a comment belongs to, afresh (404 when it is gone).
async fn reread(db: &Db, repo_id: i64, index: i64) -> Result<IssueRecord> {
    super::super::get(db, repo_id, index)
        .await?
        .ok_or(Error::NoSuchIssue { repo_id, index })
}

/// A comment item whose write keeps its listing entries (see
/// `index::stubs`).
fn listed(mut item: db::Item) -> db::Item {
    item.insert(stubs::LISTED.into(), db::b(true));
    item
}

fn list(names: &[String]) -> db::Value {
    db::Value::L(names.iter().map(db::s).collect())
}

/// A validated create request (permissions already applied).
pub struct NewComment {
    /// Lower-case login of the author.
    pub poster: String,
    pub body: String,
    /// Existing users the body mentions (lower-case).
    pub mentions: Vec<String>,
    /// The author may not write the issue's kind: the issue must still be
    /// unlocked when the comment lands.
    pub unlocked_only: bool,
}

/// Adds a comment to `loaded` (its issue, as read).
pub async fn create(db: &Db, loaded: IssueRecord, new: NewComment) -> Result<CommentRecord> {
    let now = time::now();
    let rec = CommentRecord {
        id: db.next_id("comment").await?,
        repo_id: loaded.repo_id,
        index: loaded.index,
        is_pull: loaded.is_pull,
        poster: new.poster,
        body: new.body,
        created: now,
        updated: now,
        version: 1,
    };
    let item = listed(db.stamp(rec.to_item()?)?);
    let counter = model::repo_counter(rec.is_pull);
    let mut issue = loaded;
    let write = pending::Write::new(db);
    for attempt in 0..ATTEMPTS {
        if new.unlocked_only && issue.is_locked {
            return Err(Error::LockedIssue);
        }
        let add = model::unrecorded_mentions(&issue, &new.mentions);
        let mut change = write.recorded(Change::new().set("updated", db::n(now)));
        let mut condition = Cond::exists();
        if !add.is_empty() {
            let mut all = issue.comment_mentions.clone();
            all.extend(add);
            change = change.set("comment_mentions", list(&all));
            condition = condition.and(Cond::eq("version", db::n(issue.version)));
        }
        if new.unlocked_only {
            // `is_locked` is a boolean when present: unset or false is
            // "not true".
            condition = condition.and(Cond::unset_or_eq("is_locked", db::b(false)));
        }
        let mut tx = db.tx();
        tx.put_if_absent(item.clone())?;
        tx.change(
            keys::issue(issue.repo_id, issue.index),
            change.add("comments", db::n(1)).add("version", db::n(1)),
            Some(condition),
        )?;
        tx.change(
            keys::repo_stats(issue.repo_id),
            Change::new().add(counter, db::n(1)),
            Some(Cond::exists()),
        )?;
        write.mark(&mut tx, issue.repo_id, issue.index)?;
        stubs::write(&mut tx, None, Some(&rec.place()))?;
        match db.transact(tx).await {
            Ok(()) => return Ok(rec),
            Err(e)
                if e.failed_condition() == Some(1) || matches!(e, DbError::TransactionConflict) =>
            {
                // Mentions recorded, the issue locked or deleted meanwhile.
                pause(attempt).await;
                issue = reread(db, issue.repo_id, issue.index).await?;
            }
            Err(e) if e.failed_condition() == Some(2) => return Err(Error::Hidden),
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}

/// Replaces a comment's body (nothing is written when it is the same) and
/// records the mentions it adds on the issue.
pub async fn edit(
    db: &Db,
    loaded: CommentRecord,
    issue: IssueRecord,
    body: String,
    mentions: Vec<String>,
) -> Result<CommentRecord> {
    let (mut comment, mut issue) = (loaded, issue);
    let write = pending::Write::new(db);
    for attempt in 0..ATTEMPTS {
        if comment.body == body {
            return Ok(comment);
        }
        let next = CommentRecord {
            body: body.clone(),
            updated: time::now(),
            version: comment.version + 1,
            ..comment.clone()
        };
        let add = model::unrecorded_mentions(&issue, &mentions);
        let mut tx = db.tx();
        tx.put_when(
            listed(db.stamp(next.to_item()?)?),
            Cond::eq("version", db::n(comment.version)),
        )?;
        if !add.is_empty() {
            let mut all = issue.comment_mentions.clone();
            all.extend(add);
            tx.change(
                keys::issue(issue.repo_id, issue.index),
                write.recorded(
                    Change::new()
                        .set("comment_mentions", list(&all))
                        .add("version", db::n(1)),
                ),
                Some(Cond::eq("version", db::n(issue.version))),
            )?;
            write.mark(&mut tx, issue.repo_id, issue.index)?;
        }
        stubs::write(&mut tx, Some(&comment.place()), Some(&next.place()))?;
        match db.transact(tx).await {
            Ok(()) => return Ok(next),
            Err(e) if e.failed_condition() == Some(0) => {
                pause(attempt).await;
                comment = get(db, comment.repo_id, comment.id)
                    .await?
                    .ok_or(Error::NoSuchComment)?;
            }
            Err(e)
                if e.failed_condition() == Some(1) || matches!(e, DbError::TransactionConflict) =>
            {
                pause(attempt).await;
                issue = reread(db, issue.repo_id, issue.index)
                    .await
                    .map_err(|_| Error::NoSuchComment)?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}

/// Deletes a comment with its share of the counts; 404 when it (or its
/// issue) is gone meanwhile.
pub async fn delete(db: &Db, c: &CommentRecord) -> Result<()> {
    let write = pending::Write::new(db);
    let mut c = c.clone();
    for attempt in 0..ATTEMPTS {
        let mut tx = db.tx();
        // As read: its listing entries are those of this version.
        tx.delete_when(
            keys::comment(c.repo_id, c.id),
            Cond::eq("version", db::n(c.version)),
        )?;
        stubs::write(&mut tx, Some(&c.place()), None)?;
        tx.put(outbox::event(db, c.repo_id, outbox::COMMENT_DELETED, &c)?)?;
        tx.change(
            keys::issue(c.repo_id, c.index),
            write.recorded(
                Change::new()
                    .add("comments", db::n(-1))
                    .add("version", db::n(1)),
            ),
            Some(Cond::exists()),
        )?;
        tx.change(
            keys::repo_stats(c.repo_id),
            Change::new().add(model::repo_counter(c.is_pull), db::n(-1)),
            Some(Cond::exists()),
        )?;
        write.mark(&mut tx, c.repo_id, c.index)?;
        match db.transact(tx).await {
            Ok(()) => return Ok(()),
            Err(DbError::TransactionConflict) => pause(attempt).await,
            Err(e) if e.failed_condition() == Some(0) => {
                // Edited meanwhile (or gone: 404).
                pause(attempt).await;
                c = get(db, c.repo_id, c.id)
                    .await?
                    .ok_or(Error::NoSuchComment)?;
            }
            Err(e) if e.failed_condition().is_some() => return Err(Error::NoSuchComment),
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}
