//! Repositories over HTTP: create (three ways), read, edit (rename,
//! archive, units), delete, collaborators and team grants.

use api_tests::{Api, Auth, unique};
use serde_json::json;

#[tokio::test]
async fn create_read_edit_delete() {
    let api = Api::from_env();
    let alice = api.new_user("alice").await;
    let name = unique("repo");
    let r = api
        .call(
            "POST",
            "/api/v1/user/repos",
            Auth::Token(&alice.token),
            Some(json!({"name": name, "description": "d", "private": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body["full_name"], format!("{}/{name}", alice.name));
    assert_eq!(r.body["owner"]["login"], alice.name.as_str());
    assert_eq!(
        (r.body["private"].as_bool(), r.body["has_issues"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(
        r.body["permissions"],
        json!({"admin": true, "push": true, "pull": true})
    );
    assert_eq!(
        r.body["internal_tracker"]["enable_issue_dependencies"],
        true
    );

    let again = api
        .call(
            "POST",
            "/api/v1/user/repos",
            Auth::Token(&alice.token),
            Some(json!({"name": name.to_uppercase()})),
        )
        .await;
    assert_eq!(
        again.status, 409,
        "names are unique per owner, case-insensitively: {:?}",
        again.body
    );
    for bad in [
        json!({"name": ""}),
        json!({"name": "a b"}),
        json!({"name": "x.git"}),
        json!({"name": 5}),
        json!({}),
    ] {
        let r = api
            .call(
                "POST",
                "/api/v1/user/repos",
                Auth::Token(&alice.token),
                Some(bad.clone()),
            )
            .await;
        assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
    }

    let path = format!("/api/v1/repos/{}/{name}", alice.name);
    assert_eq!(
        api.call("GET", &path, Auth::Token(&alice.token), None)
            .await
            .status,
        200
    );
    assert_eq!(
        api.call("GET", &path, Auth::None, None).await.status,
        404,
        "private repositories are hidden"
    );

    let new_name = unique("renamed");
    let edit = json!({"name": new_name, "description": "new", "archived": true, "has_pull_requests": false,
                      "internal_tracker": {"enable_issue_dependencies": false}});
    let r = api
        .call("PATCH", &path, Auth::Token(&alice.token), Some(edit))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        (r.body["name"].as_str(), r.body["archived"].as_bool()),
        (Some(new_name.as_str()), Some(true))
    );
    assert_eq!(r.body["has_pull_requests"], false);
    assert_eq!(
        r.body["internal_tracker"]["enable_issue_dependencies"],
        false
    );
    assert_eq!(
        api.call("GET", &path, Auth::Token(&alice.token), None)
            .await
            .status,
        404,
        "old name is gone"
    );
    let moved = format!("/api/v1/repos/{}/{new_name}", alice.name);
    let r = api
        .call("GET", &moved, Auth::Token(&alice.token), None)
        .await;
    assert_eq!(
        (r.status, r.body["description"].as_str()),
        (200, Some("new"))
    );

    let other = api.new_user("bob").await;
    assert_eq!(
        api.call("DELETE", &moved, Auth::Token(&other.token), None)
            .await
            .status,
        404,
        "outsiders do not see it"
    );
    assert_eq!(
        api.call("DELETE", &moved, Auth::Token(&alice.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        api.call("GET", &moved, Auth::Token(&alice.token), None)
            .await
            .status,
        404
    );
    // The name is free again.
    let r = api
        .call(
            "POST",
            "/api/v1/user/repos",
            Auth::Token(&alice.token),
            Some(json!({"name": new_name})),
        )
        .await;
    assert_eq!(r.status, 201);
}

#[tokio::test]
async fn org_and_admin_creation_rules() {
    let api = Api::from_env();
    let owner = api.new_user("own").await;
    let member = api.new_user("mem").await;
    let org = api.new_org(&owner, "org", "public").await;
    let create = format!("/api/v1/orgs/{org}/repos");
    let r = api
        .call(
            "POST",
            &create,
            Auth::Token(&member.token),
            Some(json!({"name": "x"})),
        )
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            Auth::Token(&owner.token),
            Some(json!({"name": "makers", "can_create_org_repo": true})),
        )
        .await;
    let id = team.body["id"].as_i64().unwrap();
    assert_eq!(
        api.call(
            "PUT",
            &format!("/api/v1/teams/{id}/members/{}", member.name),
            Auth::Token(&owner.token),
            None
        )
        .await
        .status,
        204
    );
    let r = api
        .call(
            "POST",
            &create,
            Auth::Token(&member.token),
            Some(json!({"name": "x"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body["owner"]["login"], org.as_str());

    let admin_path = format!("/api/v1/admin/users/{}/repos", member.name);
    assert_eq!(
        api.call(
            "POST",
            &admin_path,
            Auth::Token(&owner.token),
            Some(json!({"name": "y"}))
        )
        .await
        .status,
        403
    );
    let r = api
        .call("POST", &admin_path, api.admin(), Some(json!({"name": "y"})))
        .await;
    assert_eq!(
        (r.status, r.body["full_name"].clone()),
        (201, json!(format!("{}/y", member.name)))
    );
    let r = api
        .call(
            "POST",
            "/api/v1/admin/users/no-such-user-x1/repos",
            api.admin(),
            Some(json!({"name": "y"})),
        )
        .await;
    assert_eq!(r.status, 404);
}

#[tokio::test]
async fn collaborators_and_team_grants_open_private_repositories() {
    let api = Api::from_env();
    let owner = api.new_user("own").await;
    let friend = api.new_user("friend").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", true).await;
    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    assert_eq!(
        api.call("GET", &path, Auth::Token(&friend.token), None)
            .await
            .status,
        404
    );

    api.add_collaborator(&owner, &owner.name, &repo, &friend.name, "read")
        .await;
    let r = api
        .call("GET", &path, Auth::Token(&friend.token), None)
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["permissions"],
        json!({"admin": false, "push": false, "pull": true})
    );
    assert_eq!(
        api.call(
            "PATCH",
            &path,
            Auth::Token(&friend.token),
            Some(json!({"description": "x"}))
        )
        .await
        .status,
        403
    );
    api.add_collaborator(&owner, &owner.name, &repo, &friend.name, "admin")
        .await;
    assert_eq!(
        api.call(
            "PATCH",
            &path,
            Auth::Token(&friend.token),
            Some(json!({"description": "x"}))
        )
        .await
        .status,
        200
    );
    assert_eq!(
        api.call("DELETE", &path, Auth::Token(&friend.token), None)
            .await
            .status,
        403,
        "admins are not owners"
    );

    let collab = format!("{path}/collaborators");
    let bad = api
        .call(
            "PUT",
            &format!("{collab}/{}", friend.name),
            Auth::Token(&owner.token),
            Some(json!({"permission": "owner"})),
        )
        .await;
    assert_eq!(bad.status, 422);
    assert_eq!(
        api.call(
            "PUT",
            &format!("{collab}/nobody-zz9"),
            Auth::Token(&owner.token),
            None
        )
        .await
        .status,
        422
    );
    assert_eq!(
        api.call(
            "DELETE",
            &format!("{collab}/{}", friend.name),
            Auth::Token(&owner.token),
            None
        )
        .await
        .status,
        204
    );
    assert_eq!(
        api.call("GET", &path, Auth::Token(&friend.token), None)
            .await
            .status,
        404
    );

    // Team grants on an organisation repository.
    let org = api.new_org(&owner, "org", "public").await;
    let private = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), true)
        .await;
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            Auth::Token(&owner.token),
            Some(json!({"name": "devs", "permission": "write"})),
        )
        .await;
    let id = team.body["id"].as_i64().unwrap();
    api.call(
        "PUT",
        &format!("/api/v1/teams/{id}/members/{}", friend.name),
        Auth::Token(&owner.token),
        None,
    )
    .await;
    let org_path = format!("/api/v1/repos/{org}/{private}");
    assert_eq!(
        api.call("GET", &org_path, Auth::Token(&friend.token), None)
            .await
            .status,
        404,
        "team lacks the repository"
    );
    let grant = format!("/api/v1/teams/{id}/repos/{org}/{private}");
    assert_eq!(
        api.call("PUT", &grant, Auth::Token(&friend.token), None)
            .await
            .status,
        403
    );
    assert_eq!(
        api.call("PUT", &grant, Auth::Token(&owner.token), None)
            .await
            .status,
        204
    );
    let r = api
        .call("GET", &org_path, Auth::Token(&friend.token), None)
        .await;
    assert_eq!(
        (r.status, r.body["permissions"]["push"].as_bool()),
        (200, Some(true))
    );
    assert_eq!(
        api.call("DELETE", &grant, Auth::Token(&owner.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        api.call("GET", &org_path, Auth::Token(&friend.token), None)
            .await
            .status,
        404
    );
}
