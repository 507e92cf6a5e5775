//! The tracked times of a deleted issue or repository go when the table's
//! stream shows it go: [`store::REMOVE_CHUNK`] at a time, each with its
//! copies (the user's listing, outside the repository, included) and its
//! counts, then the counts left. Listings pass over a time whose issue is
//! gone until then.

use super::store;
use crate::{
    db::{self, Db, Query, keys},
    stream::{Change, Handler},
};

/// Removes the times of issues and repositories that are gone.
#[derive(Default)]
pub struct TimeLeftovers;

impl Handler for TimeLeftovers {
    fn name(&self) -> &'static str {
        "time-leftovers"
    }

    fn wants(&self, change: &Change) -> bool {
        change.pk().starts_with("REPO#")
            && (change.sk().starts_with(keys::ISSUE_PREFIX) || change.sk() == keys::PROFILE)
            && change.removed()
    }

    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        Box::pin(async move {
            let Some(old) = &change.old else {
                return Ok(());
            };
            if change.sk() == keys::PROFILE {
                let repo_pk = change.pk().to_string();
                store::remove_listed(db, &repo_pk, keys::TIME_BY_ID_PREFIX).await?;
                let rest = Query::table(repo_pk).prefix(keys::TIME_PREFIX);
                return Ok(db.delete_found(rest).await?);
            }
            let (repo_id, index) = (db::number(old, "repo_id"), db::number(old, "index"));
            let (pk, tag) = keys::times_of_issue(repo_id, index);
            store::remove_listed(db, &pk, &keys::time_entries(&tag)).await?;
            Ok(store::remove_issue_counts(db, repo_id, index).await?)
        })
    }
}
