//! Reads the whole table for the checks, in a few parallel scan segments,
//! one page (at most 1 MB) at a time: each page's items are reduced
//! ([`Inventory::add`]) before the next is read, so issue and comment
//! bodies never accumulate, whatever the table's size.
//!
//! Items are read whole (no projection): a scan costs the same read units
//! either way (DynamoDB charges the size of the items read, before any
//! projection), and the reduction keeps what each kind of item needs, so
//! a new field of a document cannot be left out by a stale list here.
//!
//! `Db::scan_segment` returns a whole segment at once, so this reads
//! pages through the table's client itself (`Db::client`, for operators'
//! tools) and adds up their read units into [`Inventory::read_units`].

use aws_sdk_dynamodb::{error::DisplayErrorContext, types::ReturnConsumedCapacity};

use super::Inventory;
use crate::db::{Db, DbError};

const SEGMENTS: i32 = 4;

pub async fn scan(db: &Db) -> Result<Inventory, DbError> {
    let segments = (0..SEGMENTS).map(|s| segment(db, s));
    let mut inv = Inventory::default();
    for part in futures::future::try_join_all(segments).await? {
        inv.merge(part);
    }
    inv.sort();
    Ok(inv)
}

async fn segment(db: &Db, segment: i32) -> Result<Inventory, DbError> {
    let mut inv = Inventory::default();
    let mut cursor = None;
    loop {
        let page = db
            .client()
            .scan()
            .table_name(db.table())
            .segment(segment)
            .total_segments(SEGMENTS)
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_exclusive_start_key(cursor.take())
            .send()
            .await
            .map_err(|e| DbError::Service(DisplayErrorContext(&e).to_string()))?;
        inv.read_units += page
            .consumed_capacity
            .as_ref()
            .and_then(|c| c.capacity_units)
            .unwrap_or(0.0);
        for item in page.items.unwrap_or_default() {
            inv.add(item);
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => cursor = Some(k),
            _ => return Ok(inv),
        }
    }
}
