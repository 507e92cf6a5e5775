//! Writes the index has yet to apply.
//!
//! The stream consumer keeps the index a moment behind the table, but a
//! write that answered must show in the next listing, as Gitea's do (they
//! read its database). So every write of an issue also puts, in its own
//! transaction, two small *marks*: one in the repository
//! (`REPO#<id>`/`IXP#<number>`) and one under the user who wrote it
//! (`OWNER#<login>`/`IXP#<repo>#<number>`, for their searches across
//! repositories). Both hold the write's token, which the issue item holds
//! too (`ixw`, with the writer in `ixb`). Listings read the marks, strongly
//! consistent, and lay the marked issues as they are now over what the
//! index says of them ([`super::overlay`]). The consumer takes a mark away
//! once the index holds the write that made it, on condition that its
//! token is still that write's: a later write's mark stays.
//!
//! A delete marks its issue too (token [`DELETED`]; numbers are never
//! handed out again, so no later write replaces it), naming its writer in
//! the token, since the deleted item cannot.

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};

use crate::{
    db::{
        self, Cond, Db, DbError, Item, Query, Tx, keys,
        table::{PK, SK},
    },
    stream::Change,
};

/// The issue item's attribute holding its last write's token.
pub const TOKEN: &str = "ixw";
/// The issue item's attribute holding its last write's writer.
pub const WRITER: &str = "ixb";
/// The token of a delete's marks (followed by `:<writer>`).
pub const DELETED: &str = "del";

/// Marks outlive the stream's 24 hours: a mark whose change the consumer
/// never applied keeps its issue read from the table until `check-data`
/// repairs the index.
const KEEP_SECS: i64 = 3 * 86_400;

/// One write of an issue: what its marks and the issue item hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub token: String,
    /// The writer's lower-case login (`None`: background work, which has
    /// no searches to serve).
    pub writer: Option<String>,
}

impl Write {
    /// A write by the request's actor.
    pub fn new(db: &Db) -> Self {
        Self {
            token: hex::encode(rand::random::<[u8; 8]>()),
            writer: writer_of(db),
        }
    }

    /// A delete by the request's actor.
    pub fn deletion(db: &Db) -> Self {
        let writer = writer_of(db);
        Self {
            token: format!("{DELETED}:{}", writer.as_deref().unwrap_or_default()),
            writer,
        }
    }

    /// Puts the marks of issue `index` of a repository into `tx`.
    pub fn mark(&self, tx: &mut Tx, repo_id: i64, index: i64) -> Result<(), DbError> {
        let ttl = crate::time::now() + KEEP_SECS;
        let mark = |mut item: Item| {
            item.insert("w".into(), db::s(&self.token));
            item.insert("ttl".into(), db::n(ttl));
            item
        };
        tx.put(mark(keys::index_pending(repo_id, index)))?;
        if let Some(w) = &self.writer {
            tx.put(mark(keys::index_pending_of_writer(w, repo_id, index)))?;
        }
        Ok(())
    }

    /// `change` (an update of the issue item), recording this write.
    pub fn recorded(&self, change: db::Change) -> db::Change {
        change
            .set(TOKEN, db::s(&self.token))
            .set(WRITER, db::s(self.writer.as_deref().unwrap_or("-")))
    }
}

fn writer_of(db: &Db) -> Option<String> {
    db.actor().map(|a| crate::name::fold(&a.name))
}

/// The marks of the writes `changes` report (one issue's, in stream
/// order), to take away once the index holds them. A mark holds the last
/// write that made it: the mark its last write's token, each
/// writer's mark that writer's last one, and each is taken away on
/// condition it still does (a later write's mark stays).
pub async fn marks(
    db: &Db,
    changes: &[&Change],
    repo_id: i64,
    index: i64,
) -> Result<Vec<Mark>, DbError> {
    let mut writes: Vec<(String, String)> = Vec::new();
    for change in changes {
        writes.push(match &change.new {
            Some(item) => (
                db::text(item, TOKEN).to_string(),
                db::text(item, WRITER).to_string(),
            ),
            // A delete's marks name their writer in the token.
            None => match db.get(keys::index_pending(repo_id, index)).await? {
                Some(mark) if db::text(&mark, "w").starts_with(DELETED) => {
                    let token = db::text(&mark, "w").to_string();
                    let writer = token
                        .split_once(':')
                        .map(|(_, w)| w.to_string())
                        .unwrap_or_default();
                    (token, writer)
                }
                _ => continue,
            },
        });
    }
    let mut marks = Vec::new();
    if let Some((token, _)) = writes.last().filter(|(t, _)| !t.is_empty()) {
        marks.push(Mark {
            key: keys::index_pending(repo_id, index),
            token: token.clone(),
        });
    }
    let mut by_writer: BTreeMap<&str, &str> = BTreeMap::new();
    for (token, writer) in &writes {
        if !token.is_empty() && !writer.is_empty() && writer != "-" {
            by_writer.insert(writer, token);
        }
    }
    for (writer, token) in by_writer {
        marks.push(Mark {
            key: keys::index_pending_of_writer(writer, repo_id, index),
            token: token.to_string(),
        });
    }
    Ok(marks)
}

