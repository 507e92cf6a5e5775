//! Hooks in the table: an owner's hooks in its partition, with a counter
//! (`HOOK#N`) that the create's transaction raises on condition that it is
//! below [`MAX_HOOKS`], so concurrent creates never pass the bound.

use super::{
    Error, Result,
    model::{HookOwner, HookRecord, MAX_HOOKS, NewHook},
};
use crate::{
    db::{self, Cond, Consistency, Db, DbError, Item, keys, n},
    time,
};

/// The partition an owner's hooks live in.
pub fn pk(owner: &HookOwner) -> String {
    match owner {
        HookOwner::Repo { id } => keys::repo_pk(*id),
        HookOwner::Org { name } | HookOwner::User { name } => keys::owner_pk(name),
        HookOwner::Site => keys::SITE_HOOKS_PK.to_string(),
    }
}

fn item(hook: &HookRecord) -> Result<Item> {
    let mut item = db::to_item(hook)?;
    item.extend(keys::hook(&pk(&hook.owner), hook.id));
    Ok(item)
}

pub async fn create(db: &Db, owner: HookOwner, new: NewHook) -> Result<HookRecord> {
    let hook = new.record(db.next_id("hook").await?, owner, time::now());
    let mut tx = db.tx();
    tx.put_if_absent(item(&hook)?)?.change(
        keys::hook_count(&pk(&hook.owner)),
        db::Change::new().add("n", n(1)),
        Some(Cond::below("n", n(MAX_HOOKS))),
    )?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(1) => Error::TooMany { max: MAX_HOOKS },
            _ => e.into(),
        })?;
    Ok(hook)
}

/// An owner's hooks, by id (creation order); at most [`MAX_HOOKS`].
pub async fn list(db: &Db, owner: &HookOwner) -> Result<Vec<HookRecord>> {
    let items = db
        .query_prefix_with(
            &pk(owner),
            keys::HOOK_ENTRY_PREFIX,
            None,
            Consistency::Strong,
        )
        .await?;
    Ok(items
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?)
}

pub async fn get(db: &Db, owner: &HookOwner, id: i64) -> Result<Option<HookRecord>> {
    Ok(db.get_as(keys::hook(&pk(owner), id)).await?)
}

/// Saves an edited hook, only if it still exists.
pub async fn save(db: &Db, hook: &HookRecord) -> Result<()> {
    let item = item(hook)?;
    db.put_existing(item).await.map_err(|e| match e {
        DbError::ConditionFailed => Error::NoSuch(hook.id),
        other => other.into(),
    })
}

/// Removes hook `id` and lowers the owner's count, in one transaction.
pub async fn delete(db: &Db, owner: &HookOwner, id: i64) -> Result<()> {
    let pk = pk(owner);
    let mut tx = db.tx();
    tx.delete_existing(keys::hook(&pk, id))?.change(
        keys::hook_count(&pk),
        db::Change::new().add("n", n(-1)),
        None,
    )?;
    db.transact(tx)
        .await
        .map_err(|e| match e.failed_condition() {
            Some(0) => Error::NoSuch(id),
            _ => e.into(),
        })
}
