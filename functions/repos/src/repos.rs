//! Repository create, read, edit and delete.

use lambda_http::http::StatusCode;
use serde::Deserialize;
use shared::{
    Error, Result,
    accounts::{
        names::bounded,
        orgs,
        teams::{self, AccessMode},
        users::{self, UserRecord},
    },
    http::{Ctx, Response},
    repos::{
        self, NewRepo, RepoRecord,
        access::{self, Permission},
        views::Repository,
    },
    time,
};

/// Gitea's `CreateRepoOption`; git-only fields (auto_init, gitignores,
/// license, readme, template, trust_model) are accepted and ignored.
#[derive(Deserialize)]
struct CreateRepoOption {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    private: Option<bool>,
    #[serde(default)]
    default_branch: Option<String>,
}

impl CreateRepoOption {
    fn parse(self) -> Result<NewRepo> {
        Ok(NewRepo {
            name: repos::parse_name(&self.name)?,
            description: bounded("description", self.description, 2048)?,
            private: self.private.unwrap_or(false),
            default_branch: self
                .default_branch
                .filter(|b| !b.trim().is_empty())
                .unwrap_or_else(|| "main".into()),
        })
    }
}

async fn create_under(cx: &Ctx, owner: &UserRecord) -> Result<Response> {
    let new = cx.json::<CreateRepoOption>()?.parse()?;
    let repo = repos::create(&cx.db, owner, new).await?;
    let perm = Permission {
        mode: AccessMode::Owner,
        issues: AccessMode::Owner,
        pulls: AccessMode::Owner,
        blocked: false,
    };
    let body = Repository::new(
        &repo,
        owner,
        &Default::default(),
        &perm,
        &cx.caller,
        &cx.config,
    );
    cx.reply(StatusCode::CREATED, &body)
}

/// `POST /user/repos`: a repository of the caller.
pub async fn create_for_me(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?.user.clone();
    create_under(cx, &me).await
}

/// `POST /orgs/{org}/repos`: owners, members of a team allowed to create
/// repositories, and site admins.
pub async fn create_for_org(cx: &Ctx) -> Result<Response> {
    let me = cx.signed_in()?;
    let name = cx.param("org");
    let org = orgs::visible_org(cx, name).await?;
    if !me.is_site_admin() {
        let teams = teams::memberships(&cx.db, &org.name, &me.user.name).await?;
        if !teams
            .iter()
            .any(|m| m.permission == AccessMode::Owner || m.can_create_org_repo)
        {
            return Err(Error::Forbidden(
                "Given user is not allowed to create repository in organization.".into(),
            ));
        }
    }
    create_under(cx, &org).await
}

/// `POST /admin/users/{username}/repos`: a site admin creates for a user.
pub async fn create_for_user(cx: &Ctx) -> Result<Response> {
    if !cx.signed_in()?.is_site_admin() {
        return Err(Error::Forbidden("user should be the site admin".into()));
    }
    let name = cx.param("username");
    let owner = users::get(&cx.db, name)
        .await?
        .ok_or_else(|| Error::NotFound(format!("user does not exist [name: {name}]")))?;
    create_under(cx, &owner).await
}

pub async fn get(cx: &Ctx) -> Result<Response> {
    let ctx = access::from_path(cx).await?;
    let stats = repos::stats(&cx.db, ctx.repo.id).await?;
    cx.reply(
        StatusCode::OK,
        &Repository::new(
            &ctx.repo, &ctx.owner, &stats, &ctx.perm, &cx.caller, &cx.config,
        ),
    )
}

#[derive(Deserialize)]
struct InternalTrackerOption {
    #[serde(default)]
    enable_issue_dependencies: Option<bool>,
}

/// The parts of Gitea's `EditRepoOption` this service keeps.
#[derive(Deserialize)]
struct EditRepoOption {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    website: Option<String>,
    #[serde(default)]
    private: Option<bool>,
    #[serde(default)]
    archived: Option<bool>,
    #[serde(default)]
    has_issues: Option<bool>,
    #[serde(default)]
    has_pull_requests: Option<bool>,
    #[serde(default)]
    default_branch: Option<String>,
    #[serde(default)]
    internal_tracker: Option<InternalTrackerOption>,
}

impl EditRepoOption {
    fn apply(self, repo: &mut RepoRecord) -> Result<()> {
        if let Some(n) = self.name {
            repo.name = repos::parse_name(&n)?;
        }
        if let Some(d) = self.description {
            repo.description = bounded("description", Some(d), 2048)?;
        }
        if let Some(w) = self.website {
            repo.website = bounded("website", Some(w), 1024)?;
        }
        if let Some(p) = self.private {
            repo.private = p;
        }
        if let Some(a) = self.archived {
            if a && !repo.archived {
                repo.archived_at = time::now();
            }
            repo.archived = a;
        }
        if let Some(h) = self.has_issues {
            repo.has_issues = h;
        }
        if let Some(h) = self.has_pull_requests {
            repo.has_pull_requests = h;
        }
        if let Some(b) = self.default_branch.filter(|b| !b.trim().is_empty()) {
            repo.default_branch = b;
        }
        if let Some(dep) = self
            .internal_tracker
            .and_then(|t| t.enable_issue_dependencies)
        {
            repo.enable_issue_dependencies = dep;
        }
        Ok(())
    }
}

/// `PATCH /repos/{owner}/{repo}`: repository admins only.
pub async fn edit(cx: &Ctx) -> Result<Response> {
    // The repository first (404), then the token (401), as Gitea orders them.
    let ctx = access::from_path(cx).await?;
    cx.signed_in()?;
    if !ctx.perm.is_admin() {
        return Err(Error::Forbidden(
            "user should be an owner or a collaborator with admin write of a repository".into(),
        ));
    }
    let mut repo = ctx.repo.clone();
    cx.json::<EditRepoOption>()?.apply(&mut repo)?;
    repo.updated = time::now();
    repos::save(&cx.db, &ctx.repo.name, &repo).await?;
    let stats = repos::stats(&cx.db, repo.id).await?;
    cx.reply(
        StatusCode::OK,
        &Repository::new(&repo, &ctx.owner, &stats, &ctx.perm, &cx.caller, &cx.config),
    )
}

/// `DELETE /repos/{owner}/{repo}`: the owner (org owners, site admins).
pub async fn delete(cx: &Ctx) -> Result<Response> {
    // The repository first (404), then the token (401), as Gitea orders them.
    let ctx = access::from_path(cx).await?;
    cx.signed_in()?;
    if ctx.perm.mode < AccessMode::Owner {
        return Err(Error::Forbidden(
            "user should be the owner of the repository".into(),
        ));
    }
    repos::delete(&cx.db, &ctx.repo).await?;
    cx.no_content()
}
