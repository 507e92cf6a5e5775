//! Repositories function: repositories, collaborators, team grants and
//! labels, in Gitea's wire format. Permission checks go through
//! `shared::repos::access`, computed once per request.

mod collaborators;
mod labels;
mod repos;

use shared::{
    auth::scope::Category::{Admin, Issue, Organization, Repository},
    http::Guard::Scope,
};

shared::routes! {
    dialect: Tracker;
    POST "/api/v1/user/repos" Scope(Repository) => repos::create_for_me;
    POST "/api/v1/orgs/{org}/repos" Scope(Repository) => repos::create_for_org;
    POST "/api/v1/admin/users/{username}/repos" Scope(Admin) => repos::create_for_user;
    GET "/api/v1/repos/{owner}/{repo}" Scope(Repository) => repos::get;
    PATCH "/api/v1/repos/{owner}/{repo}" Scope(Repository) => repos::edit;
    DELETE "/api/v1/repos/{owner}/{repo}" Scope(Repository) => repos::delete;
    PUT "/api/v1/repos/{owner}/{repo}/collaborators/{collaborator}" Scope(Repository) => collaborators::put;
    DELETE "/api/v1/repos/{owner}/{repo}/collaborators/{collaborator}" Scope(Repository) => collaborators::delete;
    PUT "/api/v1/teams/{id}/repos/{org}/{repo}" Scope(Organization) => collaborators::put_team;
    DELETE "/api/v1/teams/{id}/repos/{org}/{repo}" Scope(Organization) => collaborators::delete_team;
    POST "/api/v1/repos/{owner}/{repo}/labels" Scope(Issue) => labels::create;
    GET "/api/v1/repos/{owner}/{repo}/labels" Scope(Issue) => labels::list;
    GET "/api/v1/repos/{owner}/{repo}/labels/{id}" Scope(Issue) => labels::get;
    PATCH "/api/v1/repos/{owner}/{repo}/labels/{id}" Scope(Issue) => labels::edit;
    DELETE "/api/v1/repos/{owner}/{repo}/labels/{id}" Scope(Issue) => labels::delete;
    POST "/api/v1/orgs/{org}/labels" Scope(Organization) => labels::create_for_org;
    GET "/api/v1/orgs/{org}/labels" Scope(Organization) => labels::list_for_org;
}
