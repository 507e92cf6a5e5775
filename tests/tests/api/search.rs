//! `GET /repos/issues/search` over HTTP: visibility across owners, orgs,
//! teams and private repositories, the caller-relative flags, owner and
//! team scoping, cross-repository label and milestone names, paging.

use api_tests::{Api, Auth, TestUser, unique};
use serde_json::json;

struct World {
    api: Api,
    owner: TestUser,
    member: TestUser,
    outsider: TestUser,
    org: String,
    mark: String,
}

impl World {
    /// Titles of matching issues (every fixture title holds `mark`).
    async fn titles(&self, auth: Auth<'_>, query: &str) -> Vec<String> {
        // Search reads the index, which trails writes by the stream's delay.
        api_tests::settle().await;
        let r = self
            .api
            .call(
                "GET",
                &format!(
                    "/api/v1/repos/issues/search?q={}&state=all{query}",
                    self.mark
                ),
                auth,
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        let mut t: Vec<String> = r
            .body
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                i["title"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches(&self.mark)
                    .trim()
                    .to_string()
            })
            .collect();
        t.sort();
        t
    }
}

async fn world() -> World {
    let api = Api::from_env();
    let (owner, member, outsider) = (
        api.new_user("sown").await,
        api.new_user("smem").await,
        api.new_user("sout").await,
    );
    let mark = unique("mk");
    let org = api.new_org(&owner, "sorg", "public").await;
    let hidden_org = api.new_org(&owner, "shid", "private").await;
    let o = Auth::Token(&owner.token);
    let mk = |repo: &str, private: bool| json!({"name": repo, "private": private});
    for (path, body) in [
        (format!("/api/v1/orgs/{org}/repos"), mk("pub", false)),
        (format!("/api/v1/orgs/{org}/repos"), mk("priv", true)),
        (
            format!("/api/v1/orgs/{hidden_org}/repos"),
            mk("inside", false),
        ),
        ("/api/v1/user/repos".to_string(), mk("mine", true)),
    ] {
        assert_eq!(api.call("POST", &path, o, Some(body)).await.status, 201);
    }
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            o,
            Some(json!({"name": "all", "permission": "write", "includes_all_repositories": true})),
        )
        .await;
    let id = team.body["id"].as_i64().unwrap();
    api.call(
        "PUT",
        &format!("/api/v1/teams/{id}/members/{}", member.name),
        o,
        None,
    )
    .await;
    // Labels and milestones with the same names in two repositories.
    for repo in ["pub", "priv"] {
        let base = format!("/api/v1/repos/{org}/{repo}");
        api.call(
            "POST",
            &format!("{base}/labels"),
            o,
            Some(json!({"name": "bug", "color": "#f00"})),
        )
        .await;
        api.call(
            "POST",
            &format!("{base}/milestones"),
            o,
            Some(json!({"title": "Q1"})),
        )
        .await;
    }
    let issue = |owner: &str, repo: &str, title: &str| {
        (
            format!("/api/v1/repos/{owner}/{repo}/issues"),
            title.to_string(),
        )
    };
    for (path, title) in [
        issue(&org, "pub", "public one"),
        issue(&org, "priv", "private one"),
        issue(&hidden_org, "inside", "hidden org one"),
        issue(&owner.name, "mine", "personal one"),
    ] {
        let r = api
            .call(
                "POST",
                &path,
                o,
                Some(json!({"title": format!("{mark} {title}")})),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    World {
        api,
        owner,
        member,
        outsider,
        org,
        mark,
    }
}

#[tokio::test]
async fn visibility() {
    let w = world().await;
    let admin = w.api.admin_token.clone();
    assert_eq!(w.titles(Auth::None, "").await, ["public one"]);
    assert_eq!(
        w.titles(Auth::Token(&w.outsider.token), "").await,
        ["public one"]
    );
    assert_eq!(
        w.titles(Auth::Token(&w.member.token), "").await,
        ["private one", "public one"]
    );
    assert_eq!(
        w.titles(Auth::Token(&w.owner.token), "").await,
        [
            "hidden org one",
            "personal one",
            "private one",
            "public one"
        ]
    );
    assert_eq!(
        w.titles(Auth::Token(&admin), "").await,
        [
            "hidden org one",
            "personal one",
            "private one",
            "public one"
        ]
    );
    let public_only = w
        .api
        .token(
            &w.member.name,
            &w.member.password,
            &["read:issue", "public-only"],
        )
        .await;
    assert_eq!(
        w.titles(Auth::Token(&public_only), "").await,
        ["public one"]
    );
    // Nothing matches: an empty list.
    let r = w
        .api
        .call(
            "GET",
            &format!("/api/v1/repos/issues/search?q={}-nothing", w.mark),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(
        (r.status, r.body.clone(), r.header("x-total-count")),
        (200, json!([]), Some("0"))
    );
}

#[tokio::test]
async fn owner_team_and_errors() {
    let w = world().await;
    let auth = Auth::Token(&w.member.token);
    assert_eq!(
        w.titles(auth, &format!("&owner={}", w.org)).await,
        ["private one", "public one"]
    );
    assert_eq!(
        w.titles(auth, &format!("&owner={}", w.owner.name)).await,
        Vec::<String>::new(),
        "only repositories owned by it"
    );
    assert_eq!(
        w.titles(auth, &format!("&owner={}&team=ALL", w.org)).await,
        ["private one", "public one"]
    );
    let err = |q: String| {
        let api = &w.api;
        async move {
            api.call(
                "GET",
                &format!("/api/v1/repos/issues/search?{q}"),
                Auth::None,
                None,
            )
            .await
        }
    };
    let r = err("owner=nobody-qq7".into()).await;
    assert_eq!(r.status, 400);
    assert!(r.message().starts_with("user does not exist"));
    let r = err("team=all".into()).await;
    assert_eq!(
        (r.status, r.message()),
        (400, "owner organisation is required for filtering on team")
    );
    assert_eq!(err(format!("owner={}&team=nope", w.org)).await.status, 400);
    assert_eq!(err("since=tomorrow".into()).await.status, 422);
    // The plain path (no filter but the owner) takes totals from counters.
    let r = w
        .api
        .call(
            "GET",
            &format!("/api/v1/repos/issues/search?owner={}&limit=1", w.org),
            auth,
            None,
        )
        .await;
    assert_eq!((r.status, r.header("x-total-count")), (200, Some("2")));
    assert_eq!(r.body.as_array().unwrap().len(), 1);
    assert!(r.header("link").unwrap().contains("rel=\"next\""));
}

#[tokio::test]
async fn caller_relative_flags_labels_and_milestones() {
    let w = world().await;
    let o = Auth::Token(&w.owner.token);
    let base = format!("/api/v1/repos/{}/pub", w.org);
    let body = json!({"title": format!("{} flagged", w.mark), "body": format!("cc @{}", w.member.name), "assignees": [w.member.name], "labels": []});
    assert_eq!(
        w.api
            .call("POST", &format!("{base}/issues"), o, Some(body))
            .await
            .status,
        201
    );
    let pr = json!({"title": format!("{} a change", w.mark), "head": "x", "base": "main"});
    let pr = w
        .api
        .call(
            "POST",
            &format!("{base}/pulls"),
            Auth::Token(&w.member.token),
            Some(pr),
        )
        .await;
    let n = pr.body["number"].as_i64().unwrap();
    w.api
        .call(
            "POST",
            &format!("{base}/pulls/{n}/requested_reviewers"),
            Auth::Token(&w.member.token),
            Some(json!({"reviewers": [w.owner.name]})),
        )
        .await;
    let m = Auth::Token(&w.member.token);
    assert_eq!(w.titles(m, "&assigned=true").await, ["flagged"]);
    assert_eq!(w.titles(m, "&mentioned=1").await, ["flagged"]);
    assert_eq!(w.titles(m, "&created=true").await, ["a change"]);
    assert_eq!(w.titles(o, "&review_requested=true").await, ["a change"]);
    assert!(w.titles(o, "&reviewed=true").await.is_empty());
    w.api
        .call(
            "POST",
            &format!("{base}/pulls/{n}/reviews"),
            o,
            Some(json!({"event": "COMMENT"})),
        )
        .await;
    assert_eq!(w.titles(o, "&reviewed=true").await, ["a change"]);
    assert!(w.titles(o, "&review_requested=true").await.is_empty());
    // Flags are ignored for anonymous callers.
    assert_eq!(w.titles(Auth::None, "&assigned=true").await.len(), 3);
    assert_eq!(w.titles(m, "&type=pulls").await, ["a change"]);

    // Label and milestone names match in every repository.
    for repo in ["pub", "priv"] {
        let path = format!("/api/v1/repos/{}/{repo}", w.org);
        let label = w
            .api
            .call("GET", &format!("{path}/labels"), o, None)
            .await
            .body[0]["id"]
            .clone();
        let ms = w
            .api
            .call("GET", &format!("{path}/milestones/Q1"), o, None)
            .await
            .body["id"]
            .clone();
        let issue = json!({"title": format!("{} tagged in {repo}", w.mark), "labels": [label], "milestone": ms});
        assert_eq!(
            w.api
                .call("POST", &format!("{path}/issues"), o, Some(issue))
                .await
                .status,
            201
        );
    }
    assert_eq!(
        w.titles(m, "&labels=bug").await,
        ["tagged in priv", "tagged in pub"]
    );
    assert_eq!(w.titles(Auth::None, "&labels=bug").await, ["tagged in pub"]);
    assert_eq!(
        w.titles(m, "&milestones=q1").await,
        ["tagged in priv", "tagged in pub"]
    );
    assert_eq!(
        w.titles(m, "&labels=nonexistent-label").await.len(),
        6,
        "unknown names mean no filter"
    );
}
