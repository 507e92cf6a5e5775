//! Tracked times and stopwatches over HTTP, as Gitea serves them: adding
//! (issues and pull requests), the three listings with their filters,
//! totals and paging, who may track, list and delete, the repository's
//! tracker settings, resets, the per-user cap, stopwatches, bad input, and
//! what a deleted issue or repository leaves. What is stored is read past
//! the API too.

use api_tests::{Auth, IssueRepo, Reply, TestUser, issue_repo};
use futures::future::join_all;
use serde_json::{Value, json};

fn times(r: &IssueRepo, index: i64) -> String {
    format!("{}/{index}/times", r.base)
}

async fn add(r: &IssueRepo, who: &TestUser, index: i64, body: Value) -> Reply {
    let path = times(r, index);
    r.api
        .call("POST", &path, Auth::Token(&who.token), Some(body))
        .await
}

/// Adds `secs` seconds as `who` (200 expected); the time's id.
async fn track(r: &IssueRepo, who: &TestUser, index: i64, secs: i64) -> i64 {
    let got = add(r, who, index, json!({ "time": secs })).await;
    assert_eq!(got.status, 200, "POST times: {:?}", got.body);
    got.body["id"].as_i64().expect("id")
}

async fn get(r: &IssueRepo, who: &TestUser, path: &str) -> Reply {
    r.api.call("GET", path, Auth::Token(&who.token), None).await
}

/// A listing as `who` sees it (200 expected).
async fn list(r: &IssueRepo, who: &TestUser, path: &str) -> Reply {
    let got = get(r, who, path).await;
    assert_eq!(got.status, 200, "GET {path}: {:?}", got.body);
    got
}

/// `(user_name, time)` of each time of a list, in order.
fn shown(v: &Value) -> Vec<(String, i64)> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|t| {
            let user = t["user_name"].as_str().unwrap().to_string();
            (user, t["time"].as_i64().unwrap())
        })
        .collect()
}

async fn send(r: &IssueRepo, method: &str, who: &TestUser, path: &str) -> Reply {
    r.api
        .call(method, path, Auth::Token(&who.token), None)
        .await
}

async fn settings(r: &IssueRepo, body: Value) {
    let got = r
        .api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(body),
        )
        .await;
    assert_eq!(got.status, 200, "PATCH repo: {:?}", got.body);
}

/// The sort keys of tracked-time items under `pk`.
async fn stored(pk: &str) -> Vec<String> {
    api_tests::items_under(pk, "TIME")
        .await
        .iter()
        .map(|i| i["sk"].as_s().unwrap().clone())
        .collect()
}

