//! Applies findings. Counters are set on condition that they still hold
//! what was read (a request may have moved them since the scan: such a
//! repair is skipped and the next run looks again), and index documents on
//! condition that their revision is unchanged; key-only puts (memberships,
//! index entries) and deletions are idempotent and go in batches (25 per
//! call, a few calls in flight: an upgrade may add millions of entries);
//! claim holders and cancellations are idempotent.

use std::sync::Arc;

use super::{Finding, Fix, Report};
use crate::db::{
    self, Change, Cond, Db, DbError, Item, Returns, Value,
    keys::{self, key},
};
use crate::seal::Sealer;

/// Key-only writes gathered before a batch goes.
const CHUNK: usize = 1000;

/// Repairs every finding of `report`, counting what was done and skipped.
/// Sealing the secrets an older release stored in the clear takes the
/// stack's key (`sealer`), as the functions have it.
pub async fn repair(db: &Db, sealer: &Arc<Sealer>, report: &mut Report) -> Result<(), DbError> {
    let (mut puts, mut deletes) = (Batch::default(), Batch::default());
    let (mut repaired, mut skipped) = (0, 0);
    for f in &report.drift {
        match &f.fix {
            Fix::PutKey => puts.push(key(&f.pk, &f.sk)),
            Fix::PutAttributes {
                texts,
                numbers,
                flags,
            } => {
                let mut item = key(&f.pk, &f.sk);
                item.extend(texts.iter().map(|(k, v)| (k.clone(), db::s(v))));
                item.extend(numbers.iter().map(|(k, v)| (k.clone(), db::n(*v))));
                item.extend(flags.iter().map(|(k, v)| (k.clone(), db::b(*v))));
                puts.push(item)
            }
            Fix::PutStub(stub) => puts.push(stub.item(&f.pk, &f.sk)),
            Fix::Delete => deletes.push(key(&f.pk, &f.sk)),
            Fix::Inspect => skipped += 1,
            _ => match apply(db, sealer, f).await {
                Ok(()) => repaired += 1,
                Err(DbError::ConditionFailed) => skipped += 1,
                Err(e) => return Err(e),
            },
        }
        if puts.items.len() >= CHUNK {
            repaired += puts.put(db).await?;
        }
        if deletes.items.len() >= CHUNK {
            repaired += deletes.delete(db).await?;
        }
    }
    repaired += puts.put(db).await?;
    repaired += deletes.delete(db).await?;
    report.repaired += repaired;
    report.skipped += skipped;
    Ok(())
}

/// Key-only puts or deletions, each key once (a batch may not name one
/// twice).
#[derive(Default)]
struct Batch {
    items: Vec<Item>,
    keys: std::collections::HashSet<(String, String)>,
}

impl Batch {
    fn push(&mut self, item: Item) {
        let k = (
            db::text(&item, "pk").to_string(),
            db::text(&item, "sk").to_string(),
        );
        if self.keys.insert(k) {
            self.items.push(item);
        }
    }

    /// Puts what was gathered; how many.
    async fn put(&mut self, db: &Db) -> Result<usize, DbError> {
        let items = self.take();
        let n = items.len();
        db.batch_put(items).await.map(|()| n)
    }

    async fn delete(&mut self, db: &Db) -> Result<usize, DbError> {
        let keys = self.take();
        let n = keys.len();
        db.batch_delete(keys).await.map(|()| n)
    }

    fn take(&mut self) -> Vec<Item> {
        self.keys.clear();
        std::mem::take(&mut self.items)
    }
}

async fn apply(db: &Db, sealer: &Arc<Sealer>, f: &Finding) -> Result<(), DbError> {
    let k = key(&f.pk, &f.sk);
    match &f.fix {
        Fix::SetNumber {
            attribute,
            stored,
            actual,
        } => {
            let cond = if *stored == 0 {
                Cond::unset_or_eq(attribute, db::n(*stored))
            } else {
                Cond::eq(attribute, db::n(*stored))
            };
            let change = Change::new().set(attribute, db::n(*actual));
            // Issue edits write the whole record on condition of its
            // `version`: moving it makes one read before this repair
            // re-read instead of writing the old count back.
            let change = if f.sk.starts_with(keys::ISSUE_PREFIX) {
                change.add("version", db::n(1))
            } else {
                change
            };
            change_if(db, k, change, cond).await
        }
        Fix::SetText {
            attribute, actual, ..
        } => {
            let change = Change::new().set(attribute, db::s(actual));
            change_if(db, k, change, Cond::exists()).await
        }
        Fix::SetHolders { stored, actual } => {
            // On condition that the holders are still the ones read.
            let cond = if stored.is_empty() {
                Cond::lacks("apps")
            } else {
                Cond::eq("apps", Value::Ss(stored.clone()))
            };
            if actual.is_empty() {
                db.delete_when(k, cond).await
            } else {
                let change = Change::new().set("apps", Value::Ss(actual.clone()));
                change_if(db, k, change, cond).await
            }
        }
        Fix::SetFlag {
            attribute,
            stored,
            actual,
        } => {
            let change = Change::new().set(attribute, db::b(*actual));
            change_if(db, k, change, Cond::eq(attribute, db::b(*stored))).await
        }
        Fix::StopPurging(numbers) => {
            let numbers = numbers.iter().map(i64::to_string).collect();
            let change = Change::new().delete("purging", Value::Ns(numbers));
            change_if(db, k, change, Cond::exists()).await
        }
        Fix::PutDocument {
            stored_rev,
            document,
            ..
        } => {
            let cond = match stored_rev {
                Some(rev) => Cond::eq("rev", db::n(*rev)),
                None => Cond::absent(),
            };
            db.put_when(document.to_item()?, cond).await
        }
        Fix::Cancel => crate::deploy::deployments::cancel_at(db, k).await,
        Fix::Enqueue => enqueue(db, &f.pk, k).await,
        Fix::IndexCleanup => {
            let Some(item) = db.get(k.clone()).await? else {
                return Err(DbError::ConditionFailed);
            };
            let keys = crate::deploy::cleanups::index_keys(
                db::text(&item, "server_uuid"),
                db::text(&item, "created_at"),
                db::text(&item, "application_uuid"),
            );
            let cond = Cond::exists().and(Cond::lacks(db::table::INDEXES[0].pk));
            change_if(db, k, Change::new().set_all(keys), cond).await
        }
        Fix::Seal { attributes } => seal(db, sealer, &f.pk, k, attributes).await,
        Fix::AssignIds => assign_ids(db, &f.pk, k).await,
        // Batched by `repair`, or nothing to do.
        Fix::PutKey | Fix::PutAttributes { .. } | Fix::PutStub(_) | Fix::Delete | Fix::Inspect => {
            Ok(())
        }
    }
}

