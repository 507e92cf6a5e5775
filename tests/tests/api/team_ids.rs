//! Team ids tell nothing to whoever may not see the team: anonymous
//! callers get 401 before anything is read (Gitea's `reqToken()`), and a
//! signed-in stranger gets, for a team of an organisation they are not in,
//! exactly what a missing id gets, in status, message and headers.

use std::collections::BTreeSet;

use api_tests::{Api, Auth, Reply, TestUser, unique};
use serde_json::json;

async fn new_team(api: &Api, owner: &TestUser, org: &str) -> i64 {
    let r = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            Auth::Token(&owner.token),
            Some(json!({"name": unique("t"), "permission": "read"})),
        )
        .await;
    assert_eq!(r.status, 201, "team of {org}: {:?}", r.body);
    r.body["id"].as_i64().expect("team id")
}

/// The routes that take a team id, for team `id`.
fn routes(id: i64, orgs: [&str; 2], repo: &str, user: &str) -> Vec<(&'static str, String)> {
    vec![
        ("GET", format!("/api/v1/teams/{id}")),
        ("PUT", format!("/api/v1/teams/{id}/members/{user}")),
        ("DELETE", format!("/api/v1/teams/{id}/members/{user}")),
        (
            "PUT",
            format!("/api/v1/teams/{id}/repos/{}/{repo}", orgs[0]),
        ),
        (
            "DELETE",
            format!("/api/v1/teams/{id}/repos/{}/{repo}", orgs[0]),
        ),
        (
            "PUT",
            format!("/api/v1/teams/{id}/repos/{}/{repo}", orgs[1]),
        ),
    ]
}

/// The headers of an answer, less those that differ on every request.
fn header_names(r: &Reply) -> BTreeSet<String> {
    r.headers
        .keys()
        .map(|k| k.as_str().to_string())
        .filter(|k| !matches!(k.as_str(), "x-request-id" | "date"))
        .collect()
}

#[tokio::test]
async fn team_ids_tell_strangers_nothing() {
    let api = Api::from_env();
    let owner = api.new_user("tmown").await;
    let member = api.new_user("tmmem").await;
    let stranger = api.new_user("tmstr").await;
    let private = api.new_org(&owner, "tmpriv", "private").await;
    let public = api.new_org(&owner, "tmpub", "public").await;
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{private}/repos"), true)
        .await;
    let hidden = new_team(&api, &owner, &private).await;
    let open = new_team(&api, &owner, &public).await;
    let r = api
        .call(
            "PUT",
            &format!("/api/v1/teams/{hidden}/members/{}", member.name),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);
    let missing = hidden.max(open) + 1_000_000;
    let orgs = [private.as_str(), public.as_str()];

    // Anonymous: 401 before any lookup, whatever the id.
    for id in [hidden, open, missing] {
        for (method, path) in routes(id, orgs, &repo, &stranger.name) {
            let r = api.call(method, &path, Auth::None, None).await;
            assert_eq!(
                (r.status, r.message()),
                (401, "token is required"),
                "{method} {path}: {:?}",
                r.body
            );
        }
    }
    let r = api
        .call(
            "GET",
            &format!("/api/v1/orgs/{private}/teams"),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(r.status, 401, "{:?}", r.body);

    // A signed-in stranger: a team of an organisation they are not in,
    // private or public, is a missing team, named by the id they sent.
    let mut seen = Vec::new();
    for id in [hidden, open, missing] {
        for (method, path) in routes(id, orgs, &repo, &stranger.name) {
            let r = api
                .call(method, &path, Auth::Token(&stranger.token), None)
                .await;
            assert_eq!(
                (r.status, r.message()),
                (404, format!("team does not exist [id: {id}]").as_str()),
                "{method} {path}: {:?}",
                r.body
            );
            seen.push((
                method,
                id,
                header_names(&r),
                r.body.as_object().map(|o| o.len()),
            ));
        }
    }
    let shapes: BTreeSet<_> = seen
        .iter()
        .map(|(method, _, headers, fields)| (*method, headers.clone(), *fields))
        .collect();
    let methods: BTreeSet<_> = seen.iter().map(|(m, ..)| *m).collect();
    assert_eq!(
        shapes.len(),
        methods.len(),
        "hidden and missing teams answer alike: {shapes:#?}"
    );

    // A member sees the team; only the organisation's owners change it.
    let r = api
        .call(
            "GET",
            &format!("/api/v1/teams/{hidden}"),
            Auth::Token(&member.token),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["organization"]["name"], json!(private));
    for (method, path) in routes(hidden, orgs, &repo, &stranger.name)
        .into_iter()
        .skip(1)
        .take(4)
    {
        let r = api
            .call(method, &path, Auth::Token(&member.token), None)
            .await;
        assert_eq!(r.status, 403, "{method} {path} as a member: {:?}", r.body);
    }
    // The owner still manages it.
    let r = api
        .call(
            "PUT",
            &format!("/api/v1/teams/{hidden}/repos/{private}/{repo}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{:?}", r.body);
}
