//! Changing an issue: `apply` edits a copy of the stored record; the copy
//! is written on condition that the stored `version` is still the one it
//! was made from, together with every counter move the change implies. A
//! lost race re-reads and applies again (so "already closed" is judged on
//! fresh state), except that a body edit made against an outdated body is
//! refused, as the seed requires.

use std::time::Duration;

use super::{Error, IssueRecord, Result, add_counter_moves, find, index, mentions};
use crate::{
    db::{self, Cond, Db, DbError},
    time,
};

const ATTEMPTS: u32 = 100;

/// Applies `apply` to `loaded` and stores the result. With
/// `body_from_version`, the body must not have changed since that content
/// version (else 400). Returns the stored record (unchanged if `apply`
/// changed nothing).
pub async fn update(
    db: &Db,
    loaded: IssueRecord,
    body_from_version: Option<i64>,
    apply: impl Fn(&mut IssueRecord) -> Result<()>,
) -> Result<IssueRecord> {
    let mut current = loaded;
    let write = index::pending::Write::new(db);
    for attempt in 0..ATTEMPTS {
        if body_from_version.is_some_and(|v| v != current.content_version) {
            return Err(Error::Stale);
        }
        let mut next = current.clone();
        apply(&mut next)?;
        if next == current {
            return Ok(current);
        }
        if next.body != current.body {
            next.content_version += 1;
        }
        if next.title != current.title || next.body != current.body {
            next.mentions = mentions(&format!("{}\n{}", next.title, next.body));
        }
        if next.closed && !current.closed {
            next.closed_at = time::now();
        } else if !next.closed {
            next.closed_at = 0;
        }
        next.version = current.version + 1;
        next.updated = time::now();
        next.written_by(&write);

        let mut tx = db.tx();
        add_counter_moves(&mut tx, Some(&current), Some(&next), None)?;
        let put_at = tx.len();
        tx.put_when(
            db.stamp(next.to_item()?)?,
            Cond::eq("version", db::n(current.version)),
        )?;
        write.mark(&mut tx, next.repo_id, next.index)?;
        match db.transact(tx).await {
            Ok(()) => return Ok(next),
            Err(e)
                if e.failed_condition() == Some(put_at)
                    || matches!(e, DbError::TransactionConflict) =>
            {
                let jitter = rand::random::<u64>() % (5 + 5 * u64::from(attempt.min(10)));
                tokio::time::sleep(Duration::from_millis(jitter)).await;
                current = find(db, current.repo_id, current.index).await?;
            }
            Err(e) if e.failed_condition().is_some() => {
                return Err(Error::NoSuchMilestone(next.milestone));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy)
}
