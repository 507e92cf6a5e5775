//! Editing, closing, deleting issues and their deadlines over HTTP, with
//! the counters checked after every step and under concurrent writers.

use api_tests::{Auth, issue_repo as repo};
use futures::future::join_all;
use serde_json::{Value, json};

#[tokio::test]
async fn edit_permissions_and_fields() {
    let r = repo(false).await;
    let ms = r.milestone("m").await;
    r.create(&r.reader, json!({"title": "mine"})).await;
    // Neither poster nor writer: 403 with an empty body.
    let resp = r.patch(&r.outsider, 1, json!({"title": "hijack"})).await;
    assert_eq!((resp.status, resp.body.clone()), (403, Value::Null));
    // The poster may edit title, body, ref and state, but not writer fields.
    let resp = r.patch(&r.reader, 1, json!({"title": "", "body": "b", "ref": "dev", "milestone": ms, "assignees": [r.writer.name],
                                            "due_date": "2030-01-01T00:00:00Z"})).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(
        (
            resp.body["title"].as_str(),
            resp.body["body"].as_str(),
            resp.body["ref"].as_str()
        ),
        (Some("mine"), Some("b"), Some("dev"))
    );
    assert_eq!(
        (
            resp.body["milestone"].clone(),
            resp.body["assignees"].clone(),
            resp.body["due_date"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    // A writer sets them.
    let resp = r.patch(&r.writer, 1, json!({"milestone": ms, "assignees": [r.writer.name, r.reader.name], "due_date": "2030-01-01T10:00:00-03:00"})).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(resp.body["milestone"]["id"], ms);
    assert_eq!(resp.body["assignees"].as_array().unwrap().len(), 2);
    assert_eq!(resp.body["due_date"], "2030-01-02T02:59:59Z");
    // Assignees replace the set; [] clears it.
    let resp = r
        .patch(&r.writer, 1, json!({"assignees": [r.reader.name]}))
        .await;
    assert_eq!(resp.body["assignees"].as_array().unwrap().len(), 1);
    let resp = r.patch(&r.writer, 1, json!({"assignees": []})).await;
    assert_eq!(resp.body["assignees"], Value::Null);
    // Unknown assignee or milestone: 422, nothing changed.
    assert_eq!(
        r.patch(&r.writer, 1, json!({"assignees": ["nobody-zz8"]}))
            .await
            .status,
        422
    );
    assert_eq!(
        r.patch(
            &r.writer,
            1,
            json!({"milestone": 123456789, "title": "changed?"})
        )
        .await
        .status,
        422
    );
    let back = r.get(1).await;
    assert_eq!(
        (back["title"].as_str(), back["milestone"]["id"].as_i64()),
        (Some("mine"), Some(ms))
    );
    // Deadline rules.
    let resp = r.patch(&r.writer, 1, json!({"due_date": null})).await;
    assert_eq!(
        (resp.status, resp.message()),
        (400, "The due_date cannot be empty")
    );
    assert_eq!(
        r.patch(&r.writer, 1, json!({"unset_due_date": false}))
            .await
            .status,
        400
    );
    let resp = r
        .patch(&r.writer, 1, json!({"due_date": "0001-01-01T00:00:00Z"}))
        .await;
    assert_eq!(resp.body["due_date"], Value::Null, "zero time clears");
    r.patch(&r.writer, 1, json!({"due_date": "2031-02-03T00:00:00Z"}))
        .await;
    let resp = r.patch(&r.writer, 1, json!({"unset_due_date": true})).await;
    assert_eq!(resp.body["due_date"], Value::Null);
    // Milestone 0 removes it.
    let resp = r.patch(&r.writer, 1, json!({"milestone": 0})).await;
    assert_eq!(resp.body["milestone"], Value::Null);
    assert_eq!(r.counts(ms).await, (0, 0));
}

#[tokio::test]
async fn state_table() {
    let r = repo(false).await;
    let ms = r.milestone("s").await;
    r.create(&r.writer, json!({"title": "a", "milestone": ms}))
        .await;
    r.create(&r.writer, json!({"title": "blocker"})).await;

    let resp = r.patch(&r.writer, 1, json!({"state": "done"})).await;
    assert_eq!((resp.status, resp.message()), (412, "unknown state: done"));
    let resp = r.patch(&r.writer, 1, json!({"state": "open"})).await;
    assert_eq!(
        (resp.status, resp.body["state"].as_str()),
        (201, Some("open")),
        "same state: no change"
    );
    // Close, reopen, with the milestone counters following.
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"})).await.body["state"],
        "closed"
    );
    assert_eq!(r.counts(ms).await, (0, 1));
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"}))
            .await
            .status,
        201
    );
    assert_eq!(r.counts(ms).await, (0, 1), "closing twice counts once");
    let reopened = r.patch(&r.writer, 1, json!({"state": "open"})).await;
    assert_eq!(
        (
            reopened.body["state"].as_str(),
            reopened.body["closed_at"].clone()
        ),
        (Some("open"), Value::Null)
    );
    assert_eq!(r.counts(ms).await, (1, 0));
    // Open dependencies block closing.
    let dep = r
        .api
        .call(
            "POST",
            &format!("{}/1/dependencies", r.base),
            Auth::Token(&r.writer.token),
            Some(json!({"owner": r.owner.name, "repo": r.repo_path.rsplit('/').next().unwrap(), "index": 2})),
        )
        .await;
    assert_eq!(dep.status, 201, "{:?}", dep.body);
    let resp = r.patch(&r.writer, 1, json!({"state": "closed"})).await;
    assert_eq!(resp.status, 412, "{:?}", resp.body);
    assert!(resp.message().contains("open dependencies"));
    assert_eq!(r.get(1).await["state"], "open");
    r.patch(&r.writer, 2, json!({"state": "closed"})).await;
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"}))
            .await
            .status,
        201,
        "closed blockers no longer block"
    );
    // The poster (a reader) may close and reopen their own issue.
    let own = r.create(&r.reader, json!({"title": "mine"})).await;
    let n = own["number"].as_i64().unwrap();
    assert_eq!(
        r.patch(&r.reader, n, json!({"state": "closed"})).await.body["state"],
        "closed"
    );
}

