//! Pull-request records, issue labels and dependencies over HTTP; the
//! pull-request list and edits in their own modules.

mod edit;
mod edit_guards;
mod list;

use api_tests::{Api, Auth, IssueRepo, Reply, TestUser};
use serde_json::{Value, json};

/// Opens a pull request `head` → `main` in `r` as `who`; its number.
async fn open_pull(r: &IssueRepo, who: &TestUser, title: &str, extra: Value) -> i64 {
    let mut body = json!({"title": title, "head": title.replace(' ', "-"), "base": "main"});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    let got = r
        .api
        .call(
            "POST",
            &format!("{}/pulls", r.repo_path),
            Auth::Token(&who.token),
            Some(body.clone()),
        )
        .await;
    assert_eq!(got.status, 201, "open {body}: {:?}", got.body);
    got.body["number"].as_i64().expect("a number")
}

/// `PATCH /pulls/{n}` as `who`.
async fn patch_pull(r: &IssueRepo, who: &TestUser, n: i64, body: Value) -> Reply {
    let path = format!("{}/pulls/{n}", r.repo_path);
    r.api
        .call("PATCH", &path, Auth::Token(&who.token), Some(body))
        .await
}

/// A pull request without its ends' `repo`, which renders the repository
/// for the caller (`permissions`): what two callers' answers share.
fn sans_repo(mut pr: Value) -> Value {
    for end in ["base", "head"] {
        if let Some(o) = pr[end].as_object_mut() {
            o.remove("repo");
        }
    }
    pr
}