#[tokio::test]
async fn times_are_added_and_listed_three_ways() {
    let r = issue_repo(false).await;
    let one = r.api.new_issue(&r.owner, &r.repo_path, "first").await;
    let two = r.api.new_issue(&r.owner, &r.repo_path, "second").await;
    // A stated `created` orders the listings; a pull request takes times too.
    let body = json!({"time": 90, "created": "2020-01-02T03:04:05Z"});
    let got = add(&r, &r.writer, one, body).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let t = &got.body;
    assert_eq!(t["time"], 90);
    assert_eq!(t["created"], "2020-01-02T03:04:05Z");
    assert_eq!(t["user_name"], r.writer.name.as_str());
    assert!(t["user_id"].as_i64().unwrap() > 0);
    assert_eq!(t["issue"]["number"], one);
    assert_eq!(t["issue_id"], t["issue"]["id"]);
    track(&r, &r.writer, two, 30).await;
    let pull = json!({"title": "p", "head": "feature", "base": "main"});
    let pr = r
        .api
        .call(
            "POST",
            &format!("{}/pulls", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(pull),
        )
        .await;
    assert_eq!(pr.status, 201, "{:?}", pr.body);
    let pr = pr.body["number"].as_i64().unwrap();
    track(&r, &r.writer, pr, 5).await;
    track(&r, &r.owner, one, 60).await;

    let issue = list(&r, &r.owner, &times(&r, one)).await;
    assert_eq!(issue.total(), Some(2));
    let want = vec![(r.writer.name.clone(), 90), (r.owner.name.clone(), 60)];
    assert_eq!(shown(&issue.body), want, "oldest created first");
    let repo = list(&r, &r.owner, &format!("{}/times", r.repo_path)).await;
    assert_eq!(repo.total(), Some(4));
    assert_eq!(shown(&repo.body).len(), 4);
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(mine.total(), Some(3));
    let secs: Vec<i64> = shown(&mine.body).iter().map(|s| s.1).collect();
    assert_eq!(secs[0], 90);
    assert_eq!(secs.iter().sum::<i64>(), 125);
    // Paging: a page of one, with its Link.
    let page = list(
        &r,
        &r.owner,
        &format!("{}/times?limit=1&page=2", r.repo_path),
    )
    .await;
    assert_eq!((page.total(), shown(&page.body).len()), (Some(4), 1));
    assert!(
        page.header("link")
            .is_some_and(|l| l.contains("rel=\"next\""))
    );
    let past = list(
        &r,
        &r.owner,
        &format!("{}/times?limit=10&page=3", r.repo_path),
    )
    .await;
    assert_eq!((past.total(), shown(&past.body).len()), (Some(4), 0));
    // Anonymous callers are told to sign in.
    let anon = r.api.call("GET", &times(&r, one), Auth::None, None).await;
    assert_eq!(anon.status, 401);
}

#[tokio::test]
async fn times_listing_filters_follow_gitea() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "filters").await;
    settings(
        &r,
        json!({"internal_tracker": {"allow_only_contributors_to_track_time": false}}),
    )
    .await;
    for (who, secs, at) in [
        (&r.writer, 10, "2021-01-01T00:00:00Z"),
        (&r.reader, 20, "2022-01-01T00:00:00Z"),
        (&r.writer, 30, "2023-01-01T00:00:00+02:00"),
    ] {
        let got = add(&r, who, n, json!({"time": secs, "created": at})).await;
        assert_eq!(got.status, 200, "{:?}", got.body);
    }
    let repo_times = format!("{}/times", r.repo_path);
    // A reader sees their own only, asked or not; another's is 403.
    let own = list(&r, &r.reader, &repo_times).await;
    assert_eq!(shown(&own.body), vec![(r.reader.name.clone(), 20)]);
    assert_eq!(own.total(), Some(1));
    let other = get(
        &r,
        &r.reader,
        &format!("{repo_times}?user={}", r.writer.name),
    )
    .await;
    assert_eq!(other.status, 403, "{:?}", other.body);
    assert_eq!(
        other.message(),
        "query by user not allowed; not enough rights"
    );
    let issue_other = get(
        &r,
        &r.reader,
        &format!("{}?user={}", times(&r, n), r.writer.name),
    )
    .await;
    assert_eq!(issue_other.status, 403);
    // A writer filters on anyone; an unknown user is 404.
    let upper = r.reader.name.to_uppercase();
    let theirs = list(&r, &r.writer, &format!("{repo_times}?user={upper}")).await;
    assert_eq!(shown(&theirs.body), vec![(r.reader.name.clone(), 20)]);
    let nosuch = get(&r, &r.writer, &format!("{repo_times}?user=nosuchuser9")).await;
    assert_eq!(nosuch.status, 404, "{:?}", nosuch.body);
    // since / before: both included, on `created`.
    let window = "since=2022-01-01T00:00:00Z&before=2022-12-31T21:00:00Z";
    let w = list(&r, &r.owner, &format!("{repo_times}?{window}")).await;
    assert_eq!(
        (shown(&w.body), w.total()),
        (vec![(r.reader.name.clone(), 20)], Some(1))
    );
    let late = list(
        &r,
        &r.owner,
        &format!("{}?since=2022-06-01T00:00:00Z", times(&r, n)),
    )
    .await;
    assert_eq!(shown(&late.body), vec![(r.writer.name.clone(), 30)]);
    let empty = list(
        &r,
        &r.owner,
        &format!("{repo_times}?since=2030-01-01T00:00:00Z&before=2020-01-01T00:00:00Z"),
    )
    .await;
    assert_eq!((empty.total(), shown(&empty.body).len()), (Some(0), 0));
    let mine = list(
        &r,
        &r.writer,
        "/api/v1/user/times?before=2021-06-01T00:00:00Z",
    )
    .await;
    assert_eq!(shown(&mine.body), vec![(r.writer.name.clone(), 10)]);
    for bad in ["since=yesterday", "before=2024-01-01"] {
        for path in [
            &repo_times,
            &times(&r, n),
            &"/api/v1/user/times".to_string(),
        ] {
            let got = get(&r, &r.owner, &format!("{path}?{bad}")).await;
            assert_eq!(got.status, 422, "{path}?{bad}: {:?}", got.body);
        }
    }
}

