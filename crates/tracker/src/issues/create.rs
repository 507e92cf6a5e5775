//! Creating an issue or pull request. The number is the repository's
//! `last_index + 1`, claimed in the same transaction that writes the issue
//! and moves every counter, on condition that `last_index` did not move
//! meanwhile; a lost race tries again from the counters the failure handed
//! back (one round trip each, no read). So numbers start at 1,
//! are never reused, and a failed create leaves no gap.

use std::time::Duration;

use super::{Error, IssueRecord, Result, add_counter_moves, index, mentions};
use crate::{
    db::{self, Db, DbError},
    repos, time,
};

/// A validated create request (permissions already applied).
#[derive(Clone, Debug, Default)]
pub struct NewIssue {
    pub is_pull: bool,
    pub title: String,
    pub body: String,
    pub git_ref: String,
    /// Lower-case login of the caller.
    pub poster: String,
    pub assignees: Vec<String>,
    pub labels: Vec<i64>,
    pub milestone: i64,
    pub due: i64,
    pub closed: bool,
    pub head: String,
    pub base: String,
}

const ATTEMPTS: u32 = 200;

/// What a create reads before its transaction: the global id and the
/// number the repository's counters last handed out. Both are read at
/// once, and callers read them beside their own checks (a check that then
/// fails leaves a gap in the global ids, which is harmless).
#[derive(Clone, Copy, Debug)]
pub struct Claim {
    pub id: i64,
    pub last_index: i64,
}

pub async fn claim(db: &Db, repo_id: i64) -> Result<Claim> {
    let (id, stats) = tokio::try_join!(
        async { Ok::<_, Error>(db.next_id("issue").await?) },
        async { Ok::<_, Error>(repos::stats(db, repo_id).await?) }
    )?;
    Ok(Claim {
        id,
        last_index: stats.last_index,
    })
}

/// Writes the issue under the next number: `claim`'s when nobody took it
/// meanwhile, else the counters are read again.
pub async fn create(db: &Db, repo_id: i64, new: NewIssue, claim: Claim) -> Result<IssueRecord> {
    let Claim { id, mut last_index } = claim;
    let now = time::now();
    let mut rec = IssueRecord {
        id,
        repo_id,
        index: 0,
        is_pull: new.is_pull,
        mentions: mentions(&format!("{}\n{}", new.title, new.body)),
        title: new.title,
        body: new.body,
        git_ref: new.git_ref,
        poster: new.poster,
        assignees: new.assignees,
        labels: new.labels,
        milestone: new.milestone,
        closed: new.closed,
        closed_at: if new.closed { now } else { 0 },
        due: new.due,
        created: now,
        updated: now,
        content_version: 0,
        version: 1,
        head: new.head,
        base: new.base,
        ..IssueRecord::default()
    };
    let write = index::pending::Write::new(db);
    rec.written_by(&write);
    // The number another create took, as its failed condition showed it.
    let mut taken: Option<i64> = None;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            last_index = match taken.take() {
                Some(n) => n,
                None => repos::stats(db, repo_id).await?.last_index,
            };
        }
        let last = last_index;
        rec.index = last + 1;
        let mut tx = db.tx();
        add_counter_moves(&mut tx, None, Some(&rec), Some((last, rec.index)))?;
        let milestone_at = (rec.milestone != 0).then_some(1);
        tx.put_if_absent(db.stamp(rec.to_item()?)?)?;
        write.mark(&mut tx, repo_id, rec.index)?;
        match db.transact(tx).await {
            Ok(()) => return Ok(rec),
            Err(e)
                if e.failed_condition() == Some(0) || matches!(e, DbError::TransactionConflict) =>
            {
                // Another create took this number: wait a little, try the
                // next (the counters' item came back with the failure; else
                // it is read again).
                taken = e
                    .old_item(0)
                    .map(|i| db::number(i, "last_index"))
                    .filter(|&n| n > last);
                let jitter = rand::random::<u64>() % (5 + 5 * u64::from(attempt.min(10)));
                tokio::time::sleep(Duration::from_millis(jitter)).await;
            }
            Err(e) if e.failed_condition().is_some() && e.failed_condition() == milestone_at => {
                return Err(Error::NoSuchMilestone(rec.milestone));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::NoNumber { repo_id })
}
