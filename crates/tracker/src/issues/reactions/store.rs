//! Reactions in the table (keys in `db::keys`): per target, a claim per
//! user and content, an entry per reaction in creation order and a
//! counter. Adding and removing write all three in one transaction, the
//! claim on condition (so concurrent identical requests store one
//! reaction, and the counter never differs from the entries); listing
//! reads the counter and a page of entries; clean-ups remove everything
//! under a prefix a page at a time.

use super::super::{Error, Result};
use super::model::{ReactionRecord, Target};
use crate::{
    db::{self, Change, Cond, Consistency, Db, DbError, Query, keys},
    page::Page,
};

/// Tries of a write that meets a concurrent one before giving up (503).
const ATTEMPTS: u32 = 8;

async fn pause(attempt: u32) {
    let ms = 10 * (1u64 << attempt.min(5)) + rand::random::<u64>() % 10;
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
}

/// What a POST did.
#[derive(Debug)]
pub enum Added {
    /// Stored now (Gitea's 201).
    New(ReactionRecord),
    /// The user had reacted so already (Gitea's 200 with that reaction).
    Existing(ReactionRecord),
}

/// `user`'s reaction `content` on `target`, if any (strongly consistent:
/// it decides writes).
pub async fn claim(
    db: &Db,
    target: &Target,
    probe: &ReactionRecord,
) -> Result<Option<ReactionRecord>> {
    Ok(db.get_as(probe.claim_key(target)).await?)
}

/// Adds `reaction` to `target`, or finds the same user's reaction of the
/// same content there. 404 (`gone`) when the target no longer exists.
pub async fn add(
    db: &Db,
    target: &Target,
    reaction: ReactionRecord,
    gone: fn() -> Error,
) -> Result<Added> {
    let prefix = target.prefix();
    for attempt in 0..ATTEMPTS {
        let mut tx = db.tx();
        tx.require(target.parent_key())?;
        tx.put_if_absent(reaction.to_item(reaction.claim_key(target))?)?;
        tx.put(reaction.to_item(reaction.entry_key(target))?)?;
        tx.change(
            keys::reaction_count(target.repo_id, &prefix),
            Change::new().add("n", db::n(1)),
            None,
        )?;
        match db.transact(tx).await {
            Ok(()) => return Ok(Added::New(reaction)),
            Err(e) if e.failed_condition() == Some(0) => return Err(gone()),
            Err(e) if e.failed_condition() == Some(1) => {
                if let Some(existing) = claim(db, target, &reaction).await? {
                    return Ok(Added::Existing(existing));
                }
                // Removed in the meantime: add it again.
                pause(attempt).await;
            }
            Err(DbError::TransactionConflict) => pause(attempt).await,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}

/// Removes `user`'s reaction `content` (as in `probe`) from `target`;
/// `false` when there was none (not an error, as in Gitea).
pub async fn remove(db: &Db, target: &Target, probe: &ReactionRecord) -> Result<bool> {
    let prefix = target.prefix();
    for attempt in 0..ATTEMPTS {
        let Some(found) = claim(db, target, probe).await? else {
            return Ok(false);
        };
        let mut tx = db.tx();
        tx.delete_when(found.claim_key(target), Cond::eq("at_us", db::n(found.at)))?;
        tx.delete(found.entry_key(target))?;
        tx.change(
            keys::reaction_count(target.repo_id, &prefix),
            Change::new().add("n", db::n(-1)),
            None,
        )?;
        match db.transact(tx).await {
            Ok(()) => return Ok(true),
            // Removed (or removed and added again) meanwhile: read again.
            Err(e) if e.failed_condition() == Some(0) => pause(attempt).await,
            Err(DbError::TransactionConflict) => pause(attempt).await,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}

/// One page of a target's reactions and how many it has.
pub struct Listed {
    pub shown: Vec<ReactionRecord>,
    pub total: u64,
}

/// The `page` of `target`'s reactions, oldest first. `X-Total-Count` is
/// the target's counter; the entries are read up to the page's end with a
/// `Limit` (never more than the target holds), and a page past the count
/// reads nothing more. Eventually consistent, as every listing page.
pub async fn page(db: &Db, target: &Target, page: Page) -> Result<Listed> {
    let prefix = target.prefix();
    let total = db
        .get_with_consistency(
            keys::reaction_count(target.repo_id, &prefix),
            Consistency::Eventual,
        )
        .await?
        .and_then(|item| {
            item.get("n")
                .and_then(|n| n.as_n().ok()?.parse::<i64>().ok())
        })
        .unwrap_or(0)
        .max(0) as u64;
    let (skip, take) = (page.offset(), page.size as usize);
    if skip as u64 >= total || take == 0 {
        return Ok(Listed {
            shown: Vec::new(),
            total,
        });
    }
    let pk = keys::repo_pk(target.repo_id);
    let entries = keys::reaction_entries_prefix(&prefix);
    let entries = Query::table(&pk)
        .prefix(&entries)
        .consistency(Consistency::Eventual);
    let found = db.query_first(entries, skip + take).await?;
    let shown = found
        .into_iter()
        .skip(skip)
        .take(take)
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    Ok(Listed { shown, total })
}

/// Removes every item under `prefix` of repository `repo_id`, a page of
/// keys at a time (memory holds a page, whatever their number).
/// Idempotent: batch deletes of what may be gone.
async fn remove_prefix(db: &Db, repo_id: i64, prefix: &str) -> Result<(), DbError> {
    let pk = keys::repo_pk(repo_id);
    db.delete_found(Query::table(pk).prefix(prefix)).await
}

/// Every reaction of issue `index` (a deleted one), its comments' included,
/// with their counters. Idempotent; for the issue's clean-up.
pub async fn remove_all_of_issue(db: &Db, repo_id: i64, index: i64) -> Result<(), DbError> {
    remove_prefix(db, repo_id, &keys::issue_reactions_prefix(index)).await
}

/// Every reaction of comment `id` of issue `index` (a deleted comment),
/// with its counter. Idempotent; for the comment's clean-up.
pub async fn remove_all_of_comment(
    db: &Db,
    repo_id: i64,
    index: i64,
    id: i64,
) -> Result<(), DbError> {
    remove_prefix(db, repo_id, &keys::reaction_target_prefix(index, Some(id))).await
}
