//! The comment listings' own index: one small entry per comment in its
//! issue's listing and in its repository's listing of that kind, oldest
//! first (`<created>#<repo>#<id>`, with the update time beside it), and,
//! once edited, one in each listing of edited comments by update time
//! (with the creation time beside it). Each entry also carries the
//! comment's issue number (`i`), so a repository's listing can pass over
//! the comments of a deleted issue still being removed without reading
//! them (`comments::listing`). A page past the first, and every
//! `since`/`before` window, reads these few bytes per comment rather than
//! the comments, however long their bodies; the page's comments are then
//! read by key. A comment's write puts and removes its entries in its own
//! transaction ([`write`]), so a listing read strongly consistent shows
//! the comment as soon as the write answered; such comments carry
//! [`LISTED`]. The table's stream consumer keeps the entries of comments
//! written before that (from each change's images), and removes a deleted
//! comment's whoever deleted it (a deleted issue's clean-up job does not
//! touch the listings).

use std::collections::BTreeMap;

use super::lists::{self, Stub};
use crate::{
    db::{self, Db, DbError, Item, Tx, keys},
    stream::{Change, Handler},
};

/// Where a comment is listed: what its entries are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommentPlace {
    pub id: i64,
    pub repo_id: i64,
    /// Its issue's number.
    pub index: i64,
    pub is_pull: bool,
    pub created: i64,
    pub updated: i64,
}

impl CommentPlace {
    /// The attributes a comment's item stores them in.
    pub const ATTRIBUTES: [&'static str; 6] =
        ["id", "repo_id", "index", "is_pull", "created", "updated"];

    /// From a comment's item (or image, or projection of those attributes).
    pub fn of(item: &Item) -> Self {
        Self {
            id: db::number(item, "id"),
            repo_id: db::number(item, "repo_id"),
            index: db::number(item, "index"),
            is_pull: db::flag(item, "is_pull"),
            created: db::number(item, "created"),
            updated: db::number(item, "updated"),
        }
    }
}

/// A comment's listing entries, each with what it carries beside its key.
pub fn stubs(c: &CommentPlace) -> BTreeMap<(String, String), Stub> {
    let mut out = BTreeMap::new();
    let stub = |t| Stub {
        t,
        issue: c.index,
        closed: false,
    };
    let created = keys::index_place_sk(c.created, c.repo_id, c.id);
    for pk in [
        lists::issue_comments_pk(c.repo_id, c.index, false),
        lists::kind_comments_pk(c.repo_id, c.is_pull, false),
    ] {
        out.insert((pk, created.clone()), stub(c.updated));
    }
    if c.updated > c.created {
        let updated = keys::index_place_sk(c.updated, c.repo_id, c.id);
        for pk in [
            lists::issue_comments_pk(c.repo_id, c.index, true),
            lists::kind_comments_pk(c.repo_id, c.is_pull, true),
        ] {
            out.insert((pk, updated.clone()), stub(c.created));
        }
    }
    out
}

/// The attribute of a comment whose write keeps its entries (`true`).
pub const LISTED: &str = "lx";

/// What changes in the listings when a comment goes from `old` to `new`
/// (either may be absent): entries to put, keys to delete.
fn difference(old: Option<&CommentPlace>, new: Option<&CommentPlace>) -> (Vec<Item>, Vec<Item>) {
    let (old, new) = (
        old.map(stubs).unwrap_or_default(),
        new.map(stubs).unwrap_or_default(),
    );
    let puts = new
        .iter()
        .filter(|(k, t)| old.get(k) != Some(t))
        .map(|((pk, sk), stub)| stub.item(pk, sk))
        .collect();
    let deletes = old
        .keys()
        .filter(|k| !new.contains_key(k))
        .map(|(pk, sk)| keys::key(pk, sk))
        .collect();
    (puts, deletes)
}

/// Adds the listing changes of a comment going from `old` to `new` to its
/// write's transaction (at most 6 items).
pub fn write(
    tx: &mut Tx,
    old: Option<&CommentPlace>,
    new: Option<&CommentPlace>,
) -> Result<(), DbError> {
    let (puts, deletes) = difference(old, new);
    for item in puts {
        tx.put(item)?;
    }
    for key in deletes {
        tx.delete(key)?;
    }
    Ok(())
}

/// Keeps the comment listings' entries.
#[derive(Default)]
pub struct Stubs;

impl Handler for Stubs {
    fn name(&self) -> &'static str {
        "comment-listings"
    }

    fn wants(&self, change: &Change) -> bool {
        change.pk().starts_with("REPO#") && change.sk().starts_with(keys::COMMENT_PREFIX)
    }

    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        Box::pin(async move { Ok(apply(db, change).await?) })
    }
}

async fn apply(db: &Db, change: &Change) -> Result<(), DbError> {
    // Its write kept the entries: applying an older change now would undo
    // a later write's.
    if change.new.as_ref().is_some_and(|i| db::flag(i, LISTED)) {
        return Ok(());
    }
    let place = |i: &Option<Item>| i.as_ref().map(CommentPlace::of);
    let (puts, deletes) = difference(place(&change.old).as_ref(), place(&change.new).as_ref());
    db.batch_put(puts).await?;
    db.batch_delete(deletes).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_is_listed_under_its_issue_and_kind_and_once_edited_by_update() {
        let c = CommentPlace {
            id: 9,
            repo_id: 7,
            index: 3,
            is_pull: true,
            created: 100,
            updated: 100,
        };
        let plain: Vec<String> = stubs(&c).into_keys().map(|(pk, _)| pk).collect();
        assert_eq!(plain, ["IX#R:7#c:3", "IX#R:7#cp"]);
        let edited = CommentPlace { updated: 150, ..c };
        let got = stubs(&edited);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got.get(&("IX#R:7#e:3".to_string(), keys::index_place_sk(150, 7, 9))),
            Some(&Stub {
                t: 100,
                issue: 3,
                closed: false
            })
        );
        assert_eq!(
            got.get(&("IX#R:7#cp".to_string(), keys::index_place_sk(100, 7, 9))),
            Some(&Stub {
                t: 150,
                issue: 3,
                closed: false
            })
        );
    }
}
