//! Applies findings. Counters are set on condition that they still hold
//! what was read (a request may have moved them since the scan: such a
//! repair is skipped and the next run looks again), and index documents on
//! condition that their revision is unchanged; key-only puts (memberships,
//! index entries) and deletions are idempotent and go in batches (25 per
//! call, a few calls in flight: an upgrade may add millions of entries);
//! claim holders and cancellations are idempotent.

use aws_sdk_dynamodb::types::AttributeValue;

use std::sync::Arc;

use super::{Finding, Fix, Report};
use crate::db::{
    self, Db, DbError, Item,
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
            let condition = if *stored == 0 {
                "attribute_not_exists(#a) OR #a = :stored"
            } else {
                "#a = :stored"
            };
            // Issue edits write the whole record on condition of its
            // `version`: moving it makes one read before this repair
            // re-read instead of writing the old count back.
            let is_issue = f.sk.starts_with(keys::ISSUE_PREFIX);
            let expression = if is_issue {
                "SET #a = :actual ADD version :one"
            } else {
                "SET #a = :actual"
            };
            db.update(|u| {
                let u = u
                    .set_key(Some(k))
                    .update_expression(expression)
                    .condition_expression(condition)
                    .expression_attribute_names("#a", attribute)
                    .expression_attribute_values(":stored", db::n(*stored))
                    .expression_attribute_values(":actual", db::n(*actual));
                if is_issue {
                    u.expression_attribute_values(":one", db::n(1))
                } else {
                    u
                }
            })
            .await
            .map(|_| ())
        }
        Fix::SetText {
            attribute, actual, ..
        } => db
            .update(|u| {
                u.set_key(Some(k))
                    .update_expression("SET #a = :actual")
                    .condition_expression("attribute_exists(pk)")
                    .expression_attribute_names("#a", attribute)
                    .expression_attribute_values(":actual", db::s(actual))
            })
            .await
            .map(|_| ()),
        Fix::SetHolders { stored, actual } => {
            // On condition that the holders are still the ones read.
            let was = (!stored.is_empty()).then(|| AttributeValue::Ss(stored.clone()));
            let condition = match was {
                Some(_) => "apps = :was",
                None => "attribute_not_exists(apps)",
            };
            if actual.is_empty() {
                db.delete(|d| {
                    let d = d.set_key(Some(k)).condition_expression(condition);
                    match was {
                        Some(w) => d.expression_attribute_values(":was", w),
                        None => d,
                    }
                })
                .await
            } else {
                db.update(|u| {
                    let u = u
                        .set_key(Some(k))
                        .update_expression("SET apps = :apps")
                        .condition_expression(condition)
                        .expression_attribute_values(":apps", AttributeValue::Ss(actual.clone()));
                    match was {
                        Some(w) => u.expression_attribute_values(":was", w),
                        None => u,
                    }
                })
                .await
                .map(|_| ())
            }
        }
        Fix::SetFlag {
            attribute,
            stored,
            actual,
        } => db
            .update(|u| {
                u.set_key(Some(k))
                    .update_expression("SET #a = :actual")
                    .condition_expression("#a = :stored")
                    .expression_attribute_names("#a", attribute)
                    .expression_attribute_values(":stored", AttributeValue::Bool(*stored))
                    .expression_attribute_values(":actual", AttributeValue::Bool(*actual))
            })
            .await
            .map(|_| ()),
        Fix::StopPurging(numbers) => db
            .update(|u| {
                let numbers = numbers.iter().map(i64::to_string).collect();
                u.set_key(Some(k))
                    .update_expression("DELETE purging :numbers")
                    .condition_expression("attribute_exists(pk)")
                    .expression_attribute_values(":numbers", AttributeValue::Ns(numbers))
            })
            .await
            .map(|_| ()),
        Fix::PutDocument {
            stored_rev,
            document,
            ..
        } => {
            let item = document.to_item()?;
            db.put(|p| {
                let p = p.set_item(Some(item));
                match stored_rev {
                    Some(rev) => p
                        .condition_expression("rev = :rev")
                        .expression_attribute_values(":rev", db::n(*rev)),
                    None => p.condition_expression("attribute_not_exists(pk)"),
                }
            })
            .await
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
            db.update(|u| {
                u.set_key(Some(k))
                    .update_expression("SET gsi1pk = :pk, gsi1sk = :sk")
                    .condition_expression("attribute_exists(pk) AND attribute_not_exists(gsi1pk)")
                    .expression_attribute_values(":pk", keys["gsi1pk"].clone())
                    .expression_attribute_values(":sk", keys["gsi1sk"].clone())
            })
            .await
            .map(|_| ())
        }
        Fix::Seal { attributes } => seal(db, sealer, &f.pk, k, attributes).await,
        // Batched by `repair`, or nothing to do.
        Fix::PutKey | Fix::PutStub(_) | Fix::Delete | Fix::Inspect => Ok(()),
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
    db.put(|p| {
        p.set_item(Some(entry))
            .condition_expression("attribute_not_exists(pk)")
    })
    .await
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
