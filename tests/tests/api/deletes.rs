//! Deletes of parents with many children or links: an issue many issues
//! depend on, a busy issue's comments, a repository with many
//! collaborators, an application with many domains. Each delete must succeed whatever the number of links
//! (they used to go in one transaction and fail over its item limit), and
//! leave no link behind, neither over HTTP nor in the table.

use api_tests::{Api, Auth, TestUser, deploy::Team, table, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, stream};
use serde_json::{Value, json};
use shared::{db::keys, issues::index::lists};

/// How many links each parent gets: well over one transaction's worth.
const MANY: usize = 60;

/// Sort keys of the items in partition `pk` starting with `prefix`.
async fn sort_keys(pk: &str, prefix: &str) -> Vec<String> {
    api_tests::items_under(pk, prefix)
        .await
        .iter()
        .filter_map(|item| match item.get("sk") {
            Some(AttributeValue::S(sk)) => Some(sk.clone()),
            _ => None,
        })
        .collect()
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
        api.repo_id(&owner, &format!("/api/v1/repos/{}/{public}", owner.name))
            .await,
        api.repo_id(&attacker, &format!("/api/v1/repos/{}/{own}", attacker.name))
            .await,
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
    // Both sides of every link are gone from the table, once the clean-up
    // job (the stream consumer's) is done.
    api_tests::settle().await;
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

/// The repository's comment listing, page by page (`limit` 10) until an
/// empty one: each page's issue numbers, the total and the last page
/// `Link` names.
async fn comment_pages(
    api: &Api,
    who: &TestUser,
    repo_path: &str,
) -> (Vec<Vec<i64>>, Option<u64>, Option<String>) {
    let mut pages = Vec::new();
    let (mut total, mut last) = (None, None);
    for page in 1.. {
        let r = api
            .call(
                "GET",
                &format!("{repo_path}/issues/comments?limit=10&page={page}"),
                Auth::Token(&who.token),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "page {page}: {:?}", r.body);
        if page == 1 {
            total = r.total();
            last = r.header("link").and_then(|l| {
                l.split(',')
                    .find(|part| part.contains("rel=\"last\""))
                    .and_then(|part| part.split("page=").nth(1))
                    .map(|rest| rest.split(['&', '>']).next().unwrap_or("").to_string())
            });
        }
        let numbers: Vec<i64> = r
            .body
            .as_array()
            .expect("a list")
            .iter()
            .map(|c| {
                let url = c["issue_url"].as_str().expect("issue_url");
                url.rsplit('/')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("a number")
            })
            .collect();
        if numbers.is_empty() {
            return (pages, total, last);
        }
        pages.push(numbers);
        assert!(page < 100, "the listing ends");
    }
    unreachable!()
}

#[tokio::test]
async fn deleting_a_busy_issue_leaves_no_hole_in_the_comment_pages() {
    const BUSY: usize = 120;
    const QUIET: usize = 40;
    let api = Api::from_env();
    let owner = api.new_user("dxbusy").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let repo_path = format!("/api/v1/repos/{}/{repo}", owner.name);
    let busy = api.new_issue(&owner, &repo_path, "busy").await;
    let quiet = api.new_issue(&owner, &repo_path, "quiet").await;
    let id = api.repo_id(&owner, &repo_path).await;
    // Every fourth comment on the quiet issue, so the busy one's comments
    // sit before, between and after them in the repository's listing.
    let targets: Vec<i64> = (0..BUSY + QUIET)
        .map(|i| if i % 4 == 3 { quiet } else { busy })
        .collect();
    let statuses: Vec<u16> = stream::iter(targets)
        .map(|n| {
            let (api, owner, repo_path) = (&api, &owner, &repo_path);
            async move {
                api.call(
                    "POST",
                    &format!("{repo_path}/issues/{n}/comments"),
                    Auth::Token(&owner.token),
                    Some(json!({"body": format!("on {n}")})),
                )
                .await
                .status
            }
        })
        .buffer_unordered(2)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    api_tests::settle().await;
    let (pages, total, _) = comment_pages(&api, &owner, &repo_path).await;
    assert_eq!(total, Some((BUSY + QUIET) as u64), "every comment counted");
    assert_eq!(pages.len(), 16);

    let r = api
        .call(
            "DELETE",
            &format!("{repo_path}/issues/{busy}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204, "delete the busy issue: {:?}", r.body);

    // During the clean-up and after it, the same pages: full ones of the
    // quiet issue's comments, as many as the total and `Link` say.
    for moment in ["during the clean-up", "after the clean-up"] {
        let (pages, total, last) = comment_pages(&api, &owner, &repo_path).await;
        assert_eq!(total, Some(QUIET as u64), "{moment}: total");
        assert_eq!(last.as_deref(), Some("4"), "{moment}: Link's last page");
        assert_eq!(
            pages.iter().map(Vec::len).collect::<Vec<_>>(),
            [10, 10, 10, 10],
            "{moment}: four full pages, no hole: {pages:?} (busy {busy}, quiet {quiet})"
        );
        assert!(
            pages.iter().flatten().all(|n| *n == quiet),
            "{moment}: only the quiet issue's comments: {pages:?}"
        );
        api_tests::settle().await;
    }
    // Nothing of the busy issue is left: comments, listing entries, and
    // its number in the counters item.
    let (client, table) = table().await;
    let left = client
        .query()
        .table_name(&table)
        .index_name("gsi1")
        .key_condition_expression("gsi1pk = :pk")
        .expression_attribute_values(":pk", AttributeValue::S(keys::issue_comments_pk(id, busy)))
        .send()
        .await
        .expect("query the comments' index");
    assert_eq!(left.count(), 0, "the busy issue's comments are gone");
    // Entries' sort keys start with a zero-padded time.
    let listed = sort_keys(&lists::kind_comments_pk(id, false, false), "0").await;
    assert_eq!(listed.len(), QUIET, "the kind's listing holds the rest");
    let own = sort_keys(&lists::issue_comments_pk(id, busy, false), "0").await;
    assert_eq!(
        own,
        Vec::<String>::new(),
        "the busy issue's listing is empty"
    );
    let stats = client
        .get_item()
        .table_name(&table)
        .set_key(Some(keys::repo_stats(id)))
        .consistent_read(true)
        .send()
        .await
        .expect("read the counters item");
    assert!(
        !stats.item().is_some_and(|i| i.contains_key("purging")),
        "no deleted issue is still being cleaned up: {stats:?}"
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
    let id = api
        .repo_id(&owner, &format!("/api/v1/repos/{}/{repo}", owner.name))
        .await;
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
