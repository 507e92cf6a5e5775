//! List, read, create, edit and delete milestones: HTTP in and out; the
//! rules are in `shared::milestones`.

use lambda_http::http::StatusCode;
use shared::{
    Result,
    http::{Ctx, Response, paging},
    issues,
    milestones::{
        self, ListFilter, Milestone,
        views::{CreateMilestoneOption, EditMilestoneOption},
    },
};

pub async fn list(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let filter = ListFilter::parse(cx.query.get("state"), cx.query.get("name"));
    let all = milestones::list(&cx.db, access.repo.id, &filter).await?;
    let page = cx.page();
    let body: Vec<Milestone> = milestones::with_descriptions(&cx.db, page.slice(&all))
        .await?
        .iter()
        .map(|m| Milestone::new(m, &cx.config))
        .collect();
    let mut res = cx.reply(StatusCode::OK, &body)?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_access(cx).await?;
    let m = milestones::find(&cx.db, access.repo.id, cx.param("id")).await?;
    cx.reply(StatusCode::OK, &Milestone::new(&m, &cx.config))
}

pub async fn create(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    let new = cx
        .json::<CreateMilestoneOption>()?
        .parse(cx.config.display_tz)?;
    let m = milestones::create(&cx.db, access.repo.id, new).await?;
    cx.reply(StatusCode::CREATED, &Milestone::new(&m, &cx.config))
}

pub async fn edit(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    let body = cx.json::<EditMilestoneOption>()?;
    let tz = cx.config.display_tz;
    let m = milestones::edit(&cx.db, access.repo.id, cx.param("id"), body, tz).await?;
    cx.reply(StatusCode::OK, &Milestone::new(&m, &cx.config))
}

pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = shared::http::extract::repo_writable(cx).await?;
    issues::delete_milestone(&cx.db, access.repo.id, cx.param("id")).await?;
    cx.no_content()
}
