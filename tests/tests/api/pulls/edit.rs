//! `PATCH /repos/{owner}/{repo}/pulls/{index}`: Gitea's
//! `EditPullRequestOption` under the issue edit's rules (the poster's
//! fields and the writers'), 201 with the `PullRequest`, the merged and
//! base rules. Bad input, who may edit and counters under concurrent
//! edits are in `edit_guards.rs`.

use api_tests::{Auth, IssueRepo, issue_repo};
use serde_json::{Value, json};

use super::{get_pull, list_pulls, open_pull, patch_pull, sans_repo};

/// Creates a repository label; its id.
pub(super) async fn label(r: &IssueRepo, name: &str) -> i64 {
    let path = format!("{}/labels", r.repo_path);
    let body = json!({"name": name, "color": "#ee0701"});
    let got = r
        .api
        .call("POST", &path, Auth::Token(&r.owner.token), Some(body))
        .await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    got.body["id"].as_i64().unwrap()
}

/// The label names a pull request shows.
pub(super) fn label_names(pr: &Value) -> Vec<&str> {
    pr["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_poster_edits_text_and_state_writers_the_rest() {
    let r = issue_repo(false).await;
    let ms = r.milestone("v1").await;
    let bug = label(&r, "bug").await;
    // A reader opens it, and may change its title, body and state only.
    let n = open_pull(&r, &r.reader, "feat", json!({"body": "first"})).await;
    let asked = json!({"title": "Feature", "body": "second", "state": "closed",
        "labels": [bug], "milestone": ms, "assignees": [r.writer.name],
        "due_date": "2030-01-01T00:00:00Z"});
    let got = patch_pull(&r, &r.reader, n, asked).await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    assert_eq!(
        (
            got.body["title"].as_str(),
            got.body["body"].as_str(),
            got.body["state"].as_str()
        ),
        (Some("Feature"), Some("second"), Some("closed"))
    );
    assert!(got.body["closed_at"].is_string());
    for field in ["milestone", "assignees", "due_date"] {
        assert_eq!(got.body[field], Value::Null, "{field} is a writer's field");
    }
    assert_eq!(got.body["labels"], json!([]));
    // The answer is what is stored.
    assert_eq!(sans_repo(got.body), sans_repo(get_pull(&r, n).await));
    assert_eq!(r.open_count().await, (0, 0));
    // The base is the poster's too (once reopened, as the state goes first).
    let got = patch_pull(&r, &r.reader, n, json!({"state": "open", "base": "dev"})).await;
    assert_eq!(
        (got.status, got.body["base"]["ref"].as_str()),
        (201, Some("dev"))
    );
    assert_eq!(r.open_count().await, (0, 1));

    // A writer sets the rest.
    let asked = json!({"state": "open", "labels": [bug], "milestone": ms,
        "assignees": [r.writer.name, r.reader.name], "due_date": "2030-01-01T10:00:00-03:00"});
    let got = patch_pull(&r, &r.writer, n, asked).await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    assert_eq!(label_names(&got.body), ["bug"]);
    assert_eq!(got.body["milestone"]["id"], ms);
    assert_eq!(got.body["milestone"]["open_issues"], 1);
    assert_eq!(got.body["assignees"].as_array().unwrap().len(), 2);
    assert_eq!(got.body["due_date"], "2030-01-02T02:59:59Z");
    assert_eq!(got.body["closed_at"], Value::Null);
    assert_eq!(sans_repo(got.body), sans_repo(get_pull(&r, n).await));
    assert_eq!(r.counts(ms).await, (1, 0));
    assert_eq!(r.open_count().await, (0, 1));
    // As an issue, the same record.
    let as_issue = r.get(n).await;
    assert_eq!(
        (
            as_issue["title"].as_str(),
            as_issue["milestone"]["id"].as_i64()
        ),
        (Some("Feature"), Some(ms))
    );

    // `labels` replaces them all; [] clears; `assignees` [] clears.
    let got = patch_pull(&r, &r.writer, n, json!({"labels": [], "assignees": []})).await;
    assert_eq!(
        (got.body["labels"].clone(), got.body["assignees"].clone()),
        (json!([]), Value::Null)
    );
    // Milestone 0 changes nothing here (Gitea's reading); the issue route
    // removes it.
    let got = patch_pull(&r, &r.writer, n, json!({"milestone": 0})).await;
    assert_eq!(got.body["milestone"]["id"], ms);
    let path = format!("{}/{n}", r.base);
    let removed = r
        .api
        .call(
            "PATCH",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"milestone": 0})),
        )
        .await;
    assert_eq!(removed.body["milestone"], Value::Null);
    assert_eq!(r.counts(ms).await, (0, 0));
    // A repository administrator and a site administrator may edit too.
    let got = patch_pull(&r, &r.owner, n, json!({"title": "by owner"})).await;
    assert_eq!(
        (got.status, got.body["title"].as_str()),
        (201, Some("by owner"))
    );
    let admin = r.api.admin_token.clone();
    let got = r
        .api
        .call(
            "PATCH",
            &format!("{}/pulls/{n}", r.repo_path),
            Auth::Token(&admin),
            Some(json!({"title": "by admin"})),
        )
        .await;
    assert_eq!(
        (got.status, got.body["title"].as_str()),
        (201, Some("by admin"))
    );
}