#[tokio::test]
async fn times_who_may_track_and_the_tracker_settings() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "rules").await;
    let repo = list(&r, &r.owner, &r.repo_path).await.body;
    let tracker = &repo["internal_tracker"];
    assert_eq!(tracker["enable_time_tracker"], true);
    assert_eq!(tracker["allow_only_contributors_to_track_time"], true);
    // Only contributors: a reader who is neither poster nor assignee is 403.
    let refused = add(&r, &r.reader, n, json!({"time": 5})).await;
    assert_eq!((refused.status, &refused.body), (403, &Value::Null));
    // The issue's poster and assignees may.
    let own = r.api.new_issue(&r.reader, &r.repo_path, "mine").await;
    track(&r, &r.reader, own, 5).await;
    let assign = json!({"assignees": [r.reader.name]});
    assert_eq!(r.patch(&r.owner, n, assign).await.status, 201);
    track(&r, &r.reader, n, 6).await;
    let outsider = add(&r, &r.outsider, n, json!({"time": 5})).await;
    assert_eq!(outsider.status, 403);
    // Anyone who reads may once the setting is off.
    settings(
        &r,
        json!({"internal_tracker": {"allow_only_contributors_to_track_time": false}}),
    )
    .await;
    track(&r, &r.outsider, n, 7).await;
    // The tracker off: writes 400, the issue's listing 404, the repository's 400.
    settings(
        &r,
        json!({"internal_tracker": {"enable_time_tracker": false}}),
    )
    .await;
    let repo = list(&r, &r.owner, &r.repo_path).await.body;
    assert_eq!(repo["internal_tracker"]["enable_time_tracker"], false);
    assert_eq!(repo["internal_tracker"]["enable_issue_dependencies"], true);
    let off = add(&r, &r.owner, n, json!({"time": 5})).await;
    assert_eq!((off.status, off.message()), (400, "time tracking disabled"));
    assert_eq!(get(&r, &r.owner, &times(&r, n)).await.status, 404);
    let repo_times = get(&r, &r.owner, &format!("{}/times", r.repo_path)).await;
    assert_eq!(repo_times.status, 400);
    assert_eq!(
        send(&r, "DELETE", &r.owner, &times(&r, n)).await.status,
        400
    );
    let start = send(
        &r,
        "POST",
        &r.owner,
        &format!("{}/{n}/stopwatch/start", r.base),
    )
    .await;
    assert_eq!(start.status, 403);
    settings(
        &r,
        json!({"internal_tracker": {"enable_time_tracker": true}}),
    )
    .await;
    track(&r, &r.owner, n, 8).await;
    // A private repository hides its issues' times from outsiders.
    let p = issue_repo(true).await;
    let m = p.api.new_issue(&p.owner, &p.repo_path, "secret").await;
    let hidden = add(&p, &p.outsider, m, json!({"time": 5})).await;
    assert_eq!(hidden.status, 404);
    assert_eq!(get(&p, &p.outsider, &times(&p, m)).await.status, 404);
}

