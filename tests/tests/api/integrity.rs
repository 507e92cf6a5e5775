//! Integrity over HTTP: renames keep id-based lookups (search,
//! dependency lists) right, a blocked user cannot rewrite their issue,
//! Basic auth does not tell unknown users from wrong passwords, and Link
//! headers never carry a credential sent in the query.

use api_tests::{Api, Auth, Reply, TestUser, issue_repo, unique};
use serde_json::{Value, json};

/// Renames and returns the new path, asserting the answer names it.
async fn rename(api: &Api, owner: &TestUser, path: &str, new: &str) -> String {
    let r = api
        .call(
            "PATCH",
            path,
            Auth::Token(&owner.token),
            Some(json!({ "name": new })),
        )
        .await;
    assert_eq!(r.status, 200, "rename to {new}: {:?}", r.body);
    assert_eq!(r.body["name"], json!(new), "rename to {new}");
    format!("/api/v1/repos/{}/{new}", owner.name)
}

/// What the collaborator's search finds and what the dependency list shows,
/// after each step: the issue under the current repository name.
async fn check_views(
    api: &Api,
    step: &str,
    reader: &TestUser,
    search: &str,
    listing: (&TestUser, &str),
    full: &str,
) {
    api_tests::settle().await;
    let r = api
        .call("GET", search, Auth::Token(&reader.token), None)
        .await;
    assert_eq!(r.status, 200, "{step}: search: {:?}", r.body);
    assert_eq!(r.total(), Some(1), "{step}: search count: {:?}", r.body);
    assert_eq!(
        r.body[0]["repository"]["full_name"],
        json!(full),
        "{step}: search names the repository"
    );
    let r = api
        .call("GET", listing.1, Auth::Token(&listing.0.token), None)
        .await;
    assert_eq!(r.status, 200, "{step}: dependencies: {:?}", r.body);
    assert_eq!(r.total(), Some(1), "{step}: dependency count: {:?}", r.body);
    let name = full.split_once('/').map(|(_, n)| n).unwrap_or_default();
    assert_eq!(
        (
            &r.body[0]["repository"]["full_name"],
            &r.body[0]["repository"]["name"]
        ),
        (&json!(full), &json!(name)),
        "{step}: dependency names the repository"
    );
}

