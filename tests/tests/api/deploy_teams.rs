//! Coolify's teams: the deploy team a token names, as Coolify shows it,
//! under `/teams`, `/team` and `/teams/{id}` (which Gitea's team routes
//! share: a Coolify client's token gets Coolify's answer, any other
//! Gitea's).

use api_tests::{Api, Auth, TestUser, deploy::Team, unique};
use serde_json::{Value, json};

/// A token of `user` acting for `team` with `scopes`.
async fn team_token(api: &Api, user: &TestUser, team: &str, scopes: &[&str]) -> String {
    let body = json!({"name": unique("t"), "scopes": scopes, "team": team});
    let path = format!("/api/v1/users/{}/tokens", user.name);
    let r = api
        .call(
            "POST",
            &path,
            Auth::Basic(&user.name, &user.password),
            Some(body),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body["sha1"].as_str().unwrap().to_string()
}

async fn get(api: &Api, token: &str, path: &str) -> api_tests::Reply {
    api.call("GET", &format!("/api/v1{path}"), Auth::Bearer(token), None)
        .await
}

#[tokio::test]
async fn a_users_own_team_and_its_member() {
    let t = Team::new().await;
    let me = get(&t.api, &t.token, "/user").await;
    let user_id = me.body["id"].as_i64();
    let team = get(&t.api, &t.token, "/team").await;
    assert_eq!(team.status, 200, "{:?}", team.body);
    let id = team.body["id"].as_i64().expect("a numeric id");
    assert_eq!(team.body["name"], json!(t.user.name));
    assert_eq!(team.body["personal_team"], true);
    assert!(team.body["created_at"].is_string(), "{:?}", team.body);
    for path in ["/teams/current".to_string(), format!("/teams/{id}")] {
        let r = get(&t.api, &t.token, &path).await;
        assert_eq!((r.status, &r.body), (200, &team.body), "{path}");
    }
    let r = get(&t.api, &t.token, "/teams").await;
    assert_eq!((r.status, r.body), (200, json!([team.body])));
    let members = get(&t.api, &t.token, "/team/members").await;
    assert_eq!(members.status, 200, "{:?}", members.body);
    let list = members.body.as_array().unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0]["name"], json!(t.user.name));
    assert!(list[0]["email"].as_str().is_some_and(|e| e.contains('@')));
    assert!(list[0].get("password").is_none() && list[0].get("password_hash").is_none());
    if let Some(uid) = user_id {
        assert_eq!(list[0]["id"], json!(uid));
    }
    for path in [
        "/teams/current/members".to_string(),
        format!("/teams/{id}/members"),
    ] {
        let r = get(&t.api, &t.token, &path).await;
        assert_eq!((r.status, &r.body), (200, &members.body), "{path}");
    }
    // Another id is not the token's team.
    for path in [
        format!("/teams/{}", id + 100_000),
        format!("/teams/{}/members", id + 1),
        "/teams/nope".into(),
    ] {
        let r = get(&t.api, &t.token, &path).await;
        assert_eq!(r.status, 404, "{path}: {:?}", r.body);
        assert_eq!(r.message(), "Team not found.", "{path}");
    }
}

#[tokio::test]
async fn an_organisations_team_lists_its_members() {
    let t = Team::new().await;
    let api = &t.api;
    let member = api.new_user("tmem").await;
    let org = api.new_org(&t.user, "dteam", "private").await;
    let teams = get(api, &t.user.token, &format!("/orgs/{org}/teams")).await;
    let owners = teams.body[0]["id"].as_i64().unwrap();
    let add = format!("/api/v1/teams/{owners}/members/{}", member.name);
    let r = api
        .call("PUT", &add, Auth::Token(&t.user.token), None)
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    let token = team_token(api, &member, &org, &["read"]).await;
    let team = get(api, &token, "/team").await;
    assert_eq!(team.status, 200, "{:?}", team.body);
    assert_eq!(team.body["name"], json!(org));
    assert_eq!(team.body["personal_team"], false);
    let org_id = get(api, &t.user.token, &format!("/orgs/{org}")).await.body["id"].clone();
    assert_eq!(team.body["id"], org_id, "the organisation's id");
    let members = get(api, &token, "/team/members").await;
    let mut names: Vec<String> = members
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    let mut want = vec![t.user.name.clone(), member.name.clone()];
    want.sort();
    assert_eq!(names, want);
    // Gitea's answers are unchanged for Gitea tokens: the team by id, and
    // its members, paged.
    let r = get(api, &t.user.token, &format!("/teams/{owners}")).await;
    assert_eq!((r.status, r.body["name"].clone()), (200, json!("Owners")));
    let r = get(
        api,
        &t.user.token,
        &format!("/teams/{owners}/members?limit=1"),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.total(), Some(2));
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    let logins: Vec<Value> = get(api, &t.user.token, &format!("/teams/{owners}/members"))
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["login"].clone())
        .collect();
    assert_eq!(logins.len(), 2);
    assert!(logins.contains(&json!(member.name)));
    // A Gitea token outside the organisation sees no such team.
    let stranger = api.new_user("tstr").await;
    let r = get(api, &stranger.token, &format!("/teams/{owners}/members")).await;
    assert_eq!(r.status, 404, "{:?}", r.body);
}

#[tokio::test]
async fn team_routes_need_read() {
    let t = Team::new().await;
    let deploy_only = t.token_with(&["deploy"]).await;
    for path in [
        "/teams",
        "/team",
        "/team/members",
        "/teams/current",
        "/teams/current/members",
    ] {
        let r = get(&t.api, &deploy_only, path).await;
        assert_eq!(r.status, 403, "{path}: {:?}", r.body);
        let r = t
            .api
            .call("GET", &format!("/api/v1{path}"), Auth::None, None)
            .await;
        assert_eq!(r.status, 401, "{path}: {:?}", r.body);
    }
}
