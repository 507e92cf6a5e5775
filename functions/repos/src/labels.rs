//! Repository labels (`/repos/{owner}/{repo}/labels`) and organisation
//! labels (`/orgs/{org}/labels`).

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::names::bounded,
    http::{Ctx, Response, paging},
    labels::{self, Label, LabelRecord, NewLabel, Scope},
    repos::access::RepoContext,
};

#[derive(Deserialize)]
struct CreateLabelOption {
    name: String,
    color: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    exclusive: Option<bool>,
    #[serde(default)]
    is_archived: Option<bool>,
}

impl CreateLabelOption {
    fn parse(self) -> Result<NewLabel> {
        Ok(NewLabel {
            name: labels::parse_name(&self.name)?,
            color: labels::parse_color(&self.color)?,
            description: bounded("description", self.description, 200)?,
            exclusive: self.exclusive.unwrap_or(false),
            is_archived: self.is_archived.unwrap_or(false),
        })
    }
}

#[derive(Deserialize)]
struct EditLabelOption {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    exclusive: Option<bool>,
    #[serde(default)]
    is_archived: Option<bool>,
}

fn repo_scope(ctx: &RepoContext) -> Scope {
    Scope::Repo {
        id: ctx.repo.id,
        full_name: ctx.repo.full_name(),
    }
}

async fn label_in_path(cx: &Ctx, scope: &Scope) -> Result<LabelRecord> {
    let id = cx.id_param("id")?;
    labels::get(&cx.db, scope, id)
        .await?
        .ok_or_else(|| Error::NotFound(format!("label does not exist [id: {id}]")))
}

fn paged(cx: &Ctx, all: &[LabelRecord]) -> Result<Response> {
    let page = paging::Page::from_query(&cx.query, &cx.config);
    let body: Vec<Label> = page
        .slice(all)
        .iter()
        .map(|l| Label::new(l, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let label = labels::create(
        &cx.db,
        repo_scope(&ctx),
        cx.json::<CreateLabelOption>()?.parse()?,
    )
    .await?;
    cx.reply(StatusCode::CREATED, &Label::new(&label, &cx.config))
}

pub async fn list(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    paged(cx, &labels::list(&cx.db, &repo_scope(&ctx)).await?)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_access(cx).await?;
    let label = label_in_path(cx, &repo_scope(&ctx)).await?;
    cx.reply(StatusCode::OK, &Label::new(&label, &cx.config))
}

pub async fn edit(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let mut label = label_in_path(cx, &repo_scope(&ctx)).await?;
    let body = cx.json::<EditLabelOption>()?;
    if let Some(n) = body.name {
        label.name = labels::parse_name(&n)?;
    }
    if let Some(c) = body.color {
        label.color = labels::parse_color(&c)?;
    }
    if let Some(d) = body.description {
        label.description = bounded("description", Some(d), 200)?;
    }
    if let Some(e) = body.exclusive {
        label.exclusive = e;
    }
    if let Some(a) = body.is_archived {
        label.is_archived = a;
    }
    labels::save(&cx.db, &label).await?;
    cx.reply(StatusCode::OK, &Label::new(&label, &cx.config))
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let ctx = shared::http::extract::repo_writable(cx).await?;
    let label = label_in_path(cx, &repo_scope(&ctx)).await?;
    labels::delete(&cx.db, &label).await?;
    cx.no_content()
}

pub async fn create_for_org(cx: &Ctx) -> Result<Response> {
    let org = shared::http::extract::visible_org(cx, cx.param("org")).await?;
    shared::http::extract::require_org_owner(cx, &org).await?;
    let scope = Scope::Org {
        name: org.name.clone(),
    };
    let label = labels::create(&cx.db, scope, cx.json::<CreateLabelOption>()?.parse()?).await?;
    cx.reply(StatusCode::CREATED, &Label::new(&label, &cx.config))
}

pub async fn list_for_org(cx: &Ctx) -> Result<Response> {
    let org = shared::http::extract::visible_org(cx, cx.param("org")).await?;
    paged(
        cx,
        &labels::list(
            &cx.db,
            &Scope::Org {
                name: org.name.clone(),
            },
        )
        .await?,
    )
}
