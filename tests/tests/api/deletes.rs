//! Deletes of parents with many children or links: an issue many issues
//! depend on, a repository with many collaborators, an application with
//! many domains. Each delete must succeed whatever the number of links
//! (they used to go in one transaction and fail over its item limit), and
//! leave no link behind, neither over HTTP nor in the table.

use api_tests::{Api, Auth, TestUser, deploy::Team, table, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, stream};
use serde_json::{Value, json};

/// How many links each parent gets: well over one transaction's worth.
const MANY: usize = 60;

/// Sort keys of the items in partition `pk` starting with `prefix`.
async fn sort_keys(pk: &str, prefix: &str) -> Vec<String> {
    let (client, table) = table().await;
    let mut out = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .query()
            .table_name(&table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", AttributeValue::S(pk.into()))
            .expression_attribute_values(":p", AttributeValue::S(prefix.into()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query the table");
        for item in page.items() {
            if let Some(AttributeValue::S(sk)) = item.get("sk") {
                out.push(sk.clone());
            }
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => return out,
        }
    }
}

async fn repo_id(api: &Api, who: &TestUser, owner: &str, repo: &str) -> i64 {
    let r = api
        .call(
            "GET",
            &format!("/api/v1/repos/{owner}/{repo}"),
            Auth::Token(&who.token),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "GET {owner}/{repo}: {:?}", r.body);
    r.body["id"].as_i64().expect("repository id")
}

#[tokio::test]
async fn deleting_an_issue_with_many_dependents_unlinks_them_all() {
    let api = Api::from_env();
    let (owner, attacker) = (api.new_user("dxown").await, api.new_user("dxatk").await);
    let public = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let own = api.new_repo(&attacker, "/api/v1/user/repos", false).await;
    let x = api
        .new_issue(
            &owner,
            &format!("/api/v1/repos/{}/{public}", owner.name),
            "blocker",
        )
        .await;
    let (public_id, own_id) = (
        repo_id(&api, &owner, &owner.name, &public).await,
        repo_id(&api, &attacker, &attacker.name, &own).await,
    );
    let repo_path = format!("/api/v1/repos/{}/{public}", owner.name);
    let open_before = api
        .call("GET", &repo_path, Auth::Token(&owner.token), None)
        .await
        .body["open_issues_count"]
        .as_i64();

    // A mere reader of the public repository makes MANY of their own
    // issues depend on X: nothing stops them, so the delete must cope.
    let numbers: Vec<i64> = stream::iter(0..MANY)
        .map(|i| {
            let (api, attacker, own) = (&api, &attacker, &own);
            async move {
                api.new_issue(
                    attacker,
                    &format!("/api/v1/repos/{}/{own}", attacker.name),
                    &format!("dep {i}"),
                )
                .await
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    let meta = json!({"owner": owner.name, "repo": public, "index": x});
    let links: Vec<(i64, u16, Value)> = stream::iter(numbers.clone())
        .map(|n| {
            let (api, attacker, own, meta) = (&api, &attacker, &own, meta.clone());
            async move {
                let path = format!(
                    "/api/v1/repos/{}/{own}/issues/{n}/dependencies",
                    attacker.name
                );
                let r = api
                    .call("POST", &path, Auth::Token(&attacker.token), Some(meta))
                    .await;
                (n, r.status, r.body)
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    for (n, status, body) in &links {
        assert_eq!(*status, 201, "issue {n} depends on X: {body:?}");
    }
    let blocks = api
        .call(
            "GET",
            &format!("{repo_path}/issues/{x}/blocks"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(blocks.status, 200, "{:?}", blocks.body);
    assert_eq!(blocks.total(), Some(MANY as u64), "X blocks every issue");
    assert_eq!(
        blocks.body.as_array().map(Vec::len),
        Some(30),
        "one default-sized page"
    );
    assert!(blocks.header("link").is_some(), "more pages are linked");
    // The table check below must be able to fail: the links are there now.
    let pk = |id: i64| format!("REPO#{id}");
    assert_eq!(sort_keys(&pk(own_id), "DEP#").await.len(), MANY);
    assert_eq!(sort_keys(&pk(public_id), "BLOCKS#").await.len(), MANY);

    let r = api
        .call(
            "DELETE",
            &format!("{repo_path}/issues/{x}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "delete X: {:?}", r.body);

    let r = api
        .call(
            "GET",
            &format!("{repo_path}/issues/{x}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 404, "X is gone: {:?}", r.body);
    for n in &numbers {
        let path = format!(
            "/api/v1/repos/{}/{own}/issues/{n}/dependencies",
            attacker.name
        );
        let r = api
            .call("GET", &path, Auth::Token(&attacker.token), None)
            .await;
        assert_eq!(r.status, 200, "dependencies of {n}: {:?}", r.body);
        assert_eq!(
            (r.total(), r.body.clone()),
            (Some(0), json!([])),
            "issue {n} depends on nothing"
        );
    }
    // Both sides of every link are gone from the table.
    assert_eq!(sort_keys(&pk(own_id), "DEP#").await, Vec::<String>::new());
    assert_eq!(
        sort_keys(&pk(public_id), "BLOCKS#").await,
        Vec::<String>::new()
    );
    let open_after = api
        .call("GET", &repo_path, Auth::Token(&owner.token), None)
        .await
        .body["open_issues_count"]
        .as_i64();
    assert_eq!(
        (open_before, open_after),
        (Some(1), Some(0)),
        "open count drops by one"
    );
}

/// Creates a user without a token (one password hash, not two).
async fn bare_user(api: &Api, prefix: &str) -> String {
    let name = unique(prefix);
    let body = json!({"username": name, "email": format!("{name}@example.com"), "password": format!("pw-{name}")});
    let r = api
        .call("POST", "/api/v1/admin/users", api.admin(), Some(body))
        .await;
    assert_eq!(r.status, 201, "create user {name}: {:?}", r.body);
    name
}

#[tokio::test]
async fn deleting_a_repository_with_many_collaborators_removes_every_grant() {
    let api = Api::from_env();
    let (owner, reader) = (api.new_user("dcown").await, api.new_user("dcrea").await);
    let repo = api.new_repo(&owner, "/api/v1/user/repos", true).await;
    let id = repo_id(&api, &owner, &owner.name, &repo).await;
    let mark = unique("mk");
    api.new_issue(
        &owner,
        &format!("/api/v1/repos/{}/{repo}", owner.name),
        &format!("{mark} secret"),
    )
    .await;

    let mut users: Vec<String> = stream::iter(1..MANY)
        .map(|_| bare_user(&api, "dcol"))
        .buffer_unordered(4)
        .collect()
        .await;
    users.push(reader.name.clone());
    let adds: Vec<(String, u16)> = stream::iter(users.clone())
        .map(|u| {
            let (api, owner, repo) = (&api, &owner, &repo);
            async move {
                let path = format!("/api/v1/repos/{}/{repo}/collaborators/{u}", owner.name);
                let body = json!({"permission": "read"});
                let r = api
                    .call("PUT", &path, Auth::Token(&owner.token), Some(body))
                    .await;
                (u, r.status)
            }
        })
        .buffer_unordered(4)
        .collect()
        .await;
    for (u, status) in &adds {
        assert_eq!(*status, 204, "add collaborator {u}");
    }
    let search = format!("/api/v1/repos/issues/search?q={mark}");
    api_tests::settle().await;
    let r = api
        .call("GET", &search, Auth::Token(&reader.token), None)
        .await;
    assert_eq!(
        (r.status, r.total()),
        (200, Some(1)),
        "a collaborator finds the issue: {:?}",
        r.body
    );

    let collab = format!("COLLAB#{id:020}");
    let owner_pk = |u: &str| format!("OWNER#{}", u.to_lowercase());
    assert_eq!(sort_keys(&owner_pk(&reader.name), &collab).await.len(), 1);
    assert_eq!(
        sort_keys(&format!("REPO#{id}"), "ACCESS#").await.len(),
        MANY
    );

    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    let r = api
        .call("DELETE", &path, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(r.status, 204, "delete the repository: {:?}", r.body);
    let r = api
        .call("GET", &path, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(r.status, 404, "{:?}", r.body);
    let r = api
        .call("GET", &search, Auth::Token(&reader.token), None)
        .await;
    assert_eq!(
        (r.status, r.total(), r.body.clone()),
        (200, Some(0), json!([])),
        "the deleted repository's issues are not found"
    );

    for u in &users {
        let left = sort_keys(&owner_pk(u), &collab).await;
        assert!(left.is_empty(), "{u} keeps {left:?}");
    }
    assert_eq!(
        sort_keys(&format!("REPO#{id}"), "ACCESS#").await,
        Vec::<String>::new(),
        "the repository side of the grants is gone"
    );
}

#[tokio::test]
async fn deleting_an_application_with_many_domains_frees_them() {
    let t = Team::new().await;
    let host = unique("many");
    let domains: Vec<String> = (0..20)
        .map(|i| format!("https://d{i}.{host}.example.com"))
        .collect();
    let image = |name: &str| {
        t.body(json!({
            "name": name,
            "docker_registry_image_name": "nginx",
            "ports_exposes": "80",
            "domains": domains.join(","),
        }))
    };
    let r = t.post("/applications/dockerimage", image("first")).await;
    assert_eq!(r.status, 201, "create with 20 domains: {:?}", r.body);
    let first = r.body["uuid"].as_str().expect("uuid").to_string();
    let r = t.post("/applications/dockerimage", image("blocked")).await;
    assert_eq!(r.status, 409, "the domains are held: {:?}", r.body);
    assert_eq!(
        r.body["conflicts"].as_array().map(Vec::len),
        Some(20),
        "every domain conflicts"
    );

    let r = t.delete(&format!("/applications/{first}")).await;
    assert_eq!(r.status, 200, "delete: {:?}", r.body);
    let r = t.get(&format!("/applications/{first}")).await;
    assert_eq!(r.status, 404, "{:?}", r.body);
    let r = t.post("/applications/dockerimage", image("second")).await;
    assert_eq!(r.status, 201, "the domains are free again: {:?}", r.body);
    assert_eq!(
        r.body["domains"],
        json!(domains.join(",")),
        "every domain kept"
    );
}
