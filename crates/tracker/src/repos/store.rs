//! Where repositories are stored: settings under the owner and name (so a
//! rename moves one item), counters and grants under the id, and the
//! visibility index search starts from.

use super::{Error, NewRepo, RepoRecord, RepoStats, Result, access, model::new_record};
use crate::{
    accounts::{
        names::{fold, same},
        users::UserRecord,
    },
    db::{self, Change, Cond, Db, Query, keys, table::INDEXES},
    outbox, time,
};

/// The stored settings item: the record under its name key, indexed
/// (`gsi2`) among public or private repositories for search.
pub fn settings_item(repo: &RepoRecord) -> Result<db::Item> {
    let mut item = db::to_item(repo)?;
    item.extend(keys::repo_name(&repo.owner, &repo.name));
    item.insert(
        "gsi2pk".into(),
        db::s(keys::repos_by_visibility(repo.private)),
    );
    item.insert("gsi2sk".into(), db::s(fold(&repo.full_name())));
    if let Some(topics) = super::topics::attribute(repo) {
        item.insert("topics".into(), topics);
    }
    Ok(item)
}

/// A public repository's entry in the installation's listing
/// (`keys::PUBLIC_REPOS_PK`, what `/repos/search` walks): small, so a walk
/// reads thousands for a few read units. Kept by create, save and delete,
/// in their transactions.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ListEntry {
    pub id: i64,
    pub owner: String,
    pub name: String,
    #[serde(default)]
    pub archived: bool,
}

fn list_entry(repo: &RepoRecord) -> Result<db::Item> {
    let mut item = db::to_item(&ListEntry {
        id: repo.id,
        owner: repo.owner.clone(),
        name: repo.name.clone(),
        archived: repo.archived,
    })?;
    item.extend(keys::public_repo_entry(&repo.owner, &repo.name));
    Ok(item)
}

/// Creates a repository: its settings (failing if the owner already has
/// one by that name) and its counters, in one transaction.
pub async fn create(db: &Db, owner: &UserRecord, new: NewRepo) -> Result<RepoRecord> {
    let repo = new_record(db.next_id("repo").await?, &owner.name, new, time::now());
    let settings = settings_item(&repo)?;
    let mut stats = db::to_item(&RepoStats {
        owner: repo.owner.clone(),
        name: repo.name.clone(),
        private: Some(repo.private),
        has_issues: Some(repo.has_issues),
        has_pull_requests: Some(repo.has_pull_requests),
        ..RepoStats::default()
    })?;
    stats.extend(keys::repo_stats(repo.id));
    let mut tx = db.tx();
    tx.put_if_absent(settings)?
        .put_if_absent(stats)?
        .put(outbox::event(db, repo.id, outbox::REPO_CREATED, &repo)?)?;
    if !repo.private {
        tx.put(list_entry(&repo)?)?;
    }
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Exists(repo.full_name()),
            _ => e.into(),
        })?;
    Ok(repo)
}

/// A repository by owner and name.
pub async fn get(db: &Db, owner: &str, name: &str) -> Result<Option<RepoRecord>> {
    Ok(db.get_as(keys::repo_name(owner, name)).await?)
}

pub async fn stats(db: &Db, id: i64) -> Result<RepoStats> {
    Ok(db.get_as(keys::repo_stats(id)).await?.unwrap_or_default())
}

/// Saves changed settings; a changed name moves the settings item, failing
/// with 422 when the new name is taken. Everything else refers to the
/// repository by id and finds its name through the counters item, which
/// the same transaction renames: so every view is right at once.
pub async fn save(db: &Db, old_name: &str, repo: &RepoRecord) -> Result<()> {
    let item = settings_item(repo)?;
    let mut tx = db.tx();
    if same(old_name, &repo.name) {
        // Same key (at most the spelling changes): replace only if it
        // still exists (a concurrent delete wins).
        tx.put_when(item, Cond::exists())?;
    } else {
        tx.delete_existing(keys::repo_name(&repo.owner, old_name))?
            .put_if_absent(item)?;
    }
    tx.change(
        keys::repo_stats(repo.id),
        Change::new()
            .set("owner", db::s(&repo.owner))
            .set("name", db::s(&repo.name))
            .set("private", db::b(repo.private))
            .set("has_issues", db::b(repo.has_issues))
            .set("has_pull_requests", db::b(repo.has_pull_requests)),
        None,
    )?;
    // The public listing follows the name and the visibility (a renamed
    // repository's old entry goes; one key is written at most once).
    let renamed = !same(old_name, &repo.name);
    if renamed {
        tx.delete(keys::public_repo_entry(&repo.owner, old_name))?;
    }
    if !repo.private {
        tx.put(list_entry(repo)?)?;
    } else if !renamed {
        tx.delete(keys::public_repo_entry(&repo.owner, &repo.name))?;
    }
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(1) => Error::NameTaken(repo.name.clone()),
            Some(0) => Error::Gone,
            _ => e.into(),
        })
}