/// `GET /pulls/{n}` as the owner.
async fn get_pull(r: &IssueRepo, n: i64) -> Value {
    let path = format!("{}/pulls/{n}", r.repo_path);
    let got = r
        .api
        .call("GET", &path, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(got.status, 200, "GET {path}: {:?}", got.body);
    got.body
}

/// `GET /pulls?{query}` with `auth`.
async fn list_pulls(r: &IssueRepo, auth: Auth<'_>, query: &str) -> Reply {
    // Past an unfiltered first page, listings read the index, which trails
    // writes by the stream's delay.
    api_tests::settle().await;
    let path = format!("{}/pulls?{query}", r.repo_path);
    r.api.call("GET", &path, auth, None).await
}

async fn setup() -> (Api, TestUser, TestUser, String, String) {
    let api = Api::from_env();
    let owner = api.new_user("pown").await;
    let dev = api.new_user("pdev").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    api.add_collaborator(&owner, &owner.name, &repo, &dev.name, "write")
        .await;
    let path = format!("/api/v1/repos/{}/{repo}", owner.name);
    (api, owner, dev, repo, path)
}

#[tokio::test]
async fn pull_requests_share_numbers_merge_and_reviews() {
    let (api, owner, dev, _, path) = setup().await;
    let issue = api
        .call(
            "POST",
            &format!("{path}/issues"),
            Auth::Token(&dev.token),
            Some(json!({"title": "bug"})),
        )
        .await;
    assert_eq!(issue.body["number"], 1);
    let body = json!({"title": "Fix bug", "head": "fix-1", "base": "main", "body": "fixes #1"});
    let pr = api
        .call(
            "POST",
            &format!("{path}/pulls"),
            Auth::Token(&dev.token),
            Some(body),
        )
        .await;
    assert_eq!(pr.status, 201, "{:?}", pr.body);
    assert_eq!(
        pr.body["number"], 2,
        "issues and pull requests share one sequence"
    );
    assert_eq!(
        (
            pr.body["head"]["ref"].as_str(),
            pr.body["base"]["ref"].as_str()
        ),
        (Some("fix-1"), Some("main"))
    );
    assert_eq!(
        (pr.body["merged"].as_bool(), pr.body["state"].as_str()),
        (Some(false), Some("open"))
    );
    assert!(pr.body["html_url"].as_str().unwrap().ends_with("/pulls/2"));

    // As an issue, it carries pull_request metadata and the /pulls/ html_url.
    let as_issue = api
        .call("GET", &format!("{path}/issues/2"), Auth::None, None)
        .await;
    assert_eq!(as_issue.body["pull_request"]["merged"], false);
    assert!(
        as_issue.body["html_url"]
            .as_str()
            .unwrap()
            .ends_with("/pulls/2")
    );
    assert!(
        as_issue.body["url"]
            .as_str()
            .unwrap()
            .ends_with("/issues/2")
    );
    assert_eq!(
        api.call("GET", &format!("{path}/pulls/1"), Auth::None, None)
            .await
            .status,
        404,
        "issue 1 is not a pull request"
    );

    for bad in [
        json!({"title": "x", "head": "a", "base": "a"}),
        json!({"title": "x", "head": "a b", "base": "main"}),
        json!({"title": "x", "base": "main"}),
    ] {
        assert_eq!(
            api.call(
                "POST",
                &format!("{path}/pulls"),
                Auth::Token(&dev.token),
                Some(bad.clone())
            )
            .await
            .status,
            422,
            "{bad}"
        );
    }

    // Review requests and reviews.
    let req = api
        .call(
            "POST",
            &format!("{path}/pulls/2/requested_reviewers"),
            Auth::Token(&dev.token),
            Some(json!({"reviewers": [owner.name]})),
        )
        .await;
    assert_eq!(req.status, 201, "{:?}", req.body);
    assert_eq!(req.body[0]["state"], "REQUEST_REVIEW");
    let got = api
        .call("GET", &format!("{path}/pulls/2"), Auth::None, None)
        .await;
    assert_eq!(
        got.body["requested_reviewers"][0]["login"],
        owner.name.as_str()
    );
    let bad = api
        .call(
            "POST",
            &format!("{path}/pulls/2/reviews"),
            Auth::Token(&owner.token),
            Some(json!({"event": "LGTM"})),
        )
        .await;
    assert_eq!(bad.status, 422);
    let own = api
        .call(
            "POST",
            &format!("{path}/pulls/2/reviews"),
            Auth::Token(&dev.token),
            Some(json!({"event": "APPROVED"})),
        )
        .await;
    assert_eq!(own.status, 422, "no approving your own pull request");
    let ok = api
        .call(
            "POST",
            &format!("{path}/pulls/2/reviews"),
            Auth::Token(&owner.token),
            Some(json!({"event": "APPROVED", "body": "ship it"})),
        )
        .await;
    assert_eq!(
        (ok.status, ok.body["state"].as_str()),
        (200, Some("APPROVED"))
    );
    let got = api
        .call("GET", &format!("{path}/pulls/2"), Auth::None, None)
        .await;
    assert_eq!(
        got.body["requested_reviewers"],
        json!([]),
        "reviewing fulfils the request"
    );

    // Merge: closes it; a second merge is refused; its state is frozen.
    // Gitea's merge check: 404 until merged, 204 after; an issue is a 404.
    let merged = |n: i64| {
        let api = &api;
        let path = path.clone();
        async move {
            api.call("GET", &format!("{path}/pulls/{n}/merge"), Auth::None, None)
                .await
                .status
        }
    };
    assert_eq!(merged(2).await, 404, "not merged yet");
    assert_eq!(merged(1).await, 404, "an issue");
    let reader = api.new_user("prd").await;
    assert_eq!(
        api.call(
            "POST",
            &format!("{path}/pulls/2/merge"),
            Auth::Token(&reader.token),
            Some(json!({"Do": "merge"}))
        )
        .await
        .status,
        403
    );
    let m = api
        .call(
            "POST",
            &format!("{path}/pulls/2/merge"),
            Auth::Token(&dev.token),
            Some(json!({"Do": "merge"})),
        )
        .await;
    assert_eq!(m.status, 200, "{:?}", m.body);
    let got = api
        .call("GET", &format!("{path}/pulls/2"), Auth::None, None)
        .await;
    assert_eq!(
        (got.body["merged"].as_bool(), got.body["state"].as_str()),
        (Some(true), Some("closed"))
    );
    assert!(got.body["merged_at"].is_string());
    assert_eq!(merged(2).await, 204, "merged");
    assert_eq!(
        api.call(
            "POST",
            &format!("{path}/pulls/2/merge"),
            Auth::Token(&dev.token),
            None
        )
        .await
        .status,
        405
    );
    let reopen = api
        .call(
            "PATCH",
            &format!("{path}/issues/2"),
            Auth::Token(&dev.token),
            Some(json!({"state": "open"})),
        )
        .await;
    assert_eq!(reopen.status, 412, "{:?}", reopen.body);
    let repo = api.call("GET", &path, Auth::None, None).await;
    assert_eq!(
        (
            repo.body["open_issues_count"].as_i64(),
            repo.body["open_pr_counter"].as_i64()
        ),
        (Some(1), Some(0))
    );
}

#[tokio::test]
async fn issue_labels_by_id_and_name() {
    let (api, owner, dev, _, path) = setup().await;
    let mk = |name: &str| json!({"name": name, "color": "#00aabb"});
    let bug = api
        .call(
            "POST",
            &format!("{path}/labels"),
            Auth::Token(&owner.token),
            Some(mk("bug")),
        )
        .await
        .body["id"]
        .as_i64()
        .unwrap();
    api.call(
        "POST",
        &format!("{path}/labels"),
        Auth::Token(&owner.token),
        Some(mk("ui")),
    )
    .await;
    api.call(
        "POST",
        &format!("{path}/issues"),
        Auth::Token(&dev.token),
        Some(json!({"title": "t"})),
    )
    .await;
    let labels = format!("{path}/issues/1/labels");
    let r = api
        .call(
            "POST",
            &labels,
            Auth::Token(&dev.token),
            Some(json!({"labels": [bug]})),
        )
        .await;
    assert_eq!((r.status, r.body.as_array().map(Vec::len)), (200, Some(1)));
    let r = api
        .call(
            "POST",
            &labels,
            Auth::Token(&dev.token),
            Some(json!({"labels": ["ui", bug]})),
        )
        .await;
    assert_eq!(
        r.body.as_array().map(Vec::len),
        Some(2),
        "adding is idempotent per label"
    );
    let r = api
        .call(
            "PUT",
            &labels,
            Auth::Token(&dev.token),
            Some(json!({"labels": ["ui"]})),
        )
        .await;
    assert_eq!(r.body[0]["name"], "ui");
    assert_eq!(
        api.call(
            "POST",
            &labels,
            Auth::Token(&dev.token),
            Some(json!({"labels": ["nope"]}))
        )
        .await
        .status,
        422
    );
    let stranger = api.new_user("pst").await;
    assert_eq!(
        api.call(
            "POST",
            &labels,
            Auth::Token(&stranger.token),
            Some(json!({"labels": ["ui"]}))
        )
        .await
        .status,
        403
    );
    assert_eq!(
        api.call("DELETE", &labels, Auth::Token(&dev.token), None)
            .await
            .status,
        204
    );
    let issue = api
        .call("GET", &format!("{path}/issues/1"), Auth::None, None)
        .await;
    assert_eq!(issue.body["labels"], json!([]));
}

#[tokio::test]
async fn dependencies_across_repositories() {
    let (api, owner, dev, repo, path) = setup().await;
    let other = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let other_path = format!("/api/v1/repos/{}/{other}", owner.name);
    api.call(
        "POST",
        &format!("{path}/issues"),
        Auth::Token(&dev.token),
        Some(json!({"title": "dependent"})),
    )
    .await;
    api.call(
        "POST",
        &format!("{other_path}/issues"),
        Auth::Token(&owner.token),
        Some(json!({"title": "blocker"})),
    )
    .await;
    let meta = json!({"owner": owner.name, "repo": other, "index": 1});
    let add = api
        .call(
            "POST",
            &format!("{path}/issues/1/dependencies"),
            Auth::Token(&dev.token),
            Some(meta.clone()),
        )
        .await;
    assert_eq!((add.status, add.body["number"].as_i64()), (201, Some(1)));
    assert_eq!(
        api.call(
            "POST",
            &format!("{path}/issues/1/dependencies"),
            Auth::Token(&dev.token),
            Some(meta.clone())
        )
        .await
        .status,
        422,
        "duplicate"
    );
    let back = json!({"owner": owner.name, "repo": repo, "index": 1});
    let circ = api
        .call(
            "POST",
            &format!("{other_path}/issues/1/dependencies"),
            Auth::Token(&owner.token),
            Some(back.clone()),
        )
        .await;
    assert_eq!(circ.status, 422, "circular");

    let list = api
        .call(
            "GET",
            &format!("{path}/issues/1/dependencies"),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(
        (list.status, list.header("x-total-count")),
        (200, Some("1"))
    );
    assert_eq!(list.body[0]["repository"]["name"], other.as_str());
    let blocks = api
        .call(
            "GET",
            &format!("{other_path}/issues/1/blocks"),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(blocks.body[0]["title"], "dependent");

    let close = api
        .call(
            "PATCH",
            &format!("{path}/issues/1"),
            Auth::Token(&dev.token),
            Some(json!({"state": "closed"})),
        )
        .await;
    assert_eq!(close.status, 412);
    // Removing through the blocker's side.
    let rm = api
        .call(
            "DELETE",
            &format!("{other_path}/issues/1/blocks"),
            Auth::Token(&owner.token),
            Some(back),
        )
        .await;
    assert_eq!(rm.status, 201, "{:?}", rm.body);
    assert_eq!(
        api.call(
            "GET",
            &format!("{path}/issues/1/dependencies"),
            Auth::None,
            None
        )
        .await
        .header("x-total-count"),
        Some("0")
    );
    let close = api
        .call(
            "PATCH",
            &format!("{path}/issues/1"),
            Auth::Token(&dev.token),
            Some(json!({"state": "closed"})),
        )
        .await;
    assert_eq!(close.body["state"], "closed");
    assert_eq!(
        api.call(
            "DELETE",
            &format!("{path}/issues/1/dependencies"),
            Auth::Token(&dev.token),
            Some(meta)
        )
        .await
        .status,
        404
    );

    // Disabled in the repository settings: 404.
    api.call(
        "PATCH",
        &path,
        Auth::Token(&owner.token),
        Some(json!({"internal_tracker": {"enable_issue_dependencies": false}})),
    )
    .await;
    assert_eq!(
        api.call(
            "GET",
            &format!("{path}/issues/1/dependencies"),
            Auth::None,
            None
        )
        .await
        .status,
        404
    );
    let _: Value = Value::Null;
}
