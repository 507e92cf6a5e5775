//! Reads the whole table for the checks, keeping only the attributes they
//! use (no bodies or settings), in a few parallel scan segments.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;

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

/// Attributes read besides [`ATTRIBUTES`] (deployments and team counts).
const MORE: [&str; 7] = [
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
    let segments = (0..SEGMENTS).map(|segment| segment_items(db, segment, &names));
    let mut inv = Inventory::default();
    for items in futures::future::try_join_all(segments).await? {
        items.into_iter().for_each(|i| inv.add(i));
    }
    inv.sort();
    Ok(inv)
}

async fn segment_items(
    db: &Db,
    segment: i32,
    names: &[&str],
) -> Result<Vec<crate::db::Item>, DbError> {
    let placeholders: Vec<String> = (0..names.len()).map(|i| format!("#a{i}")).collect();
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let mut req = db
            .client()
            .scan()
            .table_name(db.table())
            .segment(segment)
            .total_segments(SEGMENTS)
            .consistent_read(true)
            .projection_expression(placeholders.join(", "))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_exclusive_start_key(cursor.take());
        for (p, n) in placeholders.iter().zip(names) {
            req = req.expression_attribute_names(p, *n);
        }
        let page = req.send().await.map_err(|e| {
            DbError::Service(aws_sdk_dynamodb::error::DisplayErrorContext(&e).to_string())
        })?;
        out.extend(page.items.unwrap_or_default());
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => cursor = Some(k),
            _ => return Ok(out),
        }
    }
}
