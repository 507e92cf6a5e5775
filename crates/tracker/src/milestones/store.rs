//! Milestones in the table: one item per milestone under its repository.
//! Issue writes move the counters inside their own transactions with `ADD`
//! on this item's key, so an edit here updates named attributes and never
//! rewrites the item.

use super::{
    Error, Result,
    model::{self, MilestoneRecord, NewMilestone},
};
use crate::{
    db::{self, Change, Cond, Consistency, Db, DbError, Item, Returns, keys},
    time,
};

pub async fn create(db: &Db, repo_id: i64, new: NewMilestone) -> Result<MilestoneRecord> {
    let m = new.record(db.next_id("milestone").await?, repo_id, time::now());
    let mut item = db::to_item(&m)?;
    item.extend(keys::milestone(repo_id, m.id));
    // A transaction, so a request's idempotency key records the commit.
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    db.transact(tx).await?;
    Ok(m)
}

/// Every milestone of a repository, without descriptions (up to 65,535
/// characters each, which filtering and sorting do not need):
/// [`with_descriptions`] fills them in for the few that are shown. A
/// listing page reads them eventually consistent; lookups by title, strong.
pub async fn list(db: &Db, repo_id: i64, consistency: Consistency) -> Result<Vec<MilestoneRecord>> {
    const SHORT: [&str; 10] = [
        "id",
        "repo_id",
        "title",
        "closed",
        "closed_at",
        "due",
        "created",
        "updated",
        "num_issues",
        "num_closed_issues",
    ];
    let items = db
        .query_prefix_with(
            &keys::repo_pk(repo_id),
            keys::MILESTONE_PREFIX,
            Some(&SHORT),
            consistency,
        )
        .await?;
    Ok(items
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?)
}

/// The given milestones (a listing's page), read again in full, eventually
/// consistent (batches of up to 100, at once), in the order given.
pub async fn with_descriptions(db: &Db, shown: &[MilestoneRecord]) -> Result<Vec<MilestoneRecord>> {
    let keys = shown
        .iter()
        .map(|m| keys::milestone(m.repo_id, m.id))
        .collect();
    let found: Vec<MilestoneRecord> = db
        .batch_get_many(keys, None, Consistency::Eventual)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    Ok(shown
        .iter()
        .filter_map(|m| found.iter().find(|f| f.id == m.id).cloned())
        .collect())
}

pub async fn get(db: &Db, repo_id: i64, id: i64) -> Result<Option<MilestoneRecord>> {
    Ok(db.get_as(keys::milestone(repo_id, id)).await?)
}

/// The milestone a path names ([`model::by_id`], else the exact title).
pub async fn find(db: &Db, repo_id: i64, id_or_title: &str) -> Result<MilestoneRecord> {
    if let Some(m) = match model::by_id(id_or_title) {
        Some(id) => get(db, repo_id, id).await?,
        None => None,
    } {
        return Ok(m);
    }
    let by_title = list(db, repo_id, Consistency::Strong)
        .await?
        .into_iter()
        .find(|m| m.title == id_or_title)
        .ok_or_else(|| Error::NoSuch(id_or_title.to_string()))?;
    get(db, repo_id, by_title.id).await?.ok_or(Error::Gone)
}

/// The attributes an edit may change (never the counters).
const EDITABLE: [&str; 6] = [
    "title",
    "description",
    "closed",
    "closed_at",
    "due",
    "updated",
];

/// `SET` the editable attributes `attrs` has, `REMOVE` those it lacks.
fn edit(attrs: &Item) -> Change {
    EDITABLE
        .iter()
        .fold(Change::new(), |c, f| match attrs.get(*f) {
            Some(v) => c.set(f, v.clone()),
            None => c.remove(f),
        })
}

/// Stores `next` with one conditional UpdateItem (counters untouched).
pub async fn update(
    db: &Db,
    m: &MilestoneRecord,
    next: MilestoneRecord,
) -> Result<MilestoneRecord> {
    let attrs_after = db
        .change(
            keys::milestone(m.repo_id, m.id),
            edit(&db::to_item(&next)?),
            Some(Cond::exists()),
            Returns::AllNew,
        )
        .await
        .map_err(gone)?;
    match attrs_after {
        Some(item) => Ok(db::from_item(item)?),
        None => Ok(next),
    }
}

pub async fn delete(db: &Db, m: &MilestoneRecord) -> Result<()> {
    db.delete_existing(keys::milestone(m.repo_id, m.id))
        .await
        .map_err(gone)
}

fn gone(e: DbError) -> Error {
    match e {
        DbError::ConditionFailed => Error::Gone,
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_set_what_is_there_and_remove_the_rest() {
        let mut item = Item::new();
        item.insert("title".into(), db::s("t"));
        item.insert("due".into(), db::s("1"));
        assert_eq!(
            edit(&item),
            Change::new()
                .set("title", db::s("t"))
                .set("due", db::s("1"))
                .remove("description")
                .remove("closed")
                .remove("closed_at")
                .remove("updated")
        );
    }
}
