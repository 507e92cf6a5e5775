//! How the deploy area is stored: every object of a team lives in the
//! team's partition (`keys::deploy`), tagged with its `kind`. Shared here:
//! reads and lists of a team's items, reference counts, child counts, and
//! the delete of a parent with its children.
//!
//! Resources that others refer to carry a `refs` counter, changed in the
//! same transaction as the referring write, so a project, server or key in
//! use cannot be deleted, however the requests interleave (provider apps
//! are counted too, for the day they can be deleted).

pub mod claims;
pub mod ids;
pub mod quota;
pub mod secret;

use serde::de::DeserializeOwned;

use crate::{
    db::{self, Change, Cond, Db, DbError, Item, Query, Tx, keys},
    deploy::{
        error::{Error, Object, Result},
        team::Team,
    },
};

/// The sort key of an application.
pub fn app_sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::APP_PREFIX)
}

/// Reads one of the team's items by sort key and decodes it.
pub async fn get<T: DeserializeOwned>(db: &Db, team: &Team, sk: &str) -> Result<Option<T>> {
    Ok(db.get_as(team.key(sk)).await?)
}

/// Every item of the team whose sort key starts with `prefix`, decoded;
/// items of another kind (their `kind` differs) are skipped, and so is an
/// item that no longer decodes (logged), so one cannot break a whole list.
pub async fn list<T: DeserializeOwned>(
    db: &Db,
    team: &Team,
    prefix: &str,
    kind: &str,
) -> Result<Vec<T>> {
    let mut all = Vec::new();
    each(db, team, prefix, kind, |record| all.push(record)).await?;
    Ok(all)
}

/// Like [`list`], handing each record to `f` as its page of the query
/// arrives, so the caller keeps only what it needs of each.
pub async fn each<T: DeserializeOwned>(
    db: &Db,
    team: &Team,
    prefix: &str,
    kind: &str,
    mut f: impl FnMut(T),
) -> Result<()> {
    let items = Query::table(keys::deploy_team_pk(&team.name)).prefix(prefix);
    let mut cursor = None;
    loop {
        let page = db.query_page(items.clone().after(cursor.take())).await?;
        for item in page.items {
            if !matches!(item.get("kind"), Some(db::Value::S(k)) if k == kind) {
                continue;
            }
            match db::from_item(item) {
                Ok(record) => f(record),
                Err(e) => {
                    tracing::error!(kind, error = %e, "skipping an item that does not decode")
                }
            }
        }
        match page.next {
            Some(k) => cursor = Some(k),
            None => return Ok(()),
        }
    }
}

/// An item for a record under the team's key, tagged with its kind.
pub fn item<T: serde::Serialize>(team: &Team, sk: &str, kind: &str, record: &T) -> Result<Item> {
    let mut item = db::to_item(record)?;
    item.extend(team.key(sk));
    item.insert("kind".into(), db::s(kind));
    Ok(item)
}

/// Counts one more reference to an existing item (fails the transaction if
/// it is gone).
pub fn add_ref(tx: &mut Tx, key: Item) -> Result<(), DbError> {
    tx.change(
        key,
        Change::new().add("refs", db::n(1)),
        Some(Cond::exists()),
    )?;
    Ok(())
}

/// Counts one reference less.
pub fn drop_ref(tx: &mut Tx, key: Item) -> Result<(), DbError> {
    tx.change(
        key,
        Change::new().add("refs", db::n(-1)),
        Some(Cond::exists()),
    )?;
    Ok(())
}

/// Counts one more child (an environment, a destination) on its parent,
/// at most `max`: the parent is later deleted with all its children in one
/// transaction, which must stay within DynamoDB's item limit.
pub fn add_child(tx: &mut Tx, parent: Item, counter: &str, max: usize) -> Result<(), DbError> {
    tx.change(
        parent,
        Change::new().add(counter, db::n(1)),
        Some(Cond::exists().and(Cond::below(counter, db::n(max)))),
    )?;
    Ok(())
}

/// A parent as its delete sees it: its children's keys, and the items it
/// refers to (counted there).
pub struct Family {
    /// Its children's counter attribute and how many children it should
    /// say (`None` for an item without children).
    pub count: Option<(&'static str, usize)>,
    /// Every item of its children (a child may have several).
    pub children: Vec<Item>,
    /// Its `updated_at` as read, when it can be edited: an edit meanwhile
    /// (which may change what it refers to) makes the delete read again.
    pub updated_at: Option<String>,
    pub refers_to: Vec<Item>,
    /// The team's count it leaves.
    pub counted: Option<quota::Kind>,
}

/// Deletes a parent (a project, a server) that nothing refers to, then its
/// children. The parent's conditional delete decides: it must still have
/// exactly the children read (one added meanwhile makes it read again and
/// retry); once it is gone its children are unreachable, so they follow in
/// batches, free of the transaction size limit.
pub async fn delete_family<F, Fut>(
    db: &Db,
    team: &Team,
    key: Item,
    family: Family,
    reload: F,
    object: Object,
) -> Result<()>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<Option<Family>>>,
{
    let mut family = family;
    for _ in 0..3 {
        let mut tx = db.tx();
        let mut unused = Cond::exists().and(Cond::at_most("refs", db::n(0)));
        if let Some((counter, n)) = family.count {
            unused = unused.and(Cond::eq(counter, db::n(n)));
        }
        if let Some(seen) = &family.updated_at {
            unused = unused.and(Cond::eq("updated_at", db::s(seen)));
        }
        tx.delete_when(key.clone(), unused)?;
        for target in &family.refers_to {
            drop_ref(&mut tx, target.clone())?;
        }
        if let Some(kind) = family.counted {
            quota::remove(&mut tx, team, kind)?;
        }
        match db.transact(tx).await {
            Ok(()) => {
                db::cleanup(
                    db,
                    "children of a deleted object",
                    db.batch_delete(family.children),
                )
                .await;
                return Ok(());
            }
            Err(e) if e.failed_condition() == Some(0) => {
                if in_use(db, key.clone()).await? {
                    return Err(Error::InUse(object));
                }
                family = reload().await?.ok_or(Error::NotFound(object))?;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy("the object keeps changing; retry"))
}

/// Whether the item under `key` is referred to (`refs > 0`).
pub async fn in_use(db: &Db, key: Item) -> Result<bool> {
    Ok(db
        .get(key)
        .await?
        .and_then(|i| {
            i.get("refs")
                .and_then(|r| r.as_n().ok())
                .and_then(|n| n.parse::<i64>().ok())
        })
        .is_some_and(|n| n > 0))
}

/// Deletes an item without children that nothing refers to (a deploy key).
pub async fn delete_resource(
    db: &Db,
    team: &Team,
    sk: &str,
    counted: quota::Kind,
    object: Object,
) -> Result<()> {
    let family = Family {
        count: None,
        children: Vec::new(),
        refers_to: Vec::new(),
        updated_at: None,
        counted: Some(counted),
    };
    delete_family(
        db,
        team,
        team.key(sk),
        family,
        || async { Ok(None) },
        object,
    )
    .await
}