/// Puts a deployment's server queue entry if it is still queued (and the
/// entry still missing).
async fn enqueue(db: &Db, pk: &str, k: Item) -> Result<(), DbError> {
    let Some(team) = pk.strip_prefix("DTEAM#") else {
        return Ok(());
    };
    let d: crate::deploy::deployments::DeploymentRecord =
        db.get_as(k).await?.ok_or(DbError::ConditionFailed)?;
    if d.status != "queued" {
        return Err(DbError::ConditionFailed);
    }
    let entry = crate::deploy::deployments::queue_entry_item(team, &d);
    db.put_when(entry, Cond::absent()).await
}

/// Numbers a deploy record from before ids, and links it to its parent's
/// id (numbering the parent first if it has none). An application's
/// `version` moves with it, so an edit that read it before writes nothing
/// back over the ids (it is refused and read again).
async fn assign_ids(db: &Db, pk: &str, k: Item) -> Result<(), DbError> {
    use crate::deploy::store::ids::{self, Seq};
    let deploy = |e: crate::deploy::Error| match e {
        crate::deploy::Error::Db(e) => e,
        e => DbError::Service(format!("numbering: {e}")),
    };
    let Some(item) = db.get(k.clone()).await? else {
        return Err(DbError::ConditionFailed);
    };
    let kind = db::text(&item, "kind").to_string();
    let Some(seq) = Seq::of_kind(&kind) else {
        return Ok(());
    };
    let numbers = key(pk, ids::IDS_SK);
    let bump = || {
        if kind == "application" {
            Change::new().add("version", db::n(1))
        } else {
            Change::new()
        }
    };
    // The id of the item under `k`, numbered now if it has none.
    let number = |k: Item, item: Option<Item>, seq: Seq, extra: Change| {
        let numbers = numbers.clone();
        async move {
            let item = match item {
                Some(i) => Some(i),
                None => db.get(k.clone()).await?,
            };
            let Some(item) = item else {
                return Ok::<_, DbError>(None);
            };
            if let Some(id) = ids::number(&item, "id") {
                return Ok(Some(id));
            }
            let id = ids::next_in(db, &numbers, &[seq]).await.map_err(deploy)?[0];
            ids::assign(db, k, id, extra).await.map_err(deploy)
        }
    };
    number(k.clone(), Some(item.clone()), seq, bump()).await?;
    let parent = match kind.as_str() {
        "environment" => Some((
            keys::project_sk(db::text(&item, "project_uuid")),
            Seq::Project,
            "project_id",
        )),
        "application" => Some((
            keys::environment_sk(
                db::text(&item, "project_uuid"),
                db::text(&item, "environment_uuid"),
            ),
            Seq::Environment,
            "environment_id",
        )),
        _ => None,
    };
    let Some((parent_sk, parent_seq, link)) = parent else {
        return Ok(());
    };
    if item.contains_key(link) {
        return Ok(());
    }
    let Some(parent_id) = number(key(pk, &parent_sk), None, parent_seq, Change::new()).await?
    else {
        return Ok(());
    };
    let change = bump().set(link, db::n(parent_id));
    change_if(db, k, change, Cond::exists().and(Cond::lacks(link))).await
}

/// Applies `change` to the item under `k` if `cond` holds.
async fn change_if(db: &Db, k: Item, change: Change, cond: Cond) -> Result<(), DbError> {
    db.change(k, change, Some(cond), Returns::Nothing)
        .await
        .map(|_| ())
}

/// Seals the clear attributes of one item, on condition that they still
/// hold what is read now. Needs the stack's key (`SECRETS_KMS_KEY_ID`).
async fn seal(
    db: &Db,
    sealer: &Arc<Sealer>,
    pk: &str,
    k: Item,
    attributes: &[String],
) -> Result<(), DbError> {
    let Some(team) = pk.strip_prefix("DTEAM#") else {
        return Ok(());
    };
    let team = crate::deploy::Team::of_runner(team, sealer.clone());
    let Some(item) = db.get(k).await? else {
        return Err(DbError::ConditionFailed);
    };
    let names: Vec<&str> = attributes.iter().map(String::as_str).collect();
    match crate::deploy::store::secret::seal_stored(db, &team, vec![item], &names).await {
        Ok(0) => Err(DbError::ConditionFailed),
        Ok(_) => Ok(()),
        Err(crate::deploy::Error::Db(e)) => Err(e),
        Err(e) => Err(DbError::Service(format!("sealing: {e}"))),
    }
}
