//! Creating and reading issues over HTTP: every rule of the tracker
//! seed's create and read operations, with stored state read back.

use api_tests::{Auth, issue_repo as repo};
use futures::future::join_all;
use serde_json::{Value, json};

#[tokio::test]
async fn create_as_writer_and_as_reader() {
    let r = repo(false).await;
    let ms = r.milestone("v1").await;
    let label = r
        .api
        .call(
            "POST",
            &format!("{}/labels", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(json!({"name": "bug", "color": "#f00"})),
        )
        .await
        .body["id"]
        .as_i64()
        .unwrap();
    let full = json!({
        "title": "  Crash on start  ", "body": "steps, cc @someone", "ref": "main",
        "assignees": [r.writer.name], "milestone": ms, "labels": [label],
        "due_date": "2030-06-01T09:00:00+02:00"
    });
    let i = r.create(&r.writer, full.clone()).await;
    assert_eq!(i["number"], 1);
    assert_eq!(i["title"], "Crash on start");
    assert_eq!(i["user"]["login"], r.writer.name.as_str());
    assert_eq!(i["state"], "open");
    assert_eq!(i["ref"], "main");
    assert_eq!(i["assignees"][0]["login"], r.writer.name.as_str());
    assert_eq!(i["assignee"]["login"], r.writer.name.as_str());
    assert_eq!(i["milestone"]["id"], ms);
    assert_eq!(i["labels"][0]["name"], "bug");
    assert_eq!(
        i["due_date"], "2030-06-01T21:59:59Z",
        "end of the given day in the sender's offset"
    );
    assert_eq!(i["pull_request"], Value::Null);
    assert_eq!(i["assets"], json!([]));
    assert_eq!(
        i["repository"]["full_name"],
        r.repo_path.trim_start_matches("/api/v1/repos/")
    );
    assert!(i["url"].as_str().unwrap().ends_with("/issues/1"));

    // A reader's writer-only fields are dropped, labels emptied.
    let j = r.create(&r.reader, full).await;
    assert_eq!(j["number"], 2);
    assert_eq!(
        (
            j["assignees"].clone(),
            j["milestone"].clone(),
            j["due_date"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert_eq!(j["labels"], json!([]));
    assert_eq!(r.counts(ms).await, (1, 0));

    // closed: true closes right after creation.
    let c = r
        .create(
            &r.writer,
            json!({"title": "done already", "closed": true, "milestone": ms}),
        )
        .await;
    assert_eq!(c["state"], "closed");
    assert!(c["closed_at"].is_string());
    assert_eq!(r.counts(ms).await, (1, 1));
    assert_eq!(r.open_count().await, (2, 0));
}

#[tokio::test]
async fn create_refusals() {
    let r = repo(false).await;
    let ms_missing = 987_654_321;
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"title": "x", "assignees": ["no-such-user-q1"]}),
            422,
            "Assignee does not exist",
        ),
        (
            json!({"title": "x", "assignees": [r.outsider.name]}),
            201,
            "",
        ),
        (
            json!({"title": "x", "milestone": ms_missing}),
            422,
            "milestone does not exist",
        ),
        (
            json!({"title": "x", "labels": [424242]}),
            422,
            "label does not exist",
        ),
        (
            json!({"title": "x", "due_date": "someday"}),
            422,
            "due_date",
        ),
        (json!({"title": ""}), 422, "title"),
        (json!({"body": "no title"}), 422, "title"),
        (json!({"title": 5}), 422, "title: invalid type"),
        (
            json!({"title": "x", "labels": "bug"}),
            422,
            "labels: invalid type",
        ),
    ];
    for (body, status, text) in cases {
        let resp = r
            .api
            .call(
                "POST",
                &r.base,
                Auth::Token(&r.writer.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(resp.status, status, "{body}: {:?}", resp.body);
        assert!(resp.message().contains(text), "{body}: {:?}", resp.body);
    }
    // The public repository lets an outsider be assigned (they can read it);
    // only that one create succeeded, and it got number 1.
    assert_eq!(
        r.get(1).await["assignees"][0]["login"],
        r.outsider.name.as_str()
    );
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/2", r.base),
                Auth::Token(&r.owner.token),
                None
            )
            .await
            .status,
        404
    );
    let none = r
        .api
        .call("POST", &r.base, Auth::None, Some(json!({"title": "anon"})))
        .await;
    assert_eq!(none.status, 401);
}