#[tokio::test]
async fn times_admins_track_for_others() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "for others").await;
    let body = json!({"time": 40, "user_name": r.writer.name});
    let got = add(&r, &r.owner, n, body).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    assert_eq!(got.body["user_name"], r.writer.name.as_str());
    let theirs = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(shown(&theirs.body), vec![(r.writer.name.clone(), 40)]);
    // A writer who is no admin names another in vain: the time is theirs.
    let body = json!({"time": 41, "user_name": r.owner.name});
    let got = add(&r, &r.writer, n, body).await;
    assert_eq!(got.body["user_name"], r.writer.name.as_str());
    let nosuch = add(
        &r,
        &r.owner,
        n,
        json!({"time": 1, "user_name": "nosuchuser7"}),
    )
    .await;
    assert_eq!(nosuch.status, 422, "{:?}", nosuch.body);
    assert!(nosuch.message().contains("user_name"), "{:?}", nosuch.body);
}

#[tokio::test]
async fn times_are_deleted_by_their_user_and_reset() {
    let r = issue_repo(false).await;
    let (n, m) = (
        r.api.new_issue(&r.owner, &r.repo_path, "deletes").await,
        r.api.new_issue(&r.owner, &r.repo_path, "other").await,
    );
    let id = track(&r, &r.writer, n, 10).await;
    let kept = track(&r, &r.owner, n, 20).await;
    let path = |i: i64, id: i64| format!("{}/{id}", times(&r, i));
    // Another user (even a repository owner) may not; the wrong issue is 404.
    assert_eq!(send(&r, "DELETE", &r.owner, &path(n, id)).await.status, 403);
    assert_eq!(
        send(&r, "DELETE", &r.writer, &path(m, id)).await.status,
        404
    );
    assert_eq!(
        send(&r, "DELETE", &r.writer, &path(n, 999_999_999))
            .await
            .status,
        404
    );
    assert_eq!(
        send(&r, "DELETE", &r.writer, &path(n, id)).await.status,
        204
    );
    assert_eq!(
        send(&r, "DELETE", &r.writer, &path(n, id)).await.status,
        404
    );
    // A site admin may delete anyone's.
    let by_admin = r
        .api
        .call("DELETE", &path(n, kept), r.api.admin(), None)
        .await;
    assert_eq!(by_admin.status, 204, "{:?}", by_admin.body);
    // Reset: the caller's times on the issue, and only theirs.
    for secs in [1, 2, 3] {
        track(&r, &r.writer, n, secs).await;
    }
    track(&r, &r.owner, n, 4).await;
    track(&r, &r.writer, m, 5).await;
    assert_eq!(
        send(&r, "DELETE", &r.writer, &times(&r, n)).await.status,
        204
    );
    assert_eq!(
        send(&r, "DELETE", &r.writer, &times(&r, n)).await.status,
        404
    );
    let left = list(&r, &r.owner, &times(&r, n)).await;
    assert_eq!(
        (shown(&left.body), left.total()),
        (vec![(r.owner.name.clone(), 4)], Some(1))
    );
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(
        (shown(&mine.body), mine.total()),
        (vec![(r.writer.name.clone(), 5)], Some(1))
    );
    // What is stored: one time of the owner and one of the writer, each in
    // its five listings and by id, and the counts.
    let repo_id = r.repo_id().await;
    let items = stored(&format!("REPO#{repo_id}")).await;
    let ids = items.iter().filter(|s| s.starts_with("TIMEID#")).count();
    assert_eq!(ids, 2, "{items:?}");
    let user = stored(&format!("OWNER#{}", r.writer.name.to_lowercase())).await;
    assert_eq!(
        user.iter().filter(|s| s.starts_with("TIMEU#E")).count(),
        1,
        "{user:?}"
    );
}

