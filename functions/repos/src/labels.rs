//! Repository labels (`/repos/{owner}/{repo}/labels`) and organisation
//! labels (`/orgs/{org}/labels`): HTTP in and out; the rules are in
//! `shared::labels`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    labels::{
        self, Label, LabelEdit, LabelRecord, NewLabel, Scope,
        views::{CreateLabelOption, EditLabelOption},
    },
    repos::access::RepoContext,
};

fn repo_scope(access: &RepoContext) -> Scope {
    Scope::Repo {
        id: access.repo.id,
        full_name: access.repo.full_name(),
    }
}

fn paged(cx: &Ctx, all: &[LabelRecord]) -> Result<Response> {
    let page = cx.page();
    let body: Vec<Label> = page
        .slice(all)
        .iter()
        .map(|l| Label::new(l, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

async fn create_in(cx: &Ctx, scope: Scope) -> Result<Response> {
    let new = NewLabel::try_from(cx.json::<CreateLabelOption>()?)?;
    let label = labels::create(&cx.db, scope, new).await?;
    cx.reply(StatusCode::CREATED, &Label::new(&label, &cx.config))
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    create_in(cx, repo_scope(&access)).await
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    paged(cx, &labels::list_page(&cx.db, &repo_scope(&access)).await?)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let label = labels::find(&cx.db, &repo_scope(&access), cx.id_param("id")?).await?;
    cx.reply(StatusCode::OK, &Label::new(&label, &cx.config))
}

pub async fn edit(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    let label = labels::find(&cx.db, &repo_scope(&access), cx.id_param("id")?).await?;
    let edit = LabelEdit::try_from(cx.json::<EditLabelOption>()?)?;
    let label = labels::edit(&cx.db, label, edit).await?;
    cx.reply(StatusCode::OK, &Label::new(&label, &cx.config))
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    labels::delete(&cx.db, &repo_scope(&access), cx.id_param("id")?).await?;
    cx.no_content()
}

pub async fn create_for_org(cx: &Ctx) -> Result<Response> {
    let org = shared::http::extract::visible_org(cx, cx.param("org")).await?;
    shared::http::extract::require_org_owner(cx, &org).await?;
    create_in(cx, Scope::Org { name: org.name }).await
}

pub async fn list_for_org(cx: &Ctx) -> Result<Response> {
    let org = shared::http::extract::visible_org(cx, cx.param("org")).await?;
    paged(
        cx,
        &labels::list_page(&cx.db, &Scope::Org { name: org.name }).await?,
    )
}