#[tokio::test]
async fn renames_keep_search_and_dependencies_right() {
    let api = Api::from_env();
    let (owner, reader) = (api.new_user("rnown").await, api.new_user("rnrea").await);
    let repo = api.new_repo(&owner, "/api/v1/user/repos", true).await;
    let other = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    api.add_collaborator(&owner, &owner.name, &repo, &reader.name, "read")
        .await;
    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    let other_path = format!("/api/v1/repos/{}/{other}", owner.name);
    let mark = unique("mk");
    let blocker = api
        .new_issue(&owner, &path, &format!("{mark} blocker"))
        .await;
    let dependent = api.new_issue(&owner, &other_path, "dependent").await;
    let r = api
        .call(
            "POST",
            &format!("{other_path}/issues/{dependent}/dependencies"),
            Auth::Token(&owner.token),
            Some(json!({"owner": owner.name, "repo": repo, "index": blocker})),
        )
        .await;
    assert_eq!(r.status, 201, "add the dependency: {:?}", r.body);
    let search = format!("/api/v1/repos/issues/search?q={mark}");
    let deps = format!("{other_path}/issues/{dependent}/dependencies");
    let listing = (&owner, deps.as_str());
    let full = |name: &str| format!("{}/{name}", owner.name);
    check_views(&api, "before", &reader, &search, listing, &full(&repo)).await;

    let new = unique("moved");
    let moved = rename(&api, &owner, &path, &new).await;
    let r = api
        .call("GET", &path, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(r.status, 404, "old name: {:?}", r.body);
    let r = api
        .call("GET", &moved, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(r.status, 200, "new name: {:?}", r.body);
    check_views(&api, "renamed", &reader, &search, listing, &full(&new)).await;

    // Only the spelling changes: same key, new name everywhere.
    let upper = new.to_uppercase();
    let spelled = rename(&api, &owner, &moved, &upper).await;
    let r = api
        .call("GET", &spelled, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(
        (r.status, &r.body["name"]),
        (200, &json!(upper)),
        "respelled: {:?}",
        r.body
    );
    check_views(&api, "respelled", &reader, &search, listing, &full(&upper)).await;
}

async fn block(api: &Api, owner: &TestUser, user: &str, method: &str) {
    let r = api
        .call(
            method,
            &format!("/api/v1/user/blocks/{user}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "{method} block of {user}: {:?}", r.body);
}

#[tokio::test]
async fn blocked_posters_cannot_rewrite_their_issues_unless_admin() {
    let r = issue_repo(false).await;
    let admin = r.api.new_user("rnadm").await;
    let name = r.repo_path.rsplit('/').next().unwrap_or_default();
    r.api
        .add_collaborator(&r.owner, &r.owner.name, name, &admin.name, "admin")
        .await;
    let mine = r
        .create(&r.outsider, json!({"title": "mine", "body": "as posted"}))
        .await;
    let theirs = r.create(&admin, json!({"title": "admin's"})).await;
    let (mine, theirs) = (
        mine["number"].as_i64().unwrap(),
        theirs["number"].as_i64().unwrap(),
    );
    block(&r.api, &r.owner, &r.outsider.name, "PUT").await;
    block(&r.api, &r.owner, &admin.name, "PUT").await;

    for (row, edit) in [
        ("title", json!({"title": "rewritten"})),
        ("body", json!({"body": "rewritten"})),
        ("both", json!({"title": "rewritten", "body": "rewritten"})),
    ] {
        let resp = r.patch(&r.outsider, mine, edit).await;
        assert_eq!(
            (resp.status, resp.message()),
            (403, "user is blocked"),
            "{row}: {:?}",
            resp.body
        );
    }
    let issue = r.get(mine).await;
    assert_eq!(
        (&issue["title"], &issue["body"]),
        (&json!("mine"), &json!("as posted")),
        "a refused edit changes nothing"
    );

    // A blocked repository admin still edits.
    let resp = r
        .patch(&admin, theirs, json!({"title": "admin edit"}))
        .await;
    assert_eq!(resp.status, 201, "blocked admin: {:?}", resp.body);
    assert_eq!(r.get(theirs).await["title"], json!("admin edit"));

    // Lifting the block lifts the refusal: it was the block.
    block(&r.api, &r.owner, &r.outsider.name, "DELETE").await;
    let resp = r
        .patch(&r.outsider, mine, json!({"title": "rewritten"}))
        .await;
    assert_eq!(resp.status, 201, "unblocked: {:?}", resp.body);
    assert_eq!(r.get(mine).await["title"], json!("rewritten"));
}

#[tokio::test]
async fn basic_auth_answers_unknown_users_like_wrong_passwords() {
    let api = Api::from_env();
    let user = api.new_user("bauth").await;
    let nobody = unique("nosuchuser");
    let mut answers: Vec<(&str, Reply)> = Vec::new();
    for (row, auth) in [
        ("unknown user", Auth::Basic(&nobody, "pw")),
        ("wrong password", Auth::Basic(&user.name, "wrong")),
    ] {
        let r = api.call("GET", "/api/v1/user", auth, None).await;
        assert_eq!(r.status, 401, "{row}: {:?}", r.body);
        answers.push((row, r));
    }
    assert_ne!(answers[0].1.body, Value::Null, "a body is given");
    assert_eq!(
        answers[0].1.body, answers[1].1.body,
        "the two refusals are alike"
    );
    // The right password still works.
    let r = api
        .call(
            "GET",
            "/api/v1/user",
            Auth::Basic(&user.name, &user.password),
            None,
        )
        .await;
    assert_eq!((r.status, &r.body["login"]), (200, &json!(user.name)));
}

#[tokio::test]
async fn link_headers_never_carry_query_credentials() {
    let api = Api::from_env();
    let owner = api.new_user("lnk").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", true).await;
    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    for i in 0..3 {
        api.new_issue(&owner, &path, &format!("issue {i}")).await;
    }
    for (row, page, auth, extra) in [
        (
            "token, first page",
            1,
            Auth::Query(&owner.token),
            String::new(),
        ),
        (
            "token, middle page",
            2,
            Auth::Query(&owner.token),
            String::new(),
        ),
        (
            "access_token",
            2,
            Auth::None,
            format!("&access_token={}", owner.token),
        ),
    ] {
        let url = format!("{path}/issues?limit=1&page={page}{extra}");
        let r = api.call("GET", &url, auth, None).await;
        assert_eq!(r.status, 200, "{row}: {:?}", r.body);
        assert_eq!(r.total(), Some(3), "{row}");
        let link = r.header("link").unwrap_or_default().to_string();
        assert!(
            link.contains("rel=\"next\"") && link.contains("rel=\"last\""),
            "{row}: page links: {link}"
        );
        assert!(
            link.contains("limit=1"),
            "{row}: other parameters kept: {link}"
        );
        assert!(
            !link.contains(&owner.token) && !link.contains("token="),
            "{row}: no credential: {link}"
        );
    }
}
