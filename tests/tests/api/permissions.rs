//! Who may read and write milestones and labels: each kind of caller
//! against a public and a private organisation repository, every token
//! scope, blocked users and site admins.

use api_tests::{Api, Auth, TestUser};
use serde_json::json;

struct World {
    api: Api,
    owner: TestUser,
    reader: TestUser,
    writer: TestUser,
    admin: TestUser,
    teammate: TestUser,
    outsider: TestUser,
    blocked: TestUser,
    org: String,
    public: String,
    private: String,
}

async fn world() -> World {
    let api = Api::from_env();
    let owner = api.new_user("owner").await;
    let (reader, writer, admin) = (
        api.new_user("reader").await,
        api.new_user("writer").await,
        api.new_user("radmin").await,
    );
    let (teammate, outsider, blocked) = (
        api.new_user("team").await,
        api.new_user("out").await,
        api.new_user("blk").await,
    );
    let org = api.new_org(&owner, "perm", "public").await;
    let public = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), false)
        .await;
    let private = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), true)
        .await;
    for repo in [&public, &private] {
        api.add_collaborator(&owner, &org, repo, &reader.name, "read")
            .await;
        api.add_collaborator(&owner, &org, repo, &writer.name, "write")
            .await;
        api.add_collaborator(&owner, &org, repo, &admin.name, "admin")
            .await;
    }
    // A team that writes issues (not pulls) in every repository.
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            Auth::Token(&owner.token),
            Some(json!({"name": "triage", "permission": "write", "includes_all_repositories": true, "units_map": {"repo.issues": "write"}})),
        )
        .await;
    let id = team.body["id"].as_i64().unwrap();
    api.call(
        "PUT",
        &format!("/api/v1/teams/{id}/members/{}", teammate.name),
        Auth::Token(&owner.token),
        None,
    )
    .await;
    let r = api
        .call(
            "PUT",
            &format!("/api/v1/orgs/{org}/blocks/{}", blocked.name),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    World {
        api,
        owner,
        reader,
        writer,
        admin,
        teammate,
        outsider,
        blocked,
        org,
        public,
        private,
    }
}

#[tokio::test]
async fn milestone_access_by_caller() {
    let w = world().await;
    let admin_token = w.api.admin_token.clone();
    let callers: Vec<(&str, Auth)> = vec![
        ("anonymous", Auth::None),
        ("outsider", Auth::Token(&w.outsider.token)),
        ("blocked", Auth::Token(&w.blocked.token)),
        ("reader", Auth::Token(&w.reader.token)),
        ("teammate", Auth::Token(&w.teammate.token)),
        ("writer", Auth::Token(&w.writer.token)),
        ("repo admin", Auth::Token(&w.admin.token)),
        ("org owner", Auth::Token(&w.owner.token)),
        ("site admin", Auth::Token(&admin_token)),
    ];
    // (caller, public read, public write, private read, private write)
    let expected = [
        ("anonymous", 200, 401, 404, 404),
        ("outsider", 200, 403, 404, 404),
        ("blocked", 200, 403, 404, 404),
        ("reader", 200, 403, 200, 403),
        ("teammate", 200, 201, 200, 201),
        ("writer", 200, 201, 200, 201),
        ("repo admin", 200, 201, 200, 201),
        ("org owner", 200, 201, 200, 201),
        ("site admin", 200, 201, 200, 201),
    ];
    for ((name, auth), (ename, pr, pw, vr, vw)) in callers.into_iter().zip(expected) {
        assert_eq!(name, ename);
        let mut got = Vec::new();
        for repo in [&w.public, &w.private] {
            let base = format!("/api/v1/repos/{}/{repo}/milestones", w.org);
            got.push(w.api.call("GET", &base, auth, None).await.status);
            got.push(
                w.api
                    .call(
                        "POST",
                        &base,
                        auth,
                        Some(json!({"title": format!("by {name}")})),
                    )
                    .await
                    .status,
            );
        }
        assert_eq!(
            got,
            vec![pr, pw, vr, vw],
            "caller {name}: [public GET, public POST, private GET, private POST]"
        );
    }
    // Only the writers' milestones exist.
    let r = w
        .api
        .call(
            "GET",
            &format!("/api/v1/repos/{}/{}/milestones?state=all", w.org, w.private),
            Auth::Token(&w.owner.token),
            None,
        )
        .await;
    assert_eq!(r.header("x-total-count"), Some("5"));
}