/// Deletes a repository. Its name is free at once, and nothing reaches it
/// any more: items under its id (labels, milestones, issues, comments) are
/// unreachable, since a repository created later under the same name gets
/// a new id, and grants pointing at it resolve to nothing. The grants, the
/// hooks, the comments and the reactions (the bulk of what it leaves) are then
/// removed in batches;
/// what a failure leaves behind is harmless and `check-data` removes it,
/// so the delete has succeeded either way.
pub async fn delete(db: &Db, repo: &RepoRecord) -> Result<()> {
    let mut tx = db.tx();
    tx.delete_existing(keys::repo_name(&repo.owner, &repo.name))?
        .delete(keys::repo_stats(repo.id))?
        .delete(keys::public_repo_entry(&repo.owner, &repo.name))?
        .put(outbox::event(db, repo.id, outbox::REPO_DELETED, repo)?)?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::Gone,
            _ => e.into(),
        })?;
    db::cleanup(
        db,
        "grants, hooks, comments, reactions and refs of a deleted repository",
        async {
            remove_grants(db, repo.id).await?;
            remove_under(db, repo.id, keys::HOOK_PREFIX).await?;
            remove_under(db, repo.id, keys::COMMENT_PREFIX).await?;
            remove_under(db, repo.id, keys::REACTION_PREFIX).await?;
            remove_under(db, repo.id, keys::REF_PREFIX).await
        },
    )
    .await;
    Ok(())
}

/// Every item of a (deleted) repository whose sort key starts with
/// `prefix` (its comments, its reactions), one page of keys at a time
/// (memory holds a page, whatever their number). Idempotent.
pub async fn remove_under(db: &Db, repo_id: i64, prefix: &str) -> Result<()> {
    let pk = keys::repo_pk(repo_id);
    db.delete_found(Query::table(pk).prefix(prefix)).await?;
    Ok(())
}

/// Both sides of every grant on a (deleted) repository. Idempotent.
pub async fn remove_grants(db: &Db, repo_id: i64) -> Result<()> {
    let grants: Vec<access::Grant> = db
        .query_prefix(&keys::repo_pk(repo_id), keys::ACCESS_PREFIX)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    let keys = grants.iter().flat_map(|g| g.keys(repo_id)).collect();
    Ok(db.batch_delete(keys).await?)
}

/// Owner and name of a repository by id (its counters item names it),
/// `None` when it is gone.
pub async fn locate(db: &Db, id: i64) -> Result<Option<(String, String)>> {
    let stats = stats(db, id).await?;
    Ok((!stats.name.is_empty()).then_some((stats.owner, stats.name)))
}

/// Repositories by id, in batched reads (missing ones are skipped).
pub async fn get_many_by_id(db: &Db, ids: &[i64]) -> Result<Vec<RepoRecord>> {
    let mut names = Vec::new();
    for chunk in ids.chunks(100) {
        for item in db
            .batch_get(chunk.iter().map(|id| keys::repo_stats(*id)).collect())
            .await?
        {
            let s: RepoStats = db::from_item(item)?;
            if !s.name.is_empty() {
                names.push(keys::repo_name(&s.owner, &s.name));
            }
        }
    }
    let mut out = Vec::new();
    for chunk in names.chunks(100) {
        for item in db.batch_get(chunk.to_vec()).await? {
            let repo: RepoRecord = db::from_item(item)?;
            // A counters item renamed before renames kept it current could
            // name a newer repository of the old name.
            if ids.contains(&repo.id) {
                out.push(repo);
            }
        }
    }
    Ok(out)
}

/// Repositories by id as search needs them ([`RepoStats::summary`]): one
/// batched read of their counters items, and of the settings of those whose
/// counters do not carry the summary yet. Missing ones are skipped.
pub async fn summaries_by_id(db: &Db, ids: &[i64]) -> Result<Vec<RepoRecord>> {
    let mut out = Vec::new();
    let mut rest = Vec::new();
    for chunk in ids.chunks(100) {
        for item in db
            .batch_get(chunk.iter().map(|id| keys::repo_stats(*id)).collect())
            .await?
        {
            let pk = db::text(&item, "pk").to_string();
            let s: RepoStats = db::from_item(item)?;
            let Some(id) = pk.strip_prefix("REPO#").and_then(|n| n.parse().ok()) else {
                continue;
            };
            match s.summary(id) {
                Some(r) => out.push(r),
                None => rest.push(id),
            }
        }
    }
    out.extend(get_many_by_id(db, &rest).await?);
    Ok(out)
}

/// Whether `owner` holds any private repository: one query of at most one
/// item on the visibility index (whose sort key starts `owner/`).
pub async fn has_private(db: &Db, owner: &str) -> Result<bool> {
    if owner.len() > db::size::SORT_KEY_LIMIT / 2 {
        // No owner has such a name (and DynamoDB would refuse the key).
        return Ok(false);
    }
    let q = Query::index(INDEXES[1], keys::repos_by_visibility(true))
        .prefix(format!("{}/", fold(owner)))
        .limit(1);
    Ok(!db.query_page(q).await?.items.is_empty())
}

/// Counters of many repositories, by id, in batched reads.
pub async fn stats_many(db: &Db, ids: &[i64]) -> Result<std::collections::HashMap<i64, RepoStats>> {
    let mut out = std::collections::HashMap::new();
    for chunk in ids.chunks(100) {
        for item in db
            .batch_get(chunk.iter().map(|id| keys::repo_stats(*id)).collect())
            .await?
        {
            let id = item
                .get("pk")
                .and_then(|v| v.as_s().ok())
                .and_then(|pk| pk.trim_start_matches("REPO#").parse::<i64>().ok());
            if let Some(id) = id {
                out.insert(id, db::from_item(item)?);
            }
        }
    }
    Ok(out)
}

/// Repositories of one owner, by name.
pub async fn list_by_owner(db: &Db, owner: &str) -> Result<Vec<RepoRecord>> {
    let items = db
        .query_prefix(&keys::owner_pk(owner), keys::REPO_NAME_PREFIX)
        .await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}
