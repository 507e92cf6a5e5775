//! Collaborators (`/repos/{owner}/{repo}/collaborators/{collaborator}`) and
//! team grants (`/teams/{id}/repos/{org}/{repo}`); rules in
//! `shared::repos`.

use shared::{
    Result,
    accounts::teams::AccessMode,
    http::{Ctx, Response, extract},
    repos::{self, options::AddCollaboratorOption},
};

pub async fn put(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    let body: AddCollaboratorOption = if cx.body.iter().all(u8::is_ascii_whitespace) {
        Default::default()
    } else {
        cx.json()?
    };
    let mode: AccessMode = body.try_into()?;
    repos::add_collaborator(&cx.db, &access, cx.param("collaborator"), mode).await?;
    cx.no_content()
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    repos::remove_collaborator(&cx.db, &access, cx.param("collaborator")).await?;
    cx.no_content()
}

/// The `{id}`, `{org}` and `{repo}` of `/teams/{id}/repos/{org}/{repo}`.
fn team_path(cx: &Ctx) -> Result<(i64, &str, &str)> {
    Ok((cx.id_param("id")?, cx.param("org"), cx.param("repo")))
}

pub async fn put_team(cx: &Ctx) -> Result<Response> {
    cx.signed_in()?;
    let (id, org, repo) = team_path(cx)?;
    repos::grant_team(&cx.db, &cx.caller, id, org, repo).await?;
    cx.no_content()
}

pub async fn delete_team(cx: &Ctx) -> Result<Response> {
    cx.signed_in()?;
    let (id, org, repo) = team_path(cx)?;
    repos::revoke_team(&cx.db, &cx.caller, id, org, repo).await?;
    cx.no_content()
}
