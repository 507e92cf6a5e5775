//! The comment listings' own index: one small entry per comment in its
//! issue's listing and in its repository's listing of that kind, oldest
//! first (`<created>#<repo>#<id>`, with the update time beside it), and,
//! once edited, one in each listing of edited comments by update time
//! (with the creation time beside it). A page past the first, and every
//! `since`/`before` window, reads these few bytes per comment rather than
//! the comments, however long their bodies; the page's comments are then
//! read by key. The table's stream consumer keeps them, from each
//! comment's images before and after a change.

use std::collections::BTreeMap;

use futures::future::BoxFuture;

use super::CommentRecord;
use crate::{
    db::{self, Db, DbError, Item, keys},
    issues::index::lists,
    stream::{Change, Handler},
};

/// A comment's listing entries, each with the time it carries beside its
/// key.
pub fn stubs(c: &CommentRecord) -> BTreeMap<(String, String), i64> {
    let mut out = BTreeMap::new();
    let created = keys::index_place_sk(c.created, c.repo_id, c.id);
    for pk in [
        lists::issue_comments_pk(c.repo_id, c.index, false),
        lists::kind_comments_pk(c.repo_id, c.is_pull, false),
    ] {
        out.insert((pk, created.clone()), c.updated);
    }
    if c.updated > c.created {
        let updated = keys::index_place_sk(c.updated, c.repo_id, c.id);
        for pk in [
            lists::issue_comments_pk(c.repo_id, c.index, true),
            lists::kind_comments_pk(c.repo_id, c.is_pull, true),
        ] {
            out.insert((pk, updated.clone()), c.created);
        }
    }
    out
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

    fn handle<'a>(
        &'a self,
        db: &'a Db,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<(), crate::Error>> {
        Box::pin(async move { Ok(apply(db, change).await?) })
    }
}

async fn apply(db: &Db, change: &Change) -> Result<(), DbError> {
    let of = |i: &Option<Item>| -> Result<BTreeMap<(String, String), i64>, DbError> {
        Ok(i.clone()
            .map(db::from_item::<CommentRecord>)
            .transpose()?
            .map(|c| stubs(&c))
            .unwrap_or_default())
    };
    let (old, new) = (of(&change.old)?, of(&change.new)?);
    let puts: Vec<Item> = new
        .iter()
        .filter(|(k, t)| old.get(k) != Some(t))
        .map(|((pk, sk), t)| {
            let mut item = keys::key(pk, sk);
            item.insert("t".into(), db::n(*t));
            item
        })
        .collect();
    let deletes: Vec<Item> = old
        .keys()
        .filter(|k| !new.contains_key(k))
        .map(|(pk, sk)| keys::key(pk, sk))
        .collect();
    db.batch_put(puts).await?;
    db.batch_delete(deletes).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_is_listed_under_its_issue_and_kind_and_once_edited_by_update() {
        let c = CommentRecord {
            id: 9,
            repo_id: 7,
            index: 3,
            is_pull: true,
            created: 100,
            updated: 100,
            ..CommentRecord::default()
        };
        let plain: Vec<String> = stubs(&c).into_keys().map(|(pk, _)| pk).collect();
        assert_eq!(plain, ["IX#R:7#c:3", "IX#R:7#cp"]);
        let edited = CommentRecord { updated: 150, ..c };
        let got = stubs(&edited);
        assert_eq!(got.len(), 4);
        assert_eq!(
            got.get(&("IX#R:7#e:3".to_string(), keys::index_place_sk(150, 7, 9))),
            Some(&100)
        );
        assert_eq!(
            got.get(&("IX#R:7#cp".to_string(), keys::index_place_sk(100, 7, 9))),
            Some(&150)
        );
    }
}
