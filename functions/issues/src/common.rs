//! What several issue handlers share: the issue in the path with the
//! caller's permission, and the checks of assignees, labels, milestones
//! and deadlines a writer may set.

use serde::{Deserialize, Deserializer};
use shared::{
    Error, Result,
    accounts::{blocks, users},
    auth::{Caller, Principal, Via},
    http::Ctx,
    issues::{self, IssueRecord, fields},
    labels, milestones,
    repos::access::{self, RepoContext, Unit},
    time,
};

/// Distinguishes an absent field (`None`) from an explicit `null`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// The issue named by `{index}` in a repository the caller may see; 404
/// when it does not exist or the caller cannot read its kind.
pub async fn issue_in_path(cx: &Ctx) -> Result<(RepoContext, IssueRecord)> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let index: i64 = cx.param("index").parse().map_err(|_| {
        Error::NotFound(format!(
            "issue number must be a number, got {:?}",
            cx.param("index")
        ))
    })?;
    let issue = issues::find(&cx.db, ctx.repo.id, index).await?;
    if !ctx.perm.can_read(Unit::for_pull(issue.is_pull)) {
        return Err(Error::not_found());
    }
    Ok((ctx, issue))
}

/// Lower-case login of the signed-in caller.
pub fn me(cx: &Ctx) -> Result<String> {
    Ok(cx.signed_in()?.user.name.to_lowercase())
}

/// A deadline as sent (end of its day), `None` for zero time / epoch.
pub fn deadline(cx: &Ctx, field: &str, raw: &str) -> Result<i64> {
    Ok(time::end_of_day(raw, cx.config.display_tz)
        .map_err(|e| Error::field(field, e))?
        .unwrap_or(0))
}

/// Checks assignees (or reviewers; callers bound how many): each must exist
/// (422), may be assigned (read access to the kind, else 422) and must not
/// have blocked the poster (403).
pub async fn assignees(
    cx: &Ctx,
    ctx: &RepoContext,
    logins: Vec<String>,
    poster: &str,
    unit: Unit,
) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for login in logins
        .into_iter()
        .map(|l| l.trim().to_lowercase())
        .filter(|l| !l.is_empty())
    {
        if out.contains(&login) {
            continue;
        }
        let user = match users::get(&cx.db, &login).await? {
            Some(u) if !u.is_org() => u,
            _ => {
                return Err(Error::Unprocessable(format!(
                    "Assignee does not exist: [name: {login}]"
                )));
            }
        };
        let as_them = Caller::User(Box::new(Principal {
            user: user.clone(),
            via: Via::Password,
        }));
        let theirs = access::load(&cx.db, &as_them, &ctx.owner.name, &ctx.repo.name).await;
        if !theirs.is_ok_and(|t| t.perm.can_read(unit)) {
            return Err(Error::Unprocessable(format!(
                "user doesn't have access to repo [user_id: {}, repo_name: {}]",
                user.id, ctx.repo.name
            )));
        }
        if login != poster && blocks::is_blocked(&cx.db, &login, poster).await? {
            return Err(Error::Forbidden("user is blocked".into()));
        }
        out.push(login);
    }
    Ok(out)
}

/// A milestone id of this repository (0 for none); unknown → 422.
pub async fn milestone(cx: &Ctx, ctx: &RepoContext, id: i64) -> Result<i64> {
    if id == 0 {
        return Ok(0);
    }
    match milestones::get(&cx.db, ctx.repo.id, id).await? {
        Some(m) => Ok(m.id),
        None => Err(Error::Unprocessable(format!(
            "milestone does not exist [id: {id}]"
        ))),
    }
}

/// A label given by id or by name: the repository's labels, then its
/// organisation's.
#[derive(Deserialize, Clone, Debug)]
#[serde(untagged)]
pub enum LabelRef {
    Id(i64),
    Name(String),
}

/// Resolves labels; an unknown one → 422 naming it.
pub async fn labels(cx: &Ctx, ctx: &RepoContext, wanted: &[LabelRef]) -> Result<Vec<i64>> {
    fields::at_most("labels", wanted.len(), fields::MAX_LABELS)?;
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let known = labels::usable_in(&cx.db, &ctx.repo, ctx.owner.is_org()).await?;
    let mut out = Vec::new();
    for w in wanted {
        let found = match w {
            LabelRef::Id(id) => known.iter().find(|l| l.id == *id),
            LabelRef::Name(n) => known.iter().find(|l| &l.name == n),
        };
        match found {
            Some(l) if !out.contains(&l.id) => out.push(l.id),
            Some(_) => {}
            None => {
                let what = match w {
                    LabelRef::Id(id) => format!("id: {id}"),
                    LabelRef::Name(n) => format!("name: {n}"),
                };
                return Err(Error::Unprocessable(format!(
                    "label does not exist [{what}]"
                )));
            }
        }
    }
    Ok(out)
}

/// 423 when the repository is archived.
pub fn not_archived(ctx: &RepoContext) -> Result<()> {
    if ctx.repo.archived {
        return Err(Error::Locked(format!(
            "{} is archived",
            ctx.repo.full_name()
        )));
    }
    Ok(())
}