#[tokio::test]
async fn times_are_capped_per_user_and_issue_and_counted_exactly() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "cap").await;
    for round in 0..10 {
        let adds = (0..10).map(|i| add(&r, &r.writer, n, json!({"time": round * 10 + i + 1})));
        for got in join_all(adds).await {
            assert_eq!(got.status, 200, "{:?}", got.body);
        }
    }
    let over = add(&r, &r.writer, n, json!({"time": 1})).await;
    assert_eq!(over.status, 422, "{:?}", over.body);
    assert!(over.message().contains("at most 100"), "{:?}", over.body);
    // Another user still may.
    track(&r, &r.owner, n, 7).await;
    let all = list(&r, &r.owner, &format!("{}?limit=50", times(&r, n))).await;
    assert_eq!(all.total(), Some(101));
    // The reset removes all hundred within one request.
    assert_eq!(
        send(&r, "DELETE", &r.writer, &times(&r, n)).await.status,
        204
    );
    let left = list(&r, &r.owner, &times(&r, n)).await;
    assert_eq!(left.total(), Some(1));
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(mine.total(), Some(0));
    track(&r, &r.writer, n, 3).await;
}

#[tokio::test]
async fn times_stopwatches_start_stop_and_delete() {
    let r = issue_repo(false).await;
    let (n, m) = (
        r.api.new_issue(&r.owner, &r.repo_path, "watch one").await,
        r.api.new_issue(&r.owner, &r.repo_path, "watch two").await,
    );
    let sw = |i: i64, what: &str| format!("{}/{i}/stopwatch/{what}", r.base);
    let start = send(&r, "POST", &r.writer, &sw(n, "start")).await;
    assert_eq!((start.status, &start.body), (201, &Value::Null));
    let again = send(&r, "POST", &r.writer, &sw(n, "start")).await;
    assert_eq!(again.status, 409);
    assert_eq!(
        again.message(),
        "cannot start a stopwatch again if it already exists"
    );
    let running = list(&r, &r.writer, "/api/v1/user/stopwatches").await;
    assert_eq!(running.total(), Some(1));
    let w = &running.body[0];
    assert_eq!(
        (w["issue_index"].as_i64(), w["issue_title"].as_str()),
        (Some(n), Some("watch one"))
    );
    assert_eq!(w["repo_owner_name"], r.owner.name.as_str());
    assert!(w["seconds"].as_i64().unwrap() >= 0 && w["duration"].is_string());
    // Starting another stops the first: its time is tracked.
    assert_eq!(
        send(&r, "POST", &r.writer, &sw(m, "start")).await.status,
        201
    );
    let first = list(&r, &r.writer, &times(&r, n)).await;
    assert_eq!(first.total(), Some(1));
    let stop = send(&r, "POST", &r.writer, &sw(n, "stop")).await;
    assert_eq!(
        (stop.status, stop.message()),
        (409, "cannot stop/cancel a non existent stopwatch")
    );
    assert_eq!(
        send(&r, "POST", &r.writer, &sw(m, "stop")).await.status,
        201
    );
    assert_eq!(list(&r, &r.writer, &times(&r, m)).await.total(), Some(1));
    let none = list(&r, &r.writer, "/api/v1/user/stopwatches").await;
    assert_eq!(
        (none.total(), none.body.as_array().map(Vec::len)),
        (Some(0), Some(0))
    );
    // Delete drops it without a time; none running is 409.
    assert_eq!(
        send(&r, "DELETE", &r.writer, &sw(m, "delete")).await.status,
        409
    );
    assert_eq!(
        send(&r, "POST", &r.writer, &sw(m, "start")).await.status,
        201
    );
    assert_eq!(
        send(&r, "DELETE", &r.writer, &sw(m, "delete")).await.status,
        204
    );
    assert_eq!(list(&r, &r.writer, &times(&r, m)).await.total(), Some(1));
    // Stopwatches are for writers, poster or not.
    let own = r.api.new_issue(&r.reader, &r.repo_path, "reader's").await;
    assert_eq!(
        send(&r, "POST", &r.reader, &sw(own, "start")).await.status,
        403
    );
    // Concurrent stops track the time once.
    assert_eq!(
        send(&r, "POST", &r.writer, &sw(n, "start")).await.status,
        201
    );
    let stop = sw(n, "stop");
    let stops = join_all((0..4).map(|_| send(&r, "POST", &r.writer, &stop))).await;
    let ok = stops.iter().filter(|s| s.status == 201).count();
    assert_eq!(
        ok,
        1,
        "{:?}",
        stops.iter().map(|s| s.status).collect::<Vec<_>>()
    );
    assert_eq!(list(&r, &r.writer, &times(&r, n)).await.total(), Some(2));
}

