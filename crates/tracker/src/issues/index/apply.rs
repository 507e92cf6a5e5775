//! Writing a change of an issue's document: the listings it joins and
//! leaves, the document itself with the counts it moves (on condition that
//! nobody replaced the document meanwhile), and the marks of the writes it
//! files ([`pending`]). Where they fit in one transaction, they are one
//! call; a mark that a later write took over stays, and the rest is
//! written again without it. Past a transaction's items, the listings it
//! joins go first, then the document and counts with the update listings'
//! entries, then the listings it leaves and the marks. A failure there
//! leaves at worst entries that point at an issue the document no longer
//! lists there: readers check every such candidate against its document,
//! so it is skipped, never shown, and `check-data` removes it. The update
//! listings' entries, which readers trust without the document (they carry
//! its creation and state), always change with the document. A change delivered again
//! computes no difference and writes nothing.

use super::{
    counts,
    doc::Doc,
    lists,
    pending::{self, Mark},
};
use std::collections::{HashMap, HashSet};

use crate::db::{self, Cond, Consistency, Db, DbError, Item, Tx, keys};

/// Replaces `old` (as read) by `new`, either of which may be absent, and
/// takes away `marks`.
pub async fn apply(
    db: &Db,
    old: Option<&Doc>,
    new: Option<Doc>,
    marks: Vec<Mark>,
) -> Result<(), DbError> {
    let before = old.map(lists::entries).unwrap_or_default();
    let after = new.as_ref().map(lists::entries).unwrap_or_default();
    // An entry whose key stays but whose carried values change is put
    // again. Each is marked when it carries values (an update listing's).
    let joins: Vec<(Item, bool)> = after
        .iter()
        .filter(|(key, stub)| before.get(*key) != Some(*stub))
        .map(|((pk, sk), stub)| (lists::entry_item(pk, sk, stub.as_ref()), stub.is_some()))
        .collect();
    let leaves: Vec<(Item, bool)> = before
        .iter()
        .filter(|(key, _)| !after.contains_key(*key))
        .map(|((pk, sk), stub)| (keys::key(pk, sk), stub.is_some()))
        .collect();
    let mut document = db.tx();
    if !write_document(&mut document, old, new)? {
        return pending::clear(db, marks).await;
    }
    // One call per issue, at 2 write units per entry where a
    // `BatchWriteItem` first would take 1: on DynamoDB Local that second
    // round trip per issue halved what the consumer got through under
    // `bench/write_load.py` (a create's words make 20 to 40 entries).
    if joins.len() + document.len() + leaves.len() + marks.len() <= db.transaction_limit() {
        let mut tx = db.tx();
        for (item, _) in joins {
            tx.put(item)?;
        }
        tx.extend(document);
        for (key, _) in leaves {
            tx.delete(key)?;
        }
        return with_marks(db, tx, marks).await;
    }
    // Past it, the update listings' entries (at most 3 in, 3 out) still go
    // with the document: readers trust the state and creation they carry
    // without reading the document, so they must never be left stale.
    let (carried, joins): (Vec<_>, Vec<_>) = joins.into_iter().partition(|(_, c)| *c);
    let (carried_out, leaves): (Vec<_>, Vec<_>) = leaves.into_iter().partition(|(_, c)| *c);
    for (item, _) in carried {
        document.put(item)?;
    }
    for (key, _) in carried_out {
        document.delete(key)?;
    }
    db.batch_put(joins.into_iter().map(|(i, _)| i).collect())
        .await?;
    db.transact(document).await?;
    db.batch_delete(leaves.into_iter().map(|(k, _)| k).collect())
        .await?;
    pending::clear(db, marks).await
}

/// Adds the document's write and the counts it moves to `tx`; `false`
/// when there is nothing to write (neither was filed).
fn write_document(tx: &mut Tx, old: Option<&Doc>, new: Option<Doc>) -> Result<bool, DbError> {
    let condition = match old {
        Some(d) => Cond::eq("rev", db::n(d.rev)),
        None => Cond::absent(),
    };
    let moved = counts::deltas(old, new.as_ref());
    let spread = new.as_ref().or(old).map_or(0, |d| d.index);
    match new {
        Some(d) => {
            let stored = Doc {
                rev: old.map_or(1, |o| o.rev + 1),
                ..d
            };
            tx.put_when(stored.to_item()?, condition)?;
        }
        None => {
            let Some(d) = old else { return Ok(false) };
            tx.delete_when(keys::index_doc(d.repo_id, d.index), condition)?;
        }
    }
    counts::add(tx, &moved, spread)?;
    Ok(true)
}

/// Commits `tx` with the deletes of `marks` added. A mark whose condition
/// fails was taken over by a later write, which keeps it: the rest is
/// committed without it (at most one more call per mark).
async fn with_marks(db: &Db, tx: Tx, mut marks: Vec<Mark>) -> Result<(), DbError> {
    loop {
        let mut all = tx.clone();
        for mark in &marks {
            mark.delete_in(&mut all)?;
        }
        let failed = match db.transact(all).await {
            Ok(()) => return Ok(()),
            Err(e) => match e.failed_condition().and_then(|i| i.checked_sub(tx.len())) {
                Some(m) if m < marks.len() => m,
                _ => return Err(e),
            },
        };
        marks.remove(failed);
    }
}

/// An issue's document, strongly consistent (it decides a write).
pub async fn load(db: &Db, repo_id: i64, index: i64) -> Result<Option<Doc>, DbError> {
    db.get(keys::index_doc(repo_id, index))
        .await?
        .map(Doc::from_item)
        .transpose()
}

/// The documents of `issues`, strongly consistent, in one read per hundred:
/// each issue's, or `None` where it has none.
pub async fn load_many(
    db: &Db,
    issues: &HashSet<(i64, i64)>,
) -> Result<HashMap<(i64, i64), Option<Doc>>, DbError> {
    let keys = issues
        .iter()
        .map(|&(repo_id, index)| keys::index_doc(repo_id, index))
        .collect();
    let mut out: HashMap<_, Option<Doc>> = issues.iter().map(|&k| (k, None)).collect();
    for item in db.batch_get_many(keys, None, Consistency::Strong).await? {
        let d = Doc::from_item(item)?;
        out.insert((d.repo_id, d.index), Some(d));
    }
    Ok(out)
}
