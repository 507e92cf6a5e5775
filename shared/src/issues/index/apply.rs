//! Writing a change of an issue's document: the listings it joins, then
//! the document itself with the counts it moves (one transaction, on
//! condition that nobody replaced the document meanwhile), then the
//! listings it leaves. A failure anywhere leaves at worst entries that
//! point at an issue the document no longer lists there: readers check
//! every candidate against its document, so such an entry is skipped,
//! never shown, and `check-data` removes it. A change delivered again
//! computes no difference and writes nothing.

use super::{counts, doc::Doc, lists};
use crate::db::{self, Db, DbError, keys};

/// Replaces `old` (as read) by `new`; either may be absent.
pub async fn apply(db: &Db, old: Option<&Doc>, new: Option<Doc>) -> Result<(), DbError> {
    let before = old.map(lists::entries).unwrap_or_default();
    let after = new.as_ref().map(lists::entries).unwrap_or_default();
    let joins: Vec<_> = after
        .difference(&before)
        .map(|(pk, sk)| keys::key(pk, sk))
        .collect();
    let leaves: Vec<_> = before
        .difference(&after)
        .map(|(pk, sk)| keys::key(pk, sk))
        .collect();
    db.batch_put(joins).await?;

    let mut tx = db.tx();
    let (condition, values) = match old {
        Some(d) => ("rev = :rev", vec![(":rev", db::n(d.rev))]),
        None => ("attribute_not_exists(pk)", vec![]),
    };
    match &new {
        Some(d) => {
            let stored = Doc {
                rev: old.map_or(1, |o| o.rev + 1),
                ..d.clone()
            };
            tx.put_if(stored.to_item()?, condition, &values)?;
        }
        None => {
            let Some(d) = old else { return Ok(()) };
            tx.delete_if(keys::index_doc(d.repo_id, d.index), condition, &values)?;
        }
    }
    counts::add(&mut tx, &counts::deltas(old, new.as_ref()))?;
    db.transact(tx).await?;

    db.batch_delete(leaves).await
}

/// An issue's document, strongly consistent (it decides a write).
pub async fn load(db: &Db, repo_id: i64, index: i64) -> Result<Option<Doc>, DbError> {
    db.get(keys::index_doc(repo_id, index))
        .await?
        .map(Doc::from_item)
        .transpose()
}
