//! `GET /repos/{owner}/{repo}/issues`: every filter of the seed, kind
//! permissions, newest-first order, paging and Gitea's headers.

use api_tests::{Api, Auth, TestUser};
use serde_json::{Value, json};

struct World {
    api: Api,
    owner: TestUser,
    dev: TestUser,
    path: String,
}

impl World {
    async fn list(&self, query: &str) -> api_tests::Reply {
        // Filtered listings read the index, which trails writes by the
        // stream's delay.
        api_tests::settle().await;
        self.api
            .call(
                "GET",
                &format!("{}/issues{query}", self.path),
                Auth::Token(&self.owner.token),
                None,
            )
            .await
    }

    async fn numbers(&self, query: &str) -> Vec<i64> {
        let r = self.list(query).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        r.body
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["number"].as_i64().unwrap())
            .collect()
    }
}

/// Issues 1..=6 and pull requests 7, 8, with labels, milestones,
/// assignees, mentions and states spread over them.
async fn world() -> World {
    let api = Api::from_env();
    let owner = api.new_user("lown").await;
    let dev = api.new_user("ldev").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    api.add_collaborator(&owner, &owner.name, &repo, &dev.name, "write")
        .await;
    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    let t = Auth::Token(&owner.token);
    let label = |n: &str| json!({"name": n, "color": "#123456"});
    let bug = api
        .call("POST", &format!("{path}/labels"), t, Some(label("bug")))
        .await
        .body["id"]
        .clone();
    let ui = api
        .call("POST", &format!("{path}/labels"), t, Some(label("ui")))
        .await
        .body["id"]
        .clone();
    let m1 = api
        .call(
            "POST",
            &format!("{path}/milestones"),
            t,
            Some(json!({"title": "v1"})),
        )
        .await
        .body["id"]
        .clone();
    let m2 = api
        .call(
            "POST",
            &format!("{path}/milestones"),
            t,
            Some(json!({"title": "v2"})),
        )
        .await
        .body["id"]
        .clone();
    let issues = [
        json!({"title": "Crash on start", "labels": [bug], "milestone": m1}),
        json!({"title": "Button misaligned", "labels": [ui], "assignees": [dev.name]}),
        json!({"title": "Slow search", "body": "mentions @DEV-x? no: @".to_string() + &dev.name, "milestone": m2}),
        json!({"title": "Typo", "closed": true}),
        json!({"title": "Docs", "labels": [bug, ui]}),
        json!({"title": "Crash on exit", "milestone": m1, "closed": true}),
    ];
    for body in issues {
        let r = api
            .call("POST", &format!("{path}/issues"), t, Some(body.clone()))
            .await;
        assert_eq!(r.status, 201, "{body}: {:?}", r.body);
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    }
    let pr = |title: &str, head: &str| json!({"title": title, "head": head, "base": "main", "labels": [ui]});
    let d = Auth::Token(&dev.token);
    assert_eq!(
        api.call(
            "POST",
            &format!("{path}/pulls"),
            d,
            Some(pr("Fix crash", "fix"))
        )
        .await
        .status,
        201
    );
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(
        api.call(
            "POST",
            &format!("{path}/pulls"),
            d,
            Some(pr("Speed up", "fast"))
        )
        .await
        .status,
        201
    );
    World {
        api,
        owner,
        dev,
        path,
    }
}

