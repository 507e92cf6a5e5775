//! Applies findings. Counters are set on condition that they still hold
//! what was read (a request may have moved them since the scan: such a
//! repair is skipped and the next run looks again); deletions, claim
//! holders and cancellations are idempotent.

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Finding, Fix, Report};
use crate::db::{
    self, Db, DbError,
    keys::{self, key},
};

/// Repairs every finding of `report`, counting what was done and skipped.
pub async fn repair(db: &Db, report: &mut Report) -> Result<(), DbError> {
    for f in &report.drift {
        match apply(db, f).await {
            Ok(()) => report.repaired += 1,
            Err(DbError::ConditionFailed) => report.skipped += 1,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

async fn apply(db: &Db, f: &Finding) -> Result<(), DbError> {
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
        Fix::PutKey => db.put(|p| p.set_item(Some(k))).await,
        Fix::Delete => db.delete(|d| d.set_key(Some(k))).await,
        Fix::Cancel => crate::deploy::deployments::cancel_at(db, k).await,
    }
}
