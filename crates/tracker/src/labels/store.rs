//! Labels in the table: repository labels under the repository's id,
//! organisation labels under the organisation's name.

use super::{
    Error, Result,
    model::{LabelRecord, NewLabel, Scope},
};
use crate::{
    db::{self, Consistency, Db, DbError, Item, keys},
    repos::RepoRecord,
};

fn key(scope: &Scope, label_id: i64) -> Item {
    match scope {
        Scope::Repo { id, .. } => keys::repo_label(*id, label_id),
        Scope::Org { name } => keys::org_label(name, label_id),
    }
}

fn pk(scope: &Scope) -> String {
    match scope {
        Scope::Repo { id, .. } => keys::repo_pk(*id),
        Scope::Org { name } => keys::owner_pk(name),
    }
}

pub async fn create(db: &Db, scope: Scope, new: NewLabel) -> Result<LabelRecord> {
    let label = new.record(db.next_id("label").await?, scope);
    let mut item = db::to_item(&label)?;
    item.extend(key(&label.scope, label.id));
    // A transaction, so a request's idempotency key records the commit.
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    db.transact(tx).await?;
    Ok(label)
}

/// All labels of a scope, by id (creation order).
pub async fn list(db: &Db, scope: &Scope) -> Result<Vec<LabelRecord>> {
    read(db, scope, Consistency::Strong).await
}

/// [`list`] for a listing page: eventually consistent (a label made a
/// moment ago may be missing for a second or so).
pub async fn list_page(db: &Db, scope: &Scope) -> Result<Vec<LabelRecord>> {
    read(db, scope, Consistency::Eventual).await
}

async fn read(db: &Db, scope: &Scope, consistency: Consistency) -> Result<Vec<LabelRecord>> {
    let items = db
        .query_prefix_with(&pk(scope), keys::LABEL_PREFIX, None, consistency)
        .await?;
    Ok(items
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?)
}

/// The labels an issue of `repo` may carry: the repository's, and its
/// organisation's when `owner_is_org` (both read at once).
pub async fn usable_in(db: &Db, repo: &RepoRecord, owner_is_org: bool) -> Result<Vec<LabelRecord>> {
    let repo_scope = Scope::Repo {
        id: repo.id,
        full_name: repo.full_name(),
    };
    let org_scope = Scope::Org {
        name: repo.owner.clone(),
    };
    let (mut known, org) = tokio::try_join!(list(db, &repo_scope), async {
        match owner_is_org {
            true => list(db, &org_scope).await,
            false => Ok(Vec::new()),
        }
    })?;
    known.extend(org);
    Ok(known)
}

pub async fn get(db: &Db, scope: &Scope, id: i64) -> Result<Option<LabelRecord>> {
    Ok(db.get_as(key(scope, id)).await?)
}

/// Saves an edited label (only if it still exists).
pub async fn save(db: &Db, label: &LabelRecord) -> Result<()> {
    let mut item = db::to_item(label)?;
    item.extend(key(&label.scope, label.id));
    db.put_existing(item).await.map_err(gone)
}

pub async fn delete(db: &Db, label: &LabelRecord) -> Result<()> {
    db.delete_existing(key(&label.scope, label.id))
        .await
        .map_err(gone)
}

fn gone(e: DbError) -> Error {
    match e {
        DbError::ConditionFailed => Error::Gone,
        other => other.into(),
    }
}