#[tokio::test]
async fn times_refuse_bad_input_and_change_nothing() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "bad").await;
    for body in [
        json!({}),
        json!({"time": 0}),
        json!({"time": -5}),
        json!({"time": "60"}),
        json!({"time": 1.5}),
        json!({"time": 400_000_000}),
        json!({"time": 5, "created": "yesterday"}),
        json!({"time": 5, "created": "1960-01-01T00:00:00Z"}),
        json!({"time": 5, "user": "x"}),
        json!([1]),
    ] {
        let got = add(&r, &r.owner, n, body.clone()).await;
        assert_eq!(got.status, 422, "{body}: {:?}", got.body);
        assert!(!got.message().is_empty(), "{body}");
    }
    let raw = r
        .api
        .raw(
            "POST",
            &times(&r, n),
            Auth::Token(&r.owner.token),
            Some("application/json"),
            b"{".to_vec(),
        )
        .await;
    assert!((400..500).contains(&raw.status), "{:?}", raw.body);
    let path = format!("{}/nosuch/times", r.base);
    assert_eq!(send(&r, "GET", &r.owner, &path).await.status, 404);
    assert_eq!(
        add(&r, &r.owner, 9999, json!({"time": 5})).await.status,
        404
    );
    let bad_id = send(&r, "DELETE", &r.owner, &format!("{}/abc", times(&r, n))).await;
    assert!((400..500).contains(&bad_id.status), "{:?}", bad_id.body);
    let listed = list(&r, &r.owner, &times(&r, n)).await;
    assert_eq!(listed.total(), Some(0));
    let repo_id = r.repo_id().await;
    assert!(stored(&format!("REPO#{repo_id}")).await.is_empty());
}

#[tokio::test]
async fn times_of_deleted_issues_and_repositories_go() {
    let r = issue_repo(false).await;
    let (n, m) = (
        r.api.new_issue(&r.owner, &r.repo_path, "to delete").await,
        r.api.new_issue(&r.owner, &r.repo_path, "to keep").await,
    );
    track(&r, &r.writer, n, 10).await;
    track(&r, &r.writer, m, 20).await;
    let repo_id = r.repo_id().await;
    let deleted = send(&r, "DELETE", &r.owner, &format!("{}/{n}", r.base)).await;
    assert_eq!(deleted.status, 204);
    // Not shown at once, gone once the stream has passed.
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(shown(&mine.body), vec![(r.writer.name.clone(), 20)]);
    api_tests::settle().await;
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!((shown(&mine.body).len(), mine.total()), (1, Some(1)));
    let repo = list(&r, &r.owner, &format!("{}/times", r.repo_path)).await;
    assert_eq!(repo.total(), Some(1));
    let items = stored(&format!("REPO#{repo_id}")).await;
    let of_n = format!("{n:020}");
    assert!(!items.iter().any(|s| s.contains(&of_n)), "{items:?}");
    // A deleted repository's times leave the user's listing.
    let gone = send(&r, "DELETE", &r.owner, &r.repo_path).await;
    assert_eq!(gone.status, 204);
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(shown(&mine.body).len(), 0);
    api_tests::settle().await;
    let mine = list(&r, &r.writer, "/api/v1/user/times").await;
    assert_eq!(mine.total(), Some(0));
    assert!(stored(&format!("REPO#{repo_id}")).await.is_empty());
    let user = stored(&format!("OWNER#{}", r.writer.name.to_lowercase())).await;
    assert!(user.iter().all(|s| !s.starts_with("TIMEU#E")), "{user:?}");
}
