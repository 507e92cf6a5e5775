//! The reactions of a deleted issue (its comments' included, by one
//! prefix) or of a deleted comment go when the table's stream shows the
//! issue or comment go.

use super::store;
use crate::{
    db::{self, Db, keys},
    stream::{Change, Handler},
};

/// Removes the reactions of issues and comments that are gone.
#[derive(Default)]
pub struct Leftovers;

impl Handler for Leftovers {
    fn name(&self) -> &'static str {
        "reaction-leftovers"
    }

    fn wants(&self, change: &Change) -> bool {
        change.pk().starts_with("REPO#")
            && (change.sk().starts_with(keys::COMMENT_PREFIX)
                || change.sk().starts_with(keys::ISSUE_PREFIX))
            && change.removed()
    }

    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        Box::pin(async move {
            let Some(old) = &change.old else {
                return Ok(());
            };
            let (repo_id, index) = (db::number(old, "repo_id"), db::number(old, "index"));
            if change.sk().starts_with(keys::ISSUE_PREFIX) {
                Ok(store::remove_all_of_issue(db, repo_id, index).await?)
            } else {
                let id = db::number(old, "id");
                Ok(store::remove_all_of_comment(db, repo_id, index, id).await?)
            }
        })
    }
}
