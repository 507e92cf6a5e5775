//! Repositories across owners (`GET /user/repos`, `GET /repos/search`)
//! and a repository's assignees; the rules are in `shared::repos::lists`
//! and `shared::repos::collaborators`.

use lambda_http::http::StatusCode;
use serde::Serialize;
use serde_json::json;
use shared::{
    Result,
    accounts::views::User,
    http::{Ctx, Response, extract, paging},
    repos::{
        collaborators,
        lists::{self, Filter, Listed},
        scope::Viewer,
        views::Repository,
    },
};

fn render(cx: &Ctx, listed: &Listed) -> Vec<Repository> {
    let each = |(r, p, o, s): &(_, _, _, _)| Repository::new(r, o, s, p, &cx.caller, &cx.config);
    listed.shown.iter().map(each).collect()
}

fn paged(cx: &Ctx, body: &impl Serialize, total: u64) -> Result<Response> {
    let mut res = cx.reply(StatusCode::OK, body)?;
    let link = paging::link_header(&cx.config, &cx.path, &cx.query, total, cx.page());
    paging::set_headers(&mut res, link, total);
    Ok(res)
}

/// `GET /user/repos`: the caller's own, collaborations, teams' and their
/// organisations' public repositories, by name.
pub async fn mine(cx: &Ctx) -> Result<Response> {
    let me = &cx.signed_in()?.user.name;
    let viewer = Viewer::load_given(&cx.db, &cx.caller).await?;
    let public_only = cx.caller.public_only();
    let filter = Filter {
        public_only,
        ascending: true,
        ..Filter::default()
    };
    let sources = lists::my_sources(&viewer, me);
    let listed = lists::list(&cx.db, &viewer, sources, &filter, cx.page()).await?;
    paged(cx, &render(cx, &listed), listed.total)
}

/// `GET /repos/search`: Gitea's `{"ok": true, "data": [...]}`.
pub async fn search(cx: &Ctx) -> Result<Response> {
    let (signed_in, public_only) = (cx.caller.principal().is_some(), cx.caller.public_only());
    let (filter, uid) = lists::search_params(cx.query.pairs(), signed_in, public_only)?;
    let viewer = Viewer::load(&cx.db, &cx.caller).await?;
    let sources = match uid {
        Some(uid) => lists::owner_source(&cx.db, &viewer, uid)
            .await?
            .into_iter()
            .collect(),
        None => lists::search_sources(&viewer, &filter),
    };
    let listed = lists::list(&cx.db, &viewer, sources, &filter, cx.page()).await?;
    paged(
        cx,
        &json!({"ok": true, "data": render(cx, &listed)}),
        listed.total,
    )
}

/// `GET /repos/{owner}/{repo}/assignees`: who may be assigned, by name.
pub async fn assignees(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_access(cx).await?;
    let users = collaborators::assignable(&cx.db, &access).await?;
    let body: Vec<User> = users
        .iter()
        .map(|u| User::new(u, &cx.caller, &cx.config))
        .collect();
    cx.reply(StatusCode::OK, &body)
}
