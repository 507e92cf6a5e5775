//! Repository create, read, edit and delete (rules in `shared::repos`).

use lambda_http::http::StatusCode;
use serde_json::json;
use shared::{
    Result,
    accounts::users::UserRecord,
    http::{Ctx, Response, extract, paging},
    repos::{
        self, Namespace, NewRepo, RepoRecord, RepoStats,
        access::{Permission, RepoContext},
        options::{CreateRepoOption, EditRepoOption},
        topics::{self, RepoTopicOptions},
        views::Repository,
    },
};

fn render(
    cx: &Ctx,
    status: StatusCode,
    repo: &RepoRecord,
    owner: &UserRecord,
    stats: &RepoStats,
    perm: &Permission,
) -> Result<Response> {
    let body = Repository::new(repo, owner, stats, perm, &cx.caller, &cx.config);
    cx.reply(status, &body)
}

async fn create_in(cx: &Ctx, ns: Namespace<'_>) -> Result<Response> {
    let owner = repos::creatable_owner(&cx.db, &cx.caller, ns).await?;
    let new: NewRepo = cx.json::<CreateRepoOption>()?.try_into()?;
    let repo = repos::create(&cx.db, &owner, new).await?;
    let (stats, perm) = (RepoStats::default(), Permission::full());
    render(cx, StatusCode::CREATED, &repo, &owner, &stats, &perm)
}

/// `POST /user/repos`.
pub async fn create_for_me(cx: &Ctx) -> Result<Response> {
    create_in(cx, Namespace::Mine).await
}

/// `POST /orgs/{org}/repos`.
pub async fn create_for_org(cx: &Ctx) -> Result<Response> {
    create_in(cx, Namespace::Org(cx.param("org"))).await
}

/// `POST /admin/users/{username}/repos`.
pub async fn create_for_user(cx: &Ctx) -> Result<Response> {
    create_in(cx, Namespace::User(cx.param("username"))).await
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let RepoContext { owner, repo, perm } = extract::repo_access(cx).await?;
    let stats = repos::stats(&cx.db, repo.id).await?;
    render(cx, StatusCode::OK, &repo, &owner, &stats, &perm)
}

/// `PATCH /repos/{owner}/{repo}`: repository admins only.
pub async fn edit(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    let edit = cx.json::<EditRepoOption>()?.into();
    let (repo, stats) = repos::edit(&cx.db, &access, edit).await?;
    render(
        cx,
        StatusCode::OK,
        &repo,
        &access.owner,
        &stats,
        &access.perm,
    )
}

/// `DELETE /repos/{owner}/{repo}`: the owner (org owners, site admins).
pub async fn delete(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_access(cx).await?.owner(&cx.caller)?;
    repos::delete(&cx.db, &access.repo).await?;
    cx.no_content()
}

/// `GET /topics`: Gitea's `{"topics": [...]}` by name, paged (at most 25).
pub async fn topics(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_access(cx).await?;
    let all: Vec<&String> = access.repo.topics.iter().collect();
    let mut res = cx.reply(StatusCode::OK, &json!({"topics": cx.page().slice(&all)}))?;
    paging::set_headers(&mut res, None, all.len() as u64);
    Ok(res)
}

/// `PUT /topics`: repository admins replace every topic.
pub async fn set_topics(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    let new = topics::parse_all(&cx.json::<RepoTopicOptions>()?.topics)?;
    topics::replace(&cx.db, &access.repo, new).await?;
    cx.no_content()
}

/// `PUT /topics/{topic}`: repository admins add one.
pub async fn add_topic(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    topics::add(&cx.db, &access.repo, topics::parse_one(cx.param("topic"))?).await?;
    cx.no_content()
}

/// `DELETE /topics/{topic}`: repository admins remove one (404 if absent).
pub async fn delete_topic(cx: &Ctx) -> Result<Response> {
    let access = extract::repo_admin(cx).await?;
    topics::remove(&cx.db, &access.repo, topics::parse_one(cx.param("topic"))?).await?;
    cx.no_content()
}
