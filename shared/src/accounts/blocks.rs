//! Blocks: a user or organisation refusing interaction with a user. The
//! tracker consults them (a blocked user cannot open issues in the
//! blocker's repositories or be assigned there).

use super::names::fold;
use crate::{
    Error, Result,
    db::{self, Db, keys},
    time,
};

/// `blocker` blocks `blocked`; blocking twice changes nothing.
pub async fn block(db: &Db, blocker: &str, blocked: &str, note: &str) -> Result<()> {
    let mut item = keys::block(blocker, blocked);
    item.insert("blocked".into(), db::s(fold(blocked)));
    if !note.is_empty() {
        item.insert("note".into(), db::s(note));
    }
    item.insert("created".into(), db::n(time::now()));
    db.put(|p| p.set_item(Some(item))).await?;
    Ok(())
}

/// Lifts a block; 400 when there was none, as Gitea answers.
pub async fn unblock(db: &Db, blocker: &str, blocked: &str) -> Result<()> {
    db.delete(|d| {
        d.set_key(Some(keys::block(blocker, blocked)))
            .condition_expression("attribute_exists(pk)")
    })
    .await
    .map_err(|e| match e {
        db::DbError::ConditionFailed => Error::BadRequest(format!("{blocked} is not blocked")),
        other => other.into(),
    })
}

pub async fn is_blocked(db: &Db, blocker: &str, blocked: &str) -> Result<bool> {
    Ok(db.get(keys::block(blocker, blocked)).await?.is_some())
}
