//! Where the next page of a listing starts: after serving a page whose
//! walk read far, its last place is kept for a few minutes under the
//! caller, the listing and its query, so asking for the next page (as
//! clients that page to the end do) costs one page again, not every page
//! before it. A cursor only saves work: without one, a page is found from
//! the start, within the request's limits.

use sha2::{Digest, Sha256};

use super::walk::{Place, place_of, sk_of};
use crate::db::{self, Db, DbError, keys};

/// How long a cursor is kept (seconds).
pub const TTL_SECONDS: i64 = 600;

/// The identity of a listing for one caller: `parts` name the caller,
/// the route and the query without its page (any order; the caller sorts
/// them).
pub fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p.as_bytes());
    }
    hex::encode(h.finalize())
}

/// The place page `page` starts after, if a recent page left it.
pub async fn load(db: &Db, key: &str, page: u64) -> Result<Option<Place>, DbError> {
    let Some(item) = db.get(keys::listing_cursor(key, page)).await? else {
        return Ok(None);
    };
    // TTL deletes lazily: an expired cursor is absent.
    if db::number(&item, "ttl") < crate::time::now() {
        return Ok(None);
    }
    Ok(place_of(db::text(&item, "place")))
}

/// Keeps where page `page` starts.
pub async fn save(db: &Db, key: &str, page: u64, after: Place) -> Result<(), DbError> {
    let mut item = keys::listing_cursor(key, page);
    item.insert("place".into(), db::s(sk_of(after)));
    item.insert(
        crate::db::table::TTL.into(),
        db::n(crate::time::now() + TTL_SECONDS),
    );
    db.put_item(item).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_depend_on_every_part_and_its_boundaries() {
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_ne!(key(&["alice", "q=x"]), key(&["bob", "q=x"]));
        assert_eq!(key(&["a", "b"]).len(), 64);
    }
}
