//! Archived repositories: their content is read-only, their administration
//! is not. Every write route under a repository (the rows of
//! `public_only`'s table, which has one for each) runs as the owner against
//! an archived repository: those that change content answer 423 and leave
//! everything as it was; those that administer it (settings,
//! collaborators, team grants, hooks, their redeliveries and tests) are
//! served.

use api_tests::{Api, Auth, unique};
use serde_json::json;
use shared::http::Archived;

use crate::public_only::{Row, World, all_routes, delivered, ok, rows, side, snapshot};

#[tokio::test]
async fn archived_repositories_refuse_content_writes_and_allow_administration() {
    let api = Api::from_env();
    let (u, member) = (api.new_user("aru").await, api.new_user("arw").await);
    let mut w = World {
        person: u.name.clone(),
        password: u.password.clone(),
        member: member.name.clone(),
        visibility: "public",
        fresh: unique("af"),
        mark: unique("am"),
        ..World::default()
    };
    side(&api, &u, "public", false, &mut w).await;
    delivered(&api, &u, &mut w).await;
    let repo = format!("/repos/{}/{}", w.org, w.repo);
    let archive = |on: bool| {
        ok(
            &api,
            &u.token,
            "PATCH",
            repo.clone(),
            json!({"archived": on}),
        )
    };
    assert_eq!(archive(true).await["archived"], json!(true));
    let before = snapshot(&api, &[&w]).await;

    let under = "/api/v1/repos/{owner}/{repo}";
    let mut administration = Vec::new();
    let mut locked = 0;
    for Row(_, method, template, path, body, _) in rows(&w) {
        if method == "GET" || !template.starts_with(under) {
            continue;
        }
        let route = all_routes()
            .find(|r| r.method == method && r.path == template)
            .expect("a route");
        if route.archived != Archived::Locked {
            administration.push((method, template, path, body));
            continue;
        }
        locked += 1;
        let got = api.call(&method, &path, Auth::Token(&u.token), body).await;
        assert_eq!(
            (got.status, got.message()),
            (423, format!("{}/{} is archived", w.org, w.repo).as_str()),
            "{method} {path}: {:?}",
            got.body
        );
    }
    assert!(locked >= 25, "only {locked} content writes tried");
    let after = snapshot(&api, &[&w]).await;
    for ((path, b), (_, a)) in before.iter().zip(&after) {
        assert_eq!(a, b, "GET {path} changed on an archived repository");
    }

    // Administration is served: settings, collaborators, team grants;
    // deleting the repository comes last.
    let delete = administration
        .iter()
        .position(|(m, t, ..)| m == "DELETE" && t == under)
        .map(|i| administration.remove(i))
        .expect("the repository's delete route");
    let grant = format!("/api/v1/teams/{}{repo}", w.team);
    administration.push(("DELETE".into(), String::new(), grant.clone(), None));
    administration.push(("PUT".into(), String::new(), grant, None));
    for (method, _, path, body) in &administration {
        let got = api
            .call(method, path, Auth::Token(&u.token), body.clone())
            .await;
        assert!(
            (200..300).contains(&got.status),
            "{method} {path} on an archived repository: {} {:?}",
            got.status,
            got.body
        );
    }
    assert_eq!(
        administration.len(),
        13,
        "settings, two collaborator routes, five hook routes (create, edit, \
         delete, redeliver, test), three topic routes, two team-grant routes"
    );

    // Unarchived, content takes writes again; archived again, the
    // repository can still be deleted.
    assert_eq!(archive(false).await["archived"], json!(false));
    let issue = json!({"title": "after unarchiving"});
    ok(&api, &u.token, "POST", format!("{repo}/issues"), issue).await;
    archive(true).await;
    let (method, _, path, _) = delete;
    let got = api.call(&method, &path, Auth::Token(&u.token), None).await;
    assert_eq!(
        got.status, 204,
        "delete an archived repository: {:?}",
        got.body
    );
}
