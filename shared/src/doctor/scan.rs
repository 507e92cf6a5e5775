//! Reads the whole table for the checks, keeping only the attributes they
//! use (no bodies or settings), in a few parallel scan segments.

use super::Inventory;
use crate::db::{Db, DbError};

/// The attributes any check reads.
const ATTRIBUTES: [&str; 27] = [
    "pk",
    "sk",
    "kind",
    "id",
    "index",
    "is_pull",
    "closed",
    "milestone",
    "num_issues",
    "num_closed_issues",
    "num_pulls",
    "num_closed_pulls",
    "last_index",
    "owner",
    "name",
    "repo_id",
    "members",
    "uuid",
    "refs",
    "envs",
    "dests",
    "project_uuid",
    "server_uuid",
    "provider_app_uuid",
    "private_key_uuid",
    "claimed",
    "apps",
];

/// Attributes read besides [`ATTRIBUTES`] (deployments, team counts,
/// comment counts, the search index).
const MORE: [&str; 20] = [
    "created",
    "poster",
    "assignees",
    "mentions",
    "comment_mentions",
    "private",
    "io",
    "ic",
    "po",
    "pc",
    "comments",
    "num_issue_comments",
    "num_pull_comments",
    "status",
    "application_uuid",
    "applications",
    "projects",
    "servers",
    "private_keys",
    "provider_apps",
];

const SEGMENTS: i32 = 4;

pub async fn scan(db: &Db) -> Result<Inventory, DbError> {
    let names: Vec<&str> = ATTRIBUTES.iter().chain(MORE.iter()).copied().collect();
    let segments = (0..SEGMENTS).map(|segment| db.scan_segment(segment, SEGMENTS, &names));
    let mut inv = Inventory::default();
    for items in futures::future::try_join_all(segments).await? {
        items.into_iter().for_each(|i| inv.add(i));
    }
    inv.sort();
    Ok(inv)
}