#[tokio::test]
async fn zero_values_from_gitea_s_go_client_change_nothing() {
    let r = issue_repo(false).await;
    let ms = r.milestone("keep").await;
    let bug = label(&r, "bug").await;
    let extra = json!({"milestone": ms, "labels": [bug], "assignees": [r.writer.name],
        "due_date": "2030-05-05T00:00:00Z", "body": "kept"});
    let n = open_pull(&r, &r.writer, "go", extra).await;
    let before = sans_repo(get_pull(&r, n).await);
    // The Go SDK's EditPullRequestOption, only the title set.
    let sdk = json!({"title": "Go edit", "body": null, "base": "", "assignee": "",
        "assignees": null, "milestone": 0, "labels": null, "state": null,
        "due_date": null, "unset_due_date": null, "allow_maintainer_edit": null});
    let got = patch_pull(&r, &r.writer, n, sdk).await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    let mut want = before.clone();
    want["title"] = json!("Go edit");
    want["updated_at"] = got.body["updated_at"].clone();
    assert_eq!(sans_repo(got.body), want, "only the title changed");
    assert_eq!(sans_repo(get_pull(&r, n).await), want);
    // An empty object changes nothing at all.
    let got = patch_pull(&r, &r.writer, n, json!({})).await;
    assert_eq!((got.status, sans_repo(got.body)), (201, want));
}

#[tokio::test]
async fn state_rules_merged_pull_requests_and_counters() {
    let r = issue_repo(false).await;
    let ms = r.milestone("s").await;
    let n = open_pull(&r, &r.writer, "st", json!({"milestone": ms})).await;
    let b = open_pull(&r, &r.writer, "blocker", json!({})).await;
    assert_eq!(r.open_count().await, (0, 2));

    let got = patch_pull(&r, &r.writer, n, json!({"state": "merged"})).await;
    assert_eq!((got.status, got.message()), (412, "unknown state: merged"));
    let got = patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    assert_eq!(
        (got.status, got.body["state"].as_str()),
        (201, Some("closed"))
    );
    assert_eq!((r.open_count().await, r.counts(ms).await), ((0, 1), (0, 1)));
    // Closing twice counts once; reopening moves the counters back.
    patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    assert_eq!((r.open_count().await, r.counts(ms).await), ((0, 1), (0, 1)));
    patch_pull(&r, &r.writer, n, json!({"state": "open"})).await;
    assert_eq!((r.open_count().await, r.counts(ms).await), ((0, 2), (1, 0)));

    // Open dependencies keep it open.
    let repo_name = r.repo_path.rsplit('/').next().unwrap();
    let dep = json!({"owner": r.owner.name, "repo": repo_name, "index": b});
    let linked = r
        .api
        .call(
            "POST",
            &format!("{}/{n}/dependencies", r.base),
            Auth::Token(&r.writer.token),
            Some(dep),
        )
        .await;
    assert_eq!(linked.status, 201, "{:?}", linked.body);
    let got = patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    assert_eq!(
        (got.status, got.message()),
        (
            412,
            "cannot close this issue or pull request because it still has open dependencies"
        )
    );
    assert_eq!(get_pull(&r, n).await["state"], "open");

    // Merged: its state is frozen, whatever is asked; other fields change,
    // and a new base is ignored, as in Gitea.
    let merge = format!("{}/pulls/{b}/merge", r.repo_path);
    let m = r
        .api
        .call("POST", &merge, Auth::Token(&r.writer.token), None)
        .await;
    assert_eq!(m.status, 200);
    assert_eq!(r.open_count().await, (0, 1));
    let merged_msg = "cannot change state of this pull request, it was already merged";
    for state in ["open", "closed", "bogus"] {
        let got = patch_pull(&r, &r.writer, b, json!({"state": state, "title": "no"})).await;
        assert_eq!((got.status, got.message()), (412, merged_msg), "{state}");
    }
    let got = patch_pull(
        &r,
        &r.writer,
        b,
        json!({"title": "merged, renamed", "base": "elsewhere"}),
    )
    .await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    assert_eq!(
        (
            got.body["title"].as_str(),
            got.body["base"]["ref"].as_str(),
            got.body["merged"].as_bool()
        ),
        (Some("merged, renamed"), Some("main"), Some(true))
    );
    assert_eq!(r.open_count().await, (0, 1));
    // The blocker is merged (closed): it closes now.
    let got = patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    assert_eq!((r.open_count().await, r.counts(ms).await), ((0, 0), (0, 1)));
    let page = list_pulls(&r, Auth::None, "state=closed").await;
    assert_eq!(page.total(), Some(2));
}

