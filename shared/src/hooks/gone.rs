//! Deletes in the outbox. A delete's stream record has no new image, so
//! it cannot say who deleted: the transaction that deletes an issue, a pull
//! request or a comment also puts an event item (`EVENT#<uuid>` in the
//! repository's partition, kept a day) holding the record as it was and
//! the actor. Its insert is the event ([`happened`](super::happened)).

use aws_sdk_dynamodb::types::AttributeValue;
use serde::Serialize;

use crate::db::{self, Db, DbError, Item, keys};

/// Where event items begin in a repository's partition.
pub const EVENT_PREFIX: &str = "EVENT#";

/// What was deleted (the item's `gone` attribute).
pub const ISSUE: &str = "issue";
pub const COMMENT: &str = "comment";

/// How long an event item is kept (the stream holds records a day).
const KEEP_SECS: i64 = 86_400;

/// The event item of deleting `record` (an issue's or a comment's record)
/// of repository `repo_id`, stamped with the request's actor.
pub fn event(
    db: &Db,
    repo_id: i64,
    gone: &'static str,
    record: &impl Serialize,
) -> Result<Item, DbError> {
    let mut item = keys::key(
        &keys::repo_pk(repo_id),
        &format!("{EVENT_PREFIX}{}", uuid::Uuid::new_v4()),
    );
    item.insert("gone".into(), db::s(gone));
    item.insert("record".into(), AttributeValue::M(db::to_item(record)?));
    item.insert("ttl".into(), db::n(crate::time::now() + KEEP_SECS));
    db.stamp(item)
}
