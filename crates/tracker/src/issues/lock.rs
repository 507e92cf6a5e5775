//! Locking an issue's conversation (`PUT`/`DELETE /issues/{index}/lock`):
//! while locked, only writers of its kind may comment. Both answers are
//! 204 whether or not the state changed, as Gitea's; locking a locked
//! issue keeps its first reason.

use super::{IssueRecord, Result, comments::model, edit};
use crate::{db::Db, repos::access::RepoContext};

/// Locks (with `reason`, possibly empty) or unlocks `issue`; repository
/// admins only (checked by the caller through [`model::may_lock`]).
pub async fn set(
    db: &Db,
    ctx: &RepoContext,
    issue: IssueRecord,
    locked: bool,
    reason: String,
) -> Result<IssueRecord> {
    model::may_lock(&ctx.perm)?;
    edit::update(db, issue, None, |i| {
        if locked && !i.is_locked {
            i.is_locked = true;
            i.lock_reason = reason.clone();
        } else if !locked {
            i.is_locked = false;
            i.lock_reason.clear();
        }
        Ok(())
    })
    .await
}
