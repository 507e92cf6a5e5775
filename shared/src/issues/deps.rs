//! Issue dependencies: "issue A depends on (is blocked by) issue B",
//! stored under A and mirrored under B, written and removed together.
//! A cannot be closed while any of its blockers is open.

use super::IssueRecord;
use crate::{
    Error, Result,
    db::{Db, keys},
};

/// Parses the `(repo id, number)` pair at the end of a dependency sort key.
fn pair(sk: &str) -> Option<(i64, i64)> {
    let mut parts = sk.rsplit('#');
    let index = parts.next()?.parse().ok()?;
    let repo = parts.next()?.parse().ok()?;
    Some((repo, index))
}

async fn pairs(db: &Db, repo_id: i64, prefix: &str) -> Result<Vec<(i64, i64)>> {
    let items = db.query_prefix(&keys::repo_pk(repo_id), prefix).await?;
    Ok(items
        .iter()
        .filter_map(|i| {
            i.get("sk")
                .and_then(|v| v.as_s().ok())
                .and_then(|sk| pair(sk))
        })
        .collect())
}

/// The issues `issue` depends on, as (repository id, number).
pub async fn blockers(db: &Db, issue: &IssueRecord) -> Result<Vec<(i64, i64)>> {
    pairs(db, issue.repo_id, &keys::dependency_prefix(issue.index)).await
}

/// The issues that depend on `issue`.
pub async fn blocked(db: &Db, issue: &IssueRecord) -> Result<Vec<(i64, i64)>> {
    pairs(db, issue.repo_id, &keys::blocks_prefix(issue.index)).await
}

/// Removes both sides of every dependency of issue `index` (deleted or
/// being deleted). Idempotent: batch deletes of what may already be gone.
pub async fn unlink(db: &Db, repo_id: i64, index: i64) -> Result<()> {
    let (dep_prefix, block_prefix) = (keys::dependency_prefix(index), keys::blocks_prefix(index));
    let (deps, blocks) = tokio::try_join!(
        pairs(db, repo_id, &dep_prefix),
        pairs(db, repo_id, &block_prefix)
    )?;
    let mut gone = Vec::with_capacity(2 * (deps.len() + blocks.len()));
    for (repo, other) in deps {
        gone.push(keys::dependency(repo_id, index, repo, other));
        gone.push(keys::blocks(repo, other, repo_id, index));
    }
    for (repo, other) in blocks {
        gone.push(keys::blocks(repo_id, index, repo, other));
        gone.push(keys::dependency(repo, other, repo_id, index));
    }
    Ok(db.batch_delete(gone).await?)
}

/// Loads issues by (repository id, number), skipping any that are gone.
pub async fn load_all(db: &Db, ids: &[(i64, i64)]) -> Result<Vec<IssueRecord>> {
    load(db, ids, None).await
}

/// Like [`load_all`], without bodies, refs and the other long fields: what
/// sorting and permission checks need of a long list (any number of issues
/// may depend on one). Fetch the shown page with [`load_all`].
pub async fn load_short(db: &Db, ids: &[(i64, i64)]) -> Result<Vec<IssueRecord>> {
    const SHORT: [&str; 9] = [
        "id", "repo_id", "index", "is_pull", "title", "poster", "created", "updated", "closed",
    ];
    load(db, ids, Some(&SHORT)).await
}

async fn load(
    db: &Db,
    ids: &[(i64, i64)],
    projection: Option<&[&str]>,
) -> Result<Vec<IssueRecord>> {
    use futures::{StreamExt, TryStreamExt};
    let reads: Vec<_> = ids
        .chunks(100)
        .map(|chunk| {
            let keys = chunk.iter().map(|(r, i)| keys::issue(*r, *i)).collect();
            db.batch_get_projected(keys, projection)
        })
        .collect();
    let items: Vec<Vec<crate::db::Item>> = futures::stream::iter(reads)
        .buffer_unordered(8)
        .try_collect()
        .await?;
    items
        .into_iter()
        .flatten()
        .map(|i| crate::db::from_item(i).map_err(Into::into))
        .collect()
}

/// Whether any blocker of `issue` is still open.
pub async fn has_open_blockers(db: &Db, issue: &IssueRecord) -> Result<bool> {
    let ids = blockers(db, issue).await?;
    if ids.is_empty() {
        return Ok(false);
    }
    Ok(load_short(db, &ids).await?.iter().any(|b| !b.closed))
}

/// Makes `dependent` depend on `blocker`.
pub async fn add(db: &Db, dependent: &IssueRecord, blocker: &IssueRecord) -> Result<()> {
    if (dependent.repo_id, dependent.index) == (blocker.repo_id, blocker.index) {
        return Err(Error::Unprocessable(
            "an issue cannot depend on itself".into(),
        ));
    }
    let reverse = keys::dependency(
        blocker.repo_id,
        blocker.index,
        dependent.repo_id,
        dependent.index,
    );
    if db.get(reverse).await?.is_some() {
        return Err(Error::Unprocessable(
            "circular dependency: the other issue already depends on this one".into(),
        ));
    }
    let mut tx = db.tx();
    tx.put_if_absent(keys::dependency(
        dependent.repo_id,
        dependent.index,
        blocker.repo_id,
        blocker.index,
    ))?
    .put(keys::blocks(
        blocker.repo_id,
        blocker.index,
        dependent.repo_id,
        dependent.index,
    ))?
    .require(keys::issue(dependent.repo_id, dependent.index))?
    .require(keys::issue(blocker.repo_id, blocker.index))?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Unprocessable("dependency already exists".into()),
            Some(_) => Error::not_found(),
            None => e.into(),
        })
}

/// Removes the dependency of `dependent` on `blocker`; 404 if there is none.
pub async fn remove(db: &Db, dependent: &IssueRecord, blocker: &IssueRecord) -> Result<()> {
    let mut tx = db.tx();
    tx.delete_existing(keys::dependency(
        dependent.repo_id,
        dependent.index,
        blocker.repo_id,
        blocker.index,
    ))?
    .delete(keys::blocks(
        blocker.repo_id,
        blocker.index,
        dependent.repo_id,
        dependent.index,
    ))?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(_) => Error::NotFound("dependency does not exist".into()),
            None => e.into(),
        })
}
