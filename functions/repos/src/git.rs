//! Branch and tag heads (`/repos/{owner}/{repo}/git/refs`): CI reports a
//! head, Gitea's clients read it back (rules in `shared::repos::refs`).

use lambda_http::http::StatusCode;
use shared::{
    Error, Result,
    http::{Ctx, Response, extract},
    repos::refs::{self, RefRecord, RefWrite, Reference, SetRefOption},
};

/// `POST /git/refs` (an extension, GitHub's shape): code writers set a
/// ref to a commit; 201 for a new ref, 200 for a moved one.
pub async fn set(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_access(cx).await?.pusher(&cx.caller)?;
    let write = RefWrite::try_from(cx.json::<SetRefOption>()?)?;
    let created = refs::set(&cx.db, access.repo.id, &write.name, &write.sha).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let rec = RefRecord {
        name: write.name,
        sha: write.sha,
        updated: 0,
    };
    cx.reply(
        status,
        &Reference::new(&rec, &access.repo.full_name(), &cx.config),
    )
}

async fn list_matching(cx: &Ctx, filter: Option<String>) -> Result<Response> {
    let access = extract::repo_access(cx).await?;
    let found = refs::list(&cx.db, access.repo.id, filter.as_deref()).await?;
    if found.is_empty() && filter.is_some() {
        return Err(Error::not_found());
    }
    let name = access.repo.full_name();
    let body: Vec<_> = found
        .iter()
        .map(|r| Reference::new(r, &name, &cx.config))
        .collect();
    cx.reply(StatusCode::OK, &body)
}

/// `GET /git/refs`: every ref the repository was told of.
pub async fn list(cx: &Ctx) -> Result<Response> {
    list_matching(cx, None).await
}

/// `GET /git/refs/{ref}` and `/git/refs/{ref}/{name}`: refs whose name
/// starts with `refs/<filter>`, as Gitea matches; 404 when none does.
pub async fn find(cx: &Ctx) -> Result<Response> {
    let filter = match cx.param("name") {
        "" => cx.param("ref").to_string(),
        name => format!("{}/{name}", cx.param("ref")),
    };
    list_matching(cx, Some(filter)).await
}