#[tokio::test]
async fn filters_order_paging_and_headers() {
    let w = world().await;
    // Open by default, both kinds, newest first.
    assert_eq!(w.numbers("").await, [8, 7, 5, 3, 2, 1]);
    assert_eq!(w.numbers("?state=closed").await, [6, 4]);
    assert_eq!(w.numbers("?state=all").await, [8, 7, 6, 5, 4, 3, 2, 1]);
    assert_eq!(
        w.numbers("?state=weird").await.len(),
        6,
        "unknown state means open"
    );
    assert_eq!(w.numbers("?type=issues").await, [5, 3, 2, 1]);
    assert_eq!(w.numbers("?type=pulls").await, [8, 7]);
    assert_eq!(
        w.numbers("?type=other").await.len(),
        6,
        "unknown type means no filter"
    );
    // Labels: any of them; unknown names dropped; none known means no filter.
    assert_eq!(w.numbers("?labels=bug").await, [5, 1]);
    assert_eq!(w.numbers("?labels=bug,ui&type=issues").await, [5, 2, 1]);
    assert_eq!(w.numbers("?labels=bug,nope").await, [5, 1]);
    assert_eq!(w.numbers("?labels=nope").await.len(), 6);
    // Milestones by title, then by id.
    assert_eq!(w.numbers("?milestones=v1&state=all").await, [6, 1]);
    let ms = w
        .api
        .call(
            "GET",
            &format!("{}/milestones/v2", w.path),
            Auth::None,
            None,
        )
        .await
        .body["id"]
        .clone();
    assert_eq!(
        w.numbers(&format!("?milestones=v1,{ms}&state=all")).await,
        [6, 3, 1]
    );
    assert_eq!(w.numbers("?milestones=none-such").await.len(), 6);
    // Keyword: trimmed, case-insensitive, title or body; numbers match the number.
    assert_eq!(w.numbers("?q=%20CRASH%20&state=all").await, [7, 6, 1]);
    assert_eq!(w.numbers("?q=3").await, [3]);
    assert_eq!(
        w.numbers("?q=a%00b").await.len(),
        6,
        "a NUL makes the keyword empty"
    );
    // Users.
    assert_eq!(
        w.numbers(&format!("?created_by={}", w.dev.name)).await,
        [8, 7]
    );
    assert_eq!(
        w.numbers(&format!("?assigned_by={}", w.dev.name)).await,
        [2]
    );
    assert_eq!(
        w.numbers(&format!("?mentioned_by={}", w.dev.name.to_uppercase()))
            .await,
        [3]
    );
    for q in [
        "?created_by=ghost-nobody",
        "?assigned_by=ghost-nobody",
        "?mentioned_by=ghost-nobody",
    ] {
        assert_eq!(w.list(q).await.status, 404, "{q}");
    }
    // since / before on the update time, inclusive; unparsable is a 422.
    let all = w.list("?state=all").await;
    let updated = |n: i64| {
        all.body
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["number"] == n)
            .unwrap()["updated_at"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let enc = |s: String| s.replace('+', "%2B");
    assert_eq!(
        w.numbers(&format!("?state=all&since={}", enc(updated(6))))
            .await,
        [8, 7, 6]
    );
    assert_eq!(
        w.numbers(&format!("?state=all&before={}", enc(updated(2))))
            .await,
        [2, 1]
    );
    assert_eq!(w.list("?since=yesterday").await.status, 422);
    assert_eq!(w.list("?before=2024-01-01").await.status, 422);

    // Paging: X-Total-Count before paging; Link in Gitea's format.
    let r = w.list("?limit=2&page=2").await;
    assert_eq!(r.header("x-total-count"), Some("6"));
    let got: Vec<i64> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_i64().unwrap())
        .collect();
    assert_eq!(got, [5, 3]);
    let base = format!("{}{}/issues", w.api.base, w.path);
    assert_eq!(
        r.header("link").unwrap(),
        format!(
            "<{base}?limit=2&page=3>; rel=\"next\",<{base}?limit=2&page=3>; rel=\"last\",<{base}?limit=2&page=1>; rel=\"first\",<{base}?limit=2&page=1>; rel=\"prev\""
        )
    );
    assert_eq!(
        r.header("access-control-expose-headers"),
        Some("Link, X-Total-Count")
    );
    let past = w.list("?limit=2&page=9").await;
    assert_eq!(
        (past.body.clone(), past.header("x-total-count")),
        (json!([]), Some("6"))
    );
    assert!(past.header("link").unwrap().contains("rel=\"prev\""));
    let filtered = w.list("?labels=ui&limit=1").await;
    assert_eq!(filtered.header("x-total-count"), Some("4"));
    assert!(
        filtered
            .header("link")
            .unwrap()
            .contains("labels=ui&limit=1&page=2")
    );
    assert_eq!(w.list("?limit=500").await.body.as_array().unwrap().len(), 6);
    let _: Value = Value::Null;
}

#[tokio::test]
async fn kind_permissions() {
    let w = world().await;
    // Pull requests disabled: type=pulls is a 404, no type lists issues only.
    w.api
        .call(
            "PATCH",
            &w.path,
            Auth::Token(&w.owner.token),
            Some(json!({"has_pull_requests": false})),
        )
        .await;
    assert_eq!(w.list("?type=pulls").await.status, 404);
    assert_eq!(w.numbers("").await, [5, 3, 2, 1]);
    // Neither kind readable: 404.
    w.api
        .call(
            "PATCH",
            &w.path,
            Auth::Token(&w.owner.token),
            Some(json!({"has_issues": false})),
        )
        .await;
    assert_eq!(w.list("").await.status, 404);
    assert_eq!(w.list("?type=issues").await.status, 404);
}

#[tokio::test]
async fn private_repositories_and_unit_only_teams() {
    let api = Api::from_env();
    let owner = api.new_user("pown").await;
    let reviewer = api.new_user("prev").await;
    let org = api.new_org(&owner, "lorg", "public").await;
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), true)
        .await;
    let path = format!("/api/v1/repos/{org}/{repo}");
    let t = Auth::Token(&owner.token);
    api.call(
        "POST",
        &format!("{path}/issues"),
        t,
        Some(json!({"title": "secret issue"})),
    )
    .await;
    api.call(
        "POST",
        &format!("{path}/pulls"),
        t,
        Some(json!({"title": "secret pr", "head": "a", "base": "b"})),
    )
    .await;
    let team = api
        .call("POST", &format!("/api/v1/orgs/{org}/teams"), t, Some(json!({"name": "rev", "includes_all_repositories": true, "units_map": {"repo.pulls": "read"}})))
        .await;
    let id = team.body["id"].as_i64().unwrap();
    api.call(
        "PUT",
        &format!("/api/v1/teams/{id}/members/{}", reviewer.name),
        t,
        None,
    )
    .await;
    let r = api
        .call(
            "GET",
            &format!("{path}/issues"),
            Auth::Token(&reviewer.token),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let numbers: Vec<i64> = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["number"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [2], "only the readable kind");
    assert_eq!(r.header("x-total-count"), Some("1"));
    assert_eq!(
        api.call(
            "GET",
            &format!("{path}/issues?type=issues"),
            Auth::Token(&reviewer.token),
            None
        )
        .await
        .status,
        404
    );
    assert_eq!(
        api.call("GET", &format!("{path}/issues"), Auth::None, None)
            .await
            .status,
        404
    );
}
