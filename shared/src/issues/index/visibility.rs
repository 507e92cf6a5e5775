//! What a repository's visibility change or deletion does to the index.
//! These run after the change has committed, over the repository's issues
//! one page at a time; a failure (or running out of time) is logged and
//! left to `check-data`, which rebuilds the index. Readers check
//! visibility themselves, so nothing private is ever shown meanwhile.

use std::time::Duration;

use super::{
    super::Result, COUNT_SHARDS, IssueRecord, Listing, OWNER_COUNT_SHARDS, counter_name, entries,
};
use crate::{
    db::{self, Db, Item, keys},
    repos::{RepoRecord, RepoStats},
};

/// Most time a visibility change may spend on the index.
const BUDGET: Duration = Duration::from_secs(20);

/// The repository became public: its issues join the public listings.
pub async fn published(db: &Db, repo: &RepoRecord, stats: &RepoStats) {
    run(db, "index entries of a repository made public", async {
        count_public(db, repo, stats, 1).await?;
        each_issue(db, repo, |i| {
            Ok(public_entries(&i)
                .into_iter()
                .map(|(pk, sk)| Change::Put(keys::key(&pk, &sk)))
                .collect())
        })
        .await
    })
    .await;
}

/// The repository became private: its issues leave the public listings.
pub async fn unpublished(db: &Db, repo: &RepoRecord, stats: &RepoStats) {
    run(db, "index entries of a repository made private", async {
        count_public(db, repo, stats, -1).await?;
        each_issue(db, repo, |i| {
            Ok(public_entries(&i)
                .into_iter()
                .map(|(pk, sk)| Change::Delete(keys::key(&pk, &sk)))
                .collect())
        })
        .await
    })
    .await;
}

/// The repository was deleted: its issues leave every listing and count.
pub async fn removed(db: &Db, repo: &RepoRecord, stats: &RepoStats) {
    run(db, "index entries of a deleted repository", async {
        count_every(db, repo, stats, -1).await?;
        let listing = Listing::of(repo);
        each_issue(db, repo, |mut i| {
            i.listing = Some(listing.clone());
            Ok(entries(&i)
                .into_iter()
                .map(|(pk, sk)| Change::Delete(keys::key(&pk, &sk)))
                .collect())
        })
        .await
    })
    .await;
}

/// Counts a repository's issues written outside the API (seeding): in
/// every counter they belong to. Their entries are the writer's.
pub async fn seeded(db: &Db, repo: &RepoRecord, stats: &RepoStats) -> Result<()> {
    count_every(db, repo, stats, 1).await
}

/// Moves the repository's counts into (`sign` 1) or out of (-1) every
/// counter they belong to: all issues, and the public ones when public.
async fn count_every(db: &Db, repo: &RepoRecord, stats: &RepoStats, sign: i64) -> Result<()> {
    let mut tx = db.tx();
    add_counts(
        &mut tx,
        &super::all_scope(rand::random_range(0..COUNT_SHARDS)),
        stats,
        sign,
    )?;
    db.transact(tx).await?;
    if !repo.private {
        count_public(db, repo, stats, sign).await?;
    }
    Ok(())
}

async fn run(db: &Db, what: &str, work: impl Future<Output = Result<()>>) {
    match tokio::time::timeout(db.time_left(BUDGET), work).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!(what, error = %e, "index left for check-data"),
        Err(_) => tracing::warn!(what, "index left for check-data (out of time)"),
    }
}

/// The public listings an issue of a public repository has.
fn public_entries(i: &IssueRecord) -> Vec<(String, String)> {
    let public = IssueRecord {
        listing: i.listing.clone().map(|l| Listing { public: true, ..l }),
        ..i.clone()
    };
    let private = IssueRecord {
        listing: i.listing.clone().map(|l| Listing { public: false, ..l }),
        ..i.clone()
    };
    entries(&public)
        .difference(&entries(&private))
        .cloned()
        .collect()
}

/// Moves the repository's counts into (`sign` 1) or out of (-1) the public
/// and owner counters.
async fn count_public(db: &Db, repo: &RepoRecord, stats: &RepoStats, sign: i64) -> Result<()> {
    let mut tx = db.tx();
    add_counts(
        &mut tx,
        &super::public_scope(rand::random_range(0..COUNT_SHARDS)),
        stats,
        sign,
    )?;
    add_counts(
        &mut tx,
        &super::owner_count_scope(&repo.owner, rand::random_range(0..OWNER_COUNT_SHARDS)),
        stats,
        sign,
    )?;
    Ok(db.transact(tx).await?)
}

fn add_counts(tx: &mut db::Tx, scope: &str, s: &RepoStats, sign: i64) -> Result<()> {
    let adds = [
        (false, false, s.num_issues - s.num_closed_issues),
        (false, true, s.num_closed_issues),
        (true, false, s.num_pulls - s.num_closed_pulls),
        (true, true, s.num_closed_pulls),
    ]
    .map(|(p, c, n)| (counter_name(p, c), sign * n));
    Ok(super::add_to_counter(tx, scope, &adds)?)
}

enum Change {
    Put(Item),
    Delete(Item),
}

/// Applies `change` to every issue of the repository, a page at a time.
async fn each_issue(
    db: &Db,
    repo: &RepoRecord,
    change: impl Fn(IssueRecord) -> Result<Vec<Change>>,
) -> Result<()> {
    let listing = Listing::of(repo);
    for is_pull in [false, true] {
        for closed in [false, true] {
            let pk = keys::issue_list_pk(repo.id, is_pull, closed);
            let mut cursor = None;
            loop {
                let page = db
                    .query(|q| {
                        q.index_name("gsi1")
                            .key_condition_expression("gsi1pk = :pk")
                            .expression_attribute_values(":pk", db::s(&pk))
                            .set_exclusive_start_key(cursor.take())
                    })
                    .await?;
                let (mut puts, mut deletes) = (Vec::new(), Vec::new());
                for item in page.items.unwrap_or_default() {
                    let mut issue: IssueRecord = db::from_item(item)?;
                    issue.listing = Some(listing.clone());
                    for c in change(issue)? {
                        match c {
                            Change::Put(i) => puts.push(i),
                            Change::Delete(k) => deletes.push(k),
                        }
                    }
                }
                db.batch_put(puts).await?;
                db.batch_delete(deletes).await?;
                match page.last_evaluated_key {
                    Some(k) if !k.is_empty() => cursor = Some(k),
                    _ => break,
                }
            }
        }
    }
    Ok(())
}