#[tokio::test]
async fn base_branch_rules() {
    let r = issue_repo(false).await;
    let n = open_pull(&r, &r.writer, "feat", json!({})).await;
    let got = patch_pull(&r, &r.writer, n, json!({"base": "dev"})).await;
    assert_eq!(
        (got.status, got.body["base"]["ref"].as_str()),
        (201, Some("dev"))
    );
    assert_eq!(got.body["head"]["ref"], "feat");
    for (base, status, message) in [
        ("feat", 422, "head and base must be different branches"),
        ("a b", 422, "base: must be a branch name (got \"a b\")"),
    ] {
        let got = patch_pull(&r, &r.writer, n, json!({"base": base, "title": "changed?"})).await;
        assert_eq!((got.status, got.message()), (status, message), "{base}");
    }
    assert_eq!(
        patch_pull(&r, &r.writer, n, json!({"base": ""})).await.body["base"]["ref"],
        "dev",
        "an empty base changes nothing"
    );
    // Closed: the base stays; closing and moving at once changes nothing.
    let got = patch_pull(&r, &r.writer, n, json!({"state": "closed", "base": "x"})).await;
    assert_eq!(
        (got.status, got.message()),
        (
            422,
            "cannot change the base branch of a closed pull request"
        )
    );
    let now = get_pull(&r, n).await;
    assert_eq!(
        (
            now["state"].as_str(),
            now["base"]["ref"].as_str(),
            now["title"].as_str()
        ),
        (Some("open"), Some("dev"), Some("feat"))
    );
    patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    let got = patch_pull(&r, &r.writer, n, json!({"base": "x"})).await;
    assert_eq!(got.status, 422, "{:?}", got.body);
    let got = patch_pull(&r, &r.writer, n, json!({"base": "dev"})).await;
    assert_eq!(got.status, 201, "the same base is no change");
    // Reopening and moving in one request works (the state goes first).
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"state": "open", "base": "release"}),
    )
    .await;
    assert_eq!(
        (
            got.status,
            got.body["state"].as_str(),
            got.body["base"]["ref"].as_str()
        ),
        (201, Some("open"), Some("release"))
    );
    // The list filters on the new base.
    let page = list_pulls(&r, Auth::None, "base_branch=release").await;
    assert_eq!(page.total(), Some(1));
}

#[tokio::test]
async fn deadlines() {
    let r = issue_repo(false).await;
    let n = open_pull(&r, &r.reader, "due", json!({})).await;
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"due_date": "2030-03-04T05:06:07+09:00"}),
    )
    .await;
    assert_eq!(
        (got.status, got.body["due_date"].as_str()),
        (201, Some("2030-03-04T14:59:59Z"))
    );
    // null alone changes nothing (Gitea's Go client sends it every time).
    let got = patch_pull(&r, &r.writer, n, json!({"due_date": null})).await;
    assert_eq!(
        (got.status, got.body["due_date"].as_str()),
        (201, Some("2030-03-04T14:59:59Z"))
    );
    let got = patch_pull(&r, &r.writer, n, json!({"unset_due_date": false})).await;
    assert_eq!(
        (got.status, got.message()),
        (400, "The due_date cannot be empty")
    );
    let got = patch_pull(&r, &r.writer, n, json!({"due_date": "soon"})).await;
    assert_eq!(got.status, 422, "{:?}", got.body);
    assert!(got.message().starts_with("due_date"), "{}", got.message());
    // The poster is not a writer: the deadline is ignored, as for issues.
    let got = patch_pull(&r, &r.reader, n, json!({"unset_due_date": true})).await;
    assert_eq!(
        (got.status, got.body["due_date"].as_str()),
        (201, Some("2030-03-04T14:59:59Z"))
    );
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"unset_due_date": true, "due_date": "2031-01-01T00:00:00Z"}),
    )
    .await;
    assert_eq!(
        (got.status, got.body["due_date"].clone()),
        (201, Value::Null)
    );
    assert_eq!(get_pull(&r, n).await["due_date"], Value::Null);
}

#[tokio::test]
async fn maintainer_edits_are_the_poster_s_choice() {
    let r = issue_repo(false).await;
    let n = open_pull(&r, &r.reader, "mine", json!({})).await;
    assert_eq!(get_pull(&r, n).await["allow_maintainer_edit"], false);
    let got = patch_pull(&r, &r.reader, n, json!({"allow_maintainer_edit": true})).await;
    assert_eq!(
        (got.status, got.body["allow_maintainer_edit"].as_bool()),
        (201, Some(true))
    );
    assert_eq!(get_pull(&r, n).await["allow_maintainer_edit"], true);
    // A writer who did not open it may not, and nothing else changes.
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"allow_maintainer_edit": false, "title": "w"}),
    )
    .await;
    assert_eq!(
        (got.status, got.message()),
        (403, "SetAllowEdits: user not allowed to do this action")
    );
    let now = get_pull(&r, n).await;
    assert_eq!(
        (
            now["allow_maintainer_edit"].as_bool(),
            now["title"].as_str()
        ),
        (Some(true), Some("mine"))
    );
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"allow_maintainer_edit": null, "title": "w"}),
    )
    .await;
    assert_eq!(got.status, 201, "null is no change");
}
