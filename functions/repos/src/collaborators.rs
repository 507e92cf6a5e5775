//! Collaborators (`/repos/{owner}/{repo}/collaborators/{collaborator}`) and
//! team grants (`/teams/{id}/repos/{org}/{repo}`).

use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        blocks,
        names::same,
        teams::{self, AccessMode},
        users,
    },
    http::{Ctx, Response},
    repos::{self, access, collaborators},
};

#[derive(Deserialize, Default)]
struct AddCollaboratorOption {
    #[serde(default)]
    permission: Option<String>,
}

async fn admin_repo(cx: &Ctx) -> Result<access::RepoContext> {
    // The repository first (404), then the token (401), as Gitea orders them.
    let ctx = access::from_path(cx).await?;
    cx.signed_in()?;
    if !ctx.perm.is_admin() {
        return Err(Error::Forbidden(
            "user should be an owner or a collaborator with admin write of a repository".into(),
        ));
    }
    Ok(ctx)
}

/// The collaborator named in the path: an existing user (422 otherwise, as
/// Gitea answers).
async fn collaborator(cx: &Ctx) -> Result<users::UserRecord> {
    let name = cx.param("collaborator");
    match users::get(&cx.db, name).await? {
        Some(u) if !u.is_org() => Ok(u),
        _ => Err(Error::Unprocessable(format!(
            "user does not exist [name: {name}]"
        ))),
    }
}

pub async fn put(cx: &Ctx) -> Result<Response> {
    let ctx = admin_repo(cx).await?;
    let body: AddCollaboratorOption = if cx.body.iter().all(u8::is_ascii_whitespace) {
        Default::default()
    } else {
        cx.json()?
    };
    let mode = AccessMode::parse(
        "permission",
        Some(body.permission.as_deref().unwrap_or("write")),
    )?;
    let user = collaborator(cx).await?;
    if user.id == ctx.owner.id {
        return Err(Error::Unprocessable(
            "the owner of a repository cannot be its collaborator".into(),
        ));
    }
    if blocks::is_blocked(&cx.db, &ctx.owner.name, &user.name).await? {
        return Err(Error::Forbidden(format!(
            "{} is blocked by the repository owner",
            user.name
        )));
    }
    collaborators::put_collaborator(&cx.db, &ctx.repo, &user.name, mode).await?;
    cx.no_content()
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let ctx = admin_repo(cx).await?;
    let user = collaborator(cx).await?;
    collaborators::delete_collaborator(&cx.db, &ctx.repo, &user.name).await?;
    cx.no_content()
}

/// The team and organisation repository of `/teams/{id}/repos/{org}/{repo}`,
/// once the caller owns the organisation.
async fn team_and_repo(cx: &Ctx) -> Result<(teams::TeamRecord, repos::RepoRecord)> {
    let me = cx.signed_in()?;
    let id = cx.id_param("id")?;
    let team = teams::get(&cx.db, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("team does not exist [id: {id}]")))?;
    let org = cx.param("org");
    if !same(&team.org, org) {
        return Err(Error::NotFound(format!(
            "team {id} does not belong to {org}"
        )));
    }
    if !me.is_site_admin() && !teams::is_owner(&cx.db, org, &me.user.name).await? {
        return Err(Error::Forbidden("Must be an organization owner".into()));
    }
    let name = cx.param("repo");
    let repo = repos::get(&cx.db, org, name).await?.ok_or_else(|| {
        Error::NotFound(format!(
            "repository does not exist [owner: {org}, name: {name}]"
        ))
    })?;
    Ok((team, repo))
}

pub async fn put_team(cx: &Ctx) -> Result<Response> {
    let (team, repo) = team_and_repo(cx).await?;
    collaborators::put_team(&cx.db, &repo, &team).await?;
    cx.no_content()
}

pub async fn delete_team(cx: &Ctx) -> Result<Response> {
    let (team, repo) = team_and_repo(cx).await?;
    collaborators::delete_team(&cx.db, &repo, &team).await?;
    cx.no_content()
}
