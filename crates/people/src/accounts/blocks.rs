//! Blocks: a user or organisation refusing interaction with a user. The
//! tracker consults them (a blocked user cannot open issues in the
//! blocker's repositories or be assigned there).

use super::{
    Error, Result,
    names::fold,
    orgs,
    principal::{self, Caller},
    teams,
    users::UserRecord,
};
use crate::{
    db::{self, Db, keys},
    time,
};

/// Who blocks: the caller, or an organisation the caller owns.
#[derive(Clone, Copy, Debug)]
pub enum Blocker<'a> {
    Me,
    Org(&'a str),
}

/// The blocker and the user to block, once the caller may act: the user
/// must exist and not be the blocker.
async fn parties(
    db: &Db,
    caller: &Caller,
    blocker: Blocker<'_>,
    user: &str,
) -> Result<(UserRecord, UserRecord)> {
    let blocker = match blocker {
        Blocker::Me => principal::signed_in(caller)?.user.clone(),
        Blocker::Org(name) => orgs::owned(db, caller, name).await?,
    };
    let user = principal::find_user(db, user, caller).await?;
    if user.id == blocker.id {
        return Err(Error::BlockSelf);
    }
    Ok((blocker, user))
}

/// `PUT .../blocks/{user}`: an organisation never blocks its own members.
pub async fn block_by(
    db: &Db,
    caller: &Caller,
    blocker: Blocker<'_>,
    user: &str,
    note: &str,
) -> Result<()> {
    let (blocker, user) = parties(db, caller, blocker, user).await?;
    if blocker.is_org() && teams::is_member(db, &blocker.name, &user.name).await? {
        return Err(Error::BlockMember {
            user: user.name,
            org: blocker.name,
        });
    }
    block(db, &blocker.name, &user.name, note).await
}

/// `DELETE .../blocks/{user}`.
pub async fn unblock_by(db: &Db, caller: &Caller, blocker: Blocker<'_>, user: &str) -> Result<()> {
    let (blocker, user) = parties(db, caller, blocker, user).await?;
    unblock(db, &blocker.name, &user.name).await
}

/// `blocker` blocks `blocked`; blocking twice changes nothing.
pub async fn block(db: &Db, blocker: &str, blocked: &str, note: &str) -> Result<()> {
    let mut item = keys::block(blocker, blocked);
    item.insert("blocked".into(), db::s(fold(blocked)));
    if !note.is_empty() {
        item.insert("note".into(), db::s(note));
    }
    item.insert("created".into(), db::n(time::now()));
    db.put_item(item).await?;
    Ok(())
}

/// Lifts a block; 400 when there was none, as Gitea answers.
pub async fn unblock(db: &Db, blocker: &str, blocked: &str) -> Result<()> {
    db.delete_existing(keys::block(blocker, blocked))
        .await
        .map_err(|e| match e {
            db::DbError::ConditionFailed => Error::NotBlocked(blocked.to_string()),
            other => other.into(),
        })
}

pub async fn is_blocked(db: &Db, blocker: &str, blocked: &str) -> Result<bool> {
    Ok(db.get(keys::block(blocker, blocked)).await?.is_some())
}