/// A mark to take away: its key and the token it must still hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub key: Item,
    pub token: String,
}

impl Mark {
    /// Adds the mark's delete, on condition it still holds its token, to
    /// `tx` (the document's own transaction, where it fits).
    pub fn delete_in(&self, tx: &mut Tx) -> Result<(), DbError> {
        tx.delete_when(self.key.clone(), Cond::eq("w", db::s(&self.token)))?;
        Ok(())
    }
}

/// Deletes `marks` one call each, a few at a time; a mark that a later
/// write took over stays.
pub async fn clear(db: &Db, marks: Vec<Mark>) -> Result<(), DbError> {
    let deletes = marks.into_iter().map(|Mark { key, token }| async move {
        let done = db.delete_when(key, Cond::eq("w", db::s(token))).await;
        match done {
            Err(DbError::ConditionFailed) => Ok(()),
            other => other,
        }
    });
    // One per writer of the run (a batch holds up to 1,000 changes): a few
    // at a time, not all at once.
    futures::stream::iter(deletes)
        .buffer_unordered(CLEARS_AT_ONCE)
        .try_collect::<Vec<()>>()
        .await?;
    Ok(())
}

/// Marks deleted at once by one run.
const CLEARS_AT_ONCE: usize = 8;

/// At most this many marks are laid over one listing: past that the index
/// is too far behind to serve it (503, retry shortly).
/// One read of the marked issues (a hundred keys): a script that creates
/// 51 issues in a row and lists them (Gitea's paging test) outran the
/// consumer under `make test` at 50.
pub const MOST_IN_REPO: usize = 100;
/// At most this many of a writer's marks are laid over their search.
pub const MOST_OF_WRITER: usize = 100;

/// The issues marked in a repository (`(repo id, number)`), at most
/// `most` (`None`: more).
pub async fn of_repo(
    db: &Db,
    repo_id: i64,
    most: usize,
) -> Result<Option<Vec<(i64, i64)>>, DbError> {
    let items = read(db, &keys::repo_pk(repo_id), most).await?;
    Ok(items.map(|items| {
        items
            .iter()
            .filter_map(|i| {
                let n = db::text(i, "sk").strip_prefix(keys::INDEX_PENDING_PREFIX)?;
                Some((repo_id, n.parse().ok()?))
            })
            .collect()
    }))
}

/// The issues a user's marks name, at most `most` (`None`: more).
pub async fn of_writer(
    db: &Db,
    login: &str,
    most: usize,
) -> Result<Option<Vec<(i64, i64)>>, DbError> {
    let items = read(db, &keys::owner_pk(login), most).await?;
    Ok(items.map(|items| {
        items
            .iter()
            .filter_map(|i| {
                let rest = db::text(i, "sk").strip_prefix(keys::INDEX_PENDING_PREFIX)?;
                let (repo, n) = rest.split_once('#')?;
                Some((repo.parse().ok()?, n.parse().ok()?))
            })
            .collect()
    }))
}

/// The marks of a partition, strongly consistent (a mark the consumer took
/// away a moment ago must not hide the index's state from before), at most
/// `most` of them.
async fn read(db: &Db, pk: &str, most: usize) -> Result<Option<Vec<Item>>, DbError> {
    let q = Query::table(pk)
        .prefix(keys::INDEX_PENDING_PREFIX)
        .fields(&[PK, SK])
        .limit(most as i32 + 1);
    let items = db.query_page(q).await?.items;
    Ok((items.len() <= most).then_some(items))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_keyed_by_repository_and_by_writer() {
        let repo = keys::index_pending(7, 3);
        assert_eq!(db::text(&repo, "pk"), "REPO#7");
        assert_eq!(db::text(&repo, "sk"), "IXP#00000000000000000003");
        let mine = keys::index_pending_of_writer("alice", 7, 3);
        assert_eq!(db::text(&mine, "pk"), "OWNER#alice");
        assert_eq!(
            db::text(&mine, "sk"),
            "IXP#00000000000000000007#00000000000000000003"
        );
    }
}
