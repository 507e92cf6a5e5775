//! Reads the whole table for the checks, in a few parallel scan segments,
//! one page (at most 1 MB) at a time: each page's items are reduced
//! ([`Inventory::add`]) before the next is read, so issue and comment
//! bodies never accumulate, whatever the table's size.
//!
//! Items are read whole (no projection): a scan costs the same read units
//! either way (DynamoDB charges the size of the items read, before any
//! projection), and the reduction keeps what each kind of item needs, so
//! a new field of a document cannot be left out by a stale list here.

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
        let page = db.scan_page(segment, SEGMENTS, cursor.take()).await?;
        inv.read_units += page.read_units;
        for item in page.items {
            inv.add(item);
        }
        match page.next {
            Some(k) => cursor = Some(k),
            None => return Ok(inv),
        }
    }
}
