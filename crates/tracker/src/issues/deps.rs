//! Issue dependencies: "issue A depends on (is blocked by) issue B",
//! stored under A and mirrored under B, written and removed together.
//! A cannot be closed while any of its blockers is open.

use std::collections::HashMap;

use futures::{StreamExt, TryStreamExt};

use super::{Error, IssueRecord, Result};
use crate::{
    auth::Caller,
    db::{Db, DbError, keys},
    page::Page,
    repos::{
        self, RepoRecord,
        access::{self, Unit},
    },
};

/// One page of a dependency list, as the caller may see it.
pub struct ListedPage {
    /// The page's issues, newest first.
    pub shown: Vec<IssueRecord>,
    /// Their repositories.
    pub repos: HashMap<i64, RepoRecord>,
    /// How many of the listed issues the caller may read.
    pub total: u64,
}

/// The issues of `ids` that `caller` may read, newest first: the requested
/// page (read in full) and the total. Any number of issues, in any number
/// of repositories, may depend on one: the list is read without long texts,
/// and each repository is resolved once, 16 at a time.
pub async fn readable_page(
    db: &Db,
    caller: &Caller,
    ids: &[(i64, i64)],
    page: Page,
) -> Result<ListedPage> {
    let newest_first = |i: &IssueRecord| std::cmp::Reverse((i.created, i.id));
    let mut found = load_short(db, ids).await?;
    found.sort_by_key(newest_first);
    let mut repo_ids: Vec<i64> = found.iter().map(|i| i.repo_id).collect();
    repo_ids.sort_unstable();
    repo_ids.dedup();
    let resolve = |id: i64| async move {
        let readable = match repos::locate(db, id).await? {
            Some((owner, name)) => access::load(db, caller, &owner, &name)
                .await
                .ok()
                .filter(|ctx| ctx.repo.id == id)
                .map(|ctx| (ctx.repo, ctx.perm)),
            None => None,
        };
        Ok::<_, Error>((id, readable))
    };
    let resolved: Vec<_> = repo_ids.into_iter().map(resolve).collect();
    let by_id: HashMap<i64, Option<_>> = futures::stream::iter(resolved)
        .buffer_unordered(16)
        .try_collect()
        .await?;
    let visible: Vec<(i64, i64)> = found
        .iter()
        .filter(|i| {
            let kind = Unit::for_pull(i.is_pull);
            by_id
                .get(&i.repo_id)
                .is_some_and(|r| r.as_ref().is_some_and(|(_, p)| p.can_read(kind)))
        })
        .map(|i| (i.repo_id, i.index))
        .collect();
    let mut shown = load_all(db, page.slice(&visible)).await?;
    shown.sort_by_key(newest_first);
    Ok(ListedPage {
        shown,
        repos: by_id
            .into_iter()
            .filter_map(|(id, r)| r.map(|(r, _)| (id, r)))
            .collect(),
        total: visible.len() as u64,
    })
}

/// Parses the `(repo id, number)` pair at the end of a dependency sort key.
fn pair(sk: &str) -> Option<(i64, i64)> {
    let mut parts = sk.rsplit('#');
    let index = parts.next()?.parse().ok()?;
    let repo = parts.next()?.parse().ok()?;
    Some((repo, index))
}

async fn pairs(db: &Db, repo_id: i64, prefix: &str) -> Result<Vec<(i64, i64)>, DbError> {
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
    Ok(pairs(db, issue.repo_id, &keys::dependency_prefix(issue.index)).await?)
}

/// The issues that depend on `issue`.
pub async fn blocked(db: &Db, issue: &IssueRecord) -> Result<Vec<(i64, i64)>> {
    Ok(pairs(db, issue.repo_id, &keys::blocks_prefix(issue.index)).await?)
}

/// Removes both sides of every dependency of issue `index` (deleted or
/// being deleted). Idempotent: batch deletes of what may already be gone.
pub async fn unlink(db: &Db, repo_id: i64, index: i64) -> Result<(), DbError> {
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
    db.batch_delete(gone).await
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
        return Err(Error::DependsOnItself);
    }
    let reverse = keys::dependency(
        blocker.repo_id,
        blocker.index,
        dependent.repo_id,
        dependent.index,
    );
    if db.get(reverse).await?.is_some() {
        return Err(Error::CircularDependency);
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
            Some(0) => Error::DependencyExists,
            Some(_) => Error::Hidden,
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
            Some(_) => Error::NoSuchDependency,
            None => e.into(),
        })
}