#[tokio::test]
async fn token_scopes_and_public_only() {
    let w = world().await;
    let u = &w.writer;
    let base_pub = format!("/api/v1/repos/{}/{}/milestones", w.org, w.public);
    let base_priv = format!("/api/v1/repos/{}/{}/milestones", w.org, w.private);
    let read_issue = w.api.token(&u.name, &u.password, &["read:issue"]).await;
    let write_issue = w.api.token(&u.name, &u.password, &["write:issue"]).await;
    let repo_only = w
        .api
        .token(&u.name, &u.password, &["write:repository"])
        .await;
    let public_only = w
        .api
        .token(&u.name, &u.password, &["write:issue", "public-only"])
        .await;
    let body = || Some(json!({"title": "scoped"}));

    assert_eq!(
        w.api
            .call("GET", &base_priv, Auth::Token(&read_issue), None)
            .await
            .status,
        200
    );
    let r = w
        .api
        .call("POST", &base_priv, Auth::Token(&read_issue), body())
        .await;
    assert_eq!(r.status, 403);
    assert!(
        r.message().contains("required=[write:issue]"),
        "{:?}",
        r.body
    );
    assert_eq!(
        w.api
            .call("POST", &base_priv, Auth::Token(&write_issue), body())
            .await
            .status,
        201
    );
    // read:repository is neither needed nor enough for issue routes, and the
    // scope is checked before the repository is looked up.
    assert_eq!(
        w.api
            .call("GET", &base_priv, Auth::Token(&repo_only), None)
            .await
            .status,
        403
    );
    assert_eq!(
        w.api
            .call(
                "GET",
                "/api/v1/repos/nobody-x/nothing-y/milestones",
                Auth::Token(&repo_only),
                None
            )
            .await
            .status,
        403
    );
    // public-only: fine on public repositories, 403 on private ones.
    assert_eq!(
        w.api
            .call("POST", &base_pub, Auth::Token(&public_only), body())
            .await
            .status,
        201
    );
    let r = w
        .api
        .call("GET", &base_priv, Auth::Token(&public_only), None)
        .await;
    assert_eq!(
        (r.status, r.message()),
        (403, "token scope is limited to public issues")
    );
}

#[tokio::test]
async fn labels_follow_the_same_rules() {
    let w = world().await;
    let base = format!("/api/v1/repos/{}/{}/labels", w.org, w.private);
    let label = json!({"name": "bug", "color": "#EE0701", "description": "broken"});
    assert_eq!(
        w.api
            .call(
                "POST",
                &base,
                Auth::Token(&w.reader.token),
                Some(label.clone())
            )
            .await
            .status,
        403
    );
    assert_eq!(
        w.api
            .call(
                "POST",
                &base,
                Auth::Token(&w.outsider.token),
                Some(label.clone())
            )
            .await
            .status,
        404
    );
    let r = w
        .api
        .call("POST", &base, Auth::Token(&w.writer.token), Some(label))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body["color"], "ee0701");
    let id = r.body["id"].as_i64().unwrap();
    assert_eq!(
        r.body["url"].as_str().unwrap(),
        format!(
            "{}/api/v1/repos/{}/{}/labels/{id}",
            w.api.base, w.org, w.private
        )
    );
    let r = w
        .api
        .call("GET", &base, Auth::Token(&w.reader.token), None)
        .await;
    assert_eq!((r.status, r.header("x-total-count")), (200, Some("1")));
    assert_eq!(w.api.call("GET", &base, Auth::None, None).await.status, 404);
    assert_eq!(
        w.api
            .call(
                "PATCH",
                &format!("{base}/{id}"),
                Auth::Token(&w.reader.token),
                Some(json!({"name": "x"}))
            )
            .await
            .status,
        403
    );
    let _ = &w.teammate;
    let _ = &w.admin;
    let _ = &w.blocked;
}

#[tokio::test]
async fn owner_visibility_hides_public_repositories() {
    let api = Api::from_env();
    let owner = api.new_user("vis").await;
    let member = api.new_user("vism").await;
    let outsider = api.new_user("viso").await;
    let limited = api.new_org(&owner, "lim", "limited").await;
    let private = api.new_org(&owner, "prv", "private").await;
    let lrepo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{limited}/repos"), false)
        .await;
    let prepo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{private}/repos"), false)
        .await;
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{private}/teams"),
            Auth::Token(&owner.token),
            Some(json!({"name": "readers", "includes_all_repositories": true})),
        )
        .await;
    let id = team.body["id"].as_i64().unwrap();
    api.call(
        "PUT",
        &format!("/api/v1/teams/{id}/members/{}", member.name),
        Auth::Token(&owner.token),
        None,
    )
    .await;

    let lpath = format!("/api/v1/repos/{limited}/{lrepo}/milestones");
    let ppath = format!("/api/v1/repos/{private}/{prepo}/milestones");
    assert_eq!(
        api.call("GET", &lpath, Auth::None, None).await.status,
        404,
        "limited owner: anonymous callers see nothing"
    );
    assert_eq!(
        api.call("GET", &lpath, Auth::Token(&outsider.token), None)
            .await
            .status,
        200,
        "limited owner: signed-in callers read"
    );
    assert_eq!(
        api.call("GET", &ppath, Auth::Token(&outsider.token), None)
            .await
            .status,
        404,
        "private owner: outsiders see nothing"
    );
    assert_eq!(
        api.call("GET", &ppath, Auth::Token(&member.token), None)
            .await
            .status,
        200,
        "private owner: members read"
    );
    // public-only tokens: a repository of a non-public owner counts as private.
    let po = api
        .token(
            &outsider.name,
            &outsider.password,
            &["read:repository", "read:issue", "public-only"],
        )
        .await;
    let r = api
        .call(
            "GET",
            &format!("/api/v1/repos/{limited}/{lrepo}"),
            Auth::Token(&po),
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.message()),
        (403, "token scope is limited to public repos")
    );
}

#[tokio::test]
async fn unknown_fields_are_ignored_as_gitea_does() {
    let api = Api::from_env();
    let owner = api.new_user("unk").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let r = api
        .call(
            "POST",
            &format!("/api/v1/repos/{}/{repo}/milestones", owner.name),
            Auth::Token(&owner.token),
            Some(json!({"title": "t", "colour": "blue", "nested": {"x": 1}})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert!(r.body.get("colour").is_none());
}
