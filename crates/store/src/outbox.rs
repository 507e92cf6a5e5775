//! Event items: what the stream's images cannot say by themselves. A
//! delete's record has no new image, so it cannot say who deleted; a
//! repository's settings item is put again by a rename, so its insert is
//! not a creation. The transaction that deletes an issue, a pull request or
//! a comment, or creates or deletes a repository, also puts an event item
//! (`EVENT#<uuid>` in the repository's partition, kept a day) holding what
//! happened, the record (as it was, for a delete) and the actor. Its insert
//! is the event (the webhooks' `happened`).

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::db::{self, Db, DbError, Item, keys};

/// Where event items begin in a repository's partition.
pub const EVENT_PREFIX: &str = "EVENT#";

/// What happened (the item's `what` attribute).
pub const ISSUE_DELETED: &str = "issue_deleted";
pub const COMMENT_DELETED: &str = "comment_deleted";
pub const REPO_CREATED: &str = "repo_created";
pub const REPO_DELETED: &str = "repo_deleted";
/// A deployment's status changes, put in its team's partition; no hook
/// listens to them yet, and `happened` passes them by (it reads
/// repositories' partitions only).
pub const DEPLOYMENT_QUEUED: &str = "deployment_queued";
pub const DEPLOYMENT_STARTED: &str = "deployment_started";
pub const DEPLOYMENT_FINISHED: &str = "deployment_finished";
pub const DEPLOYMENT_FAILED: &str = "deployment_failed";
pub const DEPLOYMENT_CANCELLED: &str = "deployment_cancelled";

/// How long an event item is kept (the stream holds records a day).
const KEEP_SECS: i64 = 86_400;

/// The event item of `what` happening to `record` (an issue's, a
/// comment's or a repository's) of repository `repo_id`, stamped with the
/// request's actor.
pub fn event(
    db: &Db,
    repo_id: i64,
    what: &'static str,
    record: &impl Serialize,
) -> Result<Item, DbError> {
    event_in(db, &keys::repo_pk(repo_id), what, record)
}

/// The event item of `what` happening to `record`, in the partition `pk`.
pub fn event_in(
    db: &Db,
    pk: &str,
    what: &'static str,
    record: &impl Serialize,
) -> Result<Item, DbError> {
    let mut item = keys::key(pk, &format!("{EVENT_PREFIX}{}", uuid::Uuid::new_v4()));
    item.insert("what".into(), db::s(what));
    item.insert("record".into(), AttributeValue::M(db::to_item(record)?));
    item.insert("ttl".into(), db::n(base::time::now() + KEEP_SECS));
    db.stamp(item)
}