#[tokio::test]
async fn body_edits_race_against_the_loaded_version() {
    let r = repo(false).await;
    r.create(&r.writer, json!({"title": "race", "body": "v0"}))
        .await;
    let edits = (0..8).map(|i| {
        let who = if i % 2 == 0 { &r.writer } else { &r.owner };
        r.patch(who, 1, json!({"body": format!("body {i}")}))
    });
    let replies = join_all(edits).await;
    let statuses: Vec<u16> = replies.iter().map(|x| x.status).collect();
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 400),
        "{statuses:?}"
    );
    let winners: Vec<String> = replies
        .iter()
        .filter(|x| x.status == 201)
        .map(|x| x.body["body"].as_str().unwrap().to_string())
        .collect();
    assert!(!winners.is_empty());
    let stored = r.get(1).await["body"].as_str().unwrap().to_string();
    assert!(
        winners.contains(&stored),
        "stored {stored:?} must be a body some writer was told was saved: {winners:?}"
    );
}

#[tokio::test]
async fn delete_rules() {
    let r = repo(false).await;
    let ms = r.milestone("d").await;
    r.create(&r.writer, json!({"title": "a", "milestone": ms}))
        .await;
    r.create(&r.writer, json!({"title": "b"})).await;
    let repo_name = r.repo_path.rsplit('/').next().unwrap().to_string();
    let dep = json!({"owner": r.owner.name, "repo": repo_name, "index": 1});
    assert_eq!(
        r.api
            .call(
                "POST",
                &format!("{}/2/dependencies", r.base),
                Auth::Token(&r.writer.token),
                Some(dep)
            )
            .await
            .status,
        201
    );

    let one = format!("{}/1", r.base);
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.writer.token), None)
            .await
            .status,
        403,
        "writers are not admins"
    );
    assert_eq!(
        r.api.call("DELETE", &one, Auth::None, None).await.status,
        401
    );
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        r.api
            .call("GET", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        404
    );
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        404
    );
    assert_eq!(r.counts(ms).await, (0, 0));
    assert_eq!(r.open_count().await, (1, 0));
    // Its dependency is gone, so issue 2 closes.
    let deps = r
        .api
        .call(
            "GET",
            &format!("{}/2/dependencies", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(
        (deps.status, deps.header("x-total-count")),
        (200, Some("0"))
    );
    assert_eq!(
        r.patch(&r.writer, 2, json!({"state": "closed"}))
            .await
            .status,
        201
    );
    // Numbers are never reused.
    assert_eq!(
        r.create(&r.writer, json!({"title": "c"})).await["number"],
        3
    );
    // Site admins may delete too.
    let admin = r.api.admin_token.clone();
    assert_eq!(
        r.api
            .call(
                "DELETE",
                &format!("{}/3", r.base),
                Auth::Token(&admin),
                None
            )
            .await
            .status,
        204
    );
}

#[tokio::test]
async fn deadline_endpoint() {
    let r = repo(false).await;
    r.create(&r.reader, json!({"title": "t"})).await;
    let path = format!("{}/1/deadline", r.base);
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.reader.token),
            Some(json!({"due_date": "2030-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(resp.status, 403, "writers only, even for the poster");
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": "2030-03-04T05:06:07+09:00"})),
        )
        .await;
    assert_eq!(
        (resp.status, resp.body.clone()),
        (201, json!({"due_date": "2030-03-04T14:59:59Z"}))
    );
    assert_eq!(r.get(1).await["due_date"], "2030-03-04T14:59:59Z");
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": null})),
        )
        .await;
    assert_eq!(
        (resp.status, resp.body.clone()),
        (201, json!({"due_date": null}))
    );
    assert_eq!(r.get(1).await["due_date"], Value::Null);
    let resp = r
        .api
        .call(
            "POST",
            &format!("{}/77/deadline", r.base),
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": null})),
        )
        .await;
    assert_eq!(resp.status, 404);
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": "never"})),
        )
        .await;
    assert_eq!(resp.status, 422);
}

#[tokio::test]
async fn counters_stay_exact_under_fifty_concurrent_state_changes() {
    let r = repo(false).await;
    let ms = r.milestone("busy").await;
    for i in 0..5 {
        r.create(
            &r.writer,
            json!({"title": format!("i{i}"), "milestone": ms}),
        )
        .await;
    }
    let changes = (0..50).map(|k| {
        let state = if k % 3 == 0 { "open" } else { "closed" };
        r.patch(&r.writer, (k % 5) + 1, json!({"state": state}))
    });
    let replies = join_all(changes).await;
    assert!(
        replies.iter().all(|x| x.status == 201),
        "{:?}",
        replies.iter().map(|x| x.status).collect::<Vec<_>>()
    );
    let mut closed = 0;
    for n in 1..=5 {
        if r.get(n).await["state"] == "closed" {
            closed += 1;
        }
    }
    assert_eq!(r.counts(ms).await, (5 - closed, closed));
    assert_eq!(r.open_count().await.0, 5 - closed);
}