#[tokio::test]
async fn private_repository_assignees_and_access() {
    let r = repo(true).await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": "x", "assignees": [r.outsider.name]})),
        )
        .await;
    assert_eq!(resp.status, 422, "{:?}", resp.body);
    assert!(resp.message().contains("doesn't have access"));
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.outsider.token),
            Some(json!({"title": "x"})),
        )
        .await;
    assert_eq!(
        resp.status, 404,
        "outsiders do not see a private repository"
    );
    let i = r
        .create(&r.reader, json!({"title": "reader may open issues"}))
        .await;
    assert_eq!(i["number"], 1);
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/1", r.base),
                Auth::Token(&r.outsider.token),
                None
            )
            .await
            .status,
        404
    );
    assert_eq!(
        r.api
            .call("GET", &format!("{}/1", r.base), Auth::None, None)
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn blocked_users_and_archived_repositories() {
    let r = repo(false).await;
    let blocked = r.api.new_user("iblk").await;
    r.api
        .call(
            "PUT",
            &format!("/api/v1/user/blocks/{}", blocked.name),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&blocked.token),
            Some(json!({"title": "let me in"})),
        )
        .await;
    assert_eq!((resp.status, resp.message()), (403, "user is blocked"));
    // An assignee who blocked the poster.
    r.api
        .call(
            "PUT",
            &format!("/api/v1/user/blocks/{}", r.writer.name),
            Auth::Token(&r.reader.token),
            None,
        )
        .await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": "x", "assignees": [r.reader.name]})),
        )
        .await;
    assert_eq!(resp.status, 403, "{:?}", resp.body);

    let archived = r
        .api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(json!({"archived": true})),
        )
        .await;
    assert_eq!(archived.status, 200);
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.owner.token),
            Some(json!({"title": "x"})),
        )
        .await;
    assert_eq!(resp.status, 423, "{:?}", resp.body);
    assert!(resp.message().ends_with("is archived"));
    assert_eq!(r.open_count().await, (0, 0), "nothing was created");
}

#[tokio::test]
async fn read_rules() {
    let r = repo(false).await;
    r.create(&r.owner, json!({"title": "one"})).await;
    for path in ["99", "abc", "-1", "0"] {
        let resp = r
            .api
            .call("GET", &format!("{}/{path}", r.base), Auth::None, None)
            .await;
        assert_eq!(resp.status, 404, "{path}: {:?}", resp.body);
    }
    // Disabling the issues unit hides issues, even from the owner.
    r.api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(json!({"has_issues": false})),
        )
        .await;
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/1", r.base),
                Auth::Token(&r.owner.token),
                None
            )
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn a_hundred_concurrent_creates_number_one_to_a_hundred() {
    let r = repo(false).await;
    let creates = (0..100).map(|i| {
        r.api.call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": format!("n{i}")})),
        )
    });
    let replies = join_all(creates).await;
    let mut numbers: Vec<i64> = replies
        .iter()
        .map(|x| {
            assert_eq!(x.status, 201, "{:?}", x.body);
            x.body["number"].as_i64().unwrap()
        })
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=100).collect::<Vec<_>>());
    assert_eq!(r.open_count().await, (100, 0));
}

#[tokio::test]
async fn bad_input_writes_nothing() {
    let r = repo(false).await;
    r.create(&r.writer, json!({"title": "keep"})).await;
    let one = format!("{}/1", r.base);
    let auth = Auth::Token(&r.writer.token);
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"{\"title\": ".to_vec(), 422),
        (b"[1,2]".to_vec(), 422),
        (b"{\"title\": [1]}".to_vec(), 422),
        (b"{\"milestone\": \"x\"}".to_vec(), 422),
        (
            format!("{{\"body\": \"{}\"}}", "x".repeat(1_100_000)).into_bytes(),
            413,
        ),
    ];
    for (body, status) in cases {
        let resp = r
            .api
            .raw("PATCH", &one, auth, Some("application/json"), body)
            .await;
        assert_eq!(resp.status, status, "{:?}", resp.body);
    }
    assert_eq!(
        r.api
            .call(
                "PATCH",
                &format!("{}/xyz", r.base),
                auth,
                Some(json!({"title": "x"}))
            )
            .await
            .status,
        404
    );
    let labels = r
        .api
        .call(
            "POST",
            &format!("{one}/labels"),
            auth,
            Some(json!({"labels": [99999999]})),
        )
        .await;
    assert_eq!(labels.status, 422);
    let back = r.get(1).await;
    assert_eq!(
        (
            back["title"].as_str(),
            back["body"].as_str(),
            back["labels"].clone()
        ),
        (Some("keep"), Some(""), json!([]))
    );
}
