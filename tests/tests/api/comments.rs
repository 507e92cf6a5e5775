//! Issue comments and issue locks over HTTP: Gitea's `Comment` JSON, the
//! `comments` count of issues and pull requests (checked after every step,
//! in the table too, and under concurrent creates and deletes), listings
//! with paging and `since`/`before`, mentions, locks, blocks, archived
//! repositories, bad input that changes nothing, and what deletes leave.
//! The caller × route table is in `comments/permissions.rs`; locks, blocks
//! and archives in `rules.rs`; bad input in `input.rs`; concurrency and
//! deletes in `integrity.rs`.

mod input;
mod integrity;
mod permissions;
mod rules;

use api_tests::{Api, Auth, IssueRepo, Reply, TestUser, ids, issue_repo, table, unique};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::join_all;
use serde_json::{Value, json};

/// `POST {base}/{n}/comments` as `who`.
async fn post(r: &IssueRepo, who: &TestUser, n: i64, body: Value) -> Reply {
    let path = format!("{}/{n}/comments", r.base);
    r.api
        .call("POST", &path, Auth::Token(&who.token), Some(body))
        .await
}

/// A comment that must be created: its JSON.
async fn comment(r: &IssueRepo, who: &TestUser, n: i64, text: &str) -> Value {
    let got = post(r, who, n, json!({ "body": text })).await;
    assert_eq!(got.status, 201, "comment on #{n}: {:?}", got.body);
    got.body
}

/// `{base}/comments/{id}` with `method` as `who`.
async fn by_id(r: &IssueRepo, method: &str, who: Auth<'_>, id: i64, body: Option<Value>) -> Reply {
    let path = format!("{}/comments/{id}", r.base);
    r.api.call(method, &path, who, body).await
}

/// A list as the owner (`query` after `?`).
async fn list(r: &IssueRepo, path: &str, query: &str) -> Reply {
    // Past the first page, and with a window, listings read the index,
    // which trails writes by the stream's delay.
    api_tests::settle().await;
    let path = format!("{path}?{query}");
    let got = r
        .api
        .call("GET", &path, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(got.status, 200, "GET {path}: {:?}", got.body);
    got
}

/// Issue or pull request `n` as the owner sees it.
async fn issue(r: &IssueRepo, n: i64) -> Value {
    r.get(n).await
}

/// A number attribute of a stored item (read past the API), `None` when
/// the item is gone.
async fn stored(pk: &str, sk: &str, attribute: &str) -> Option<i64> {
    let (client, table) = table().await;
    let got = client
        .get_item()
        .table_name(&table)
        .key("pk", AttributeValue::S(pk.into()))
        .key("sk", AttributeValue::S(sk.into()))
        .consistent_read(true)
        .send()
        .await
        .expect("read the table");
    let item = got.item?;
    Some(match item.get(attribute) {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        _ => 0,
    })
}

/// The comment items stored under repository `repo_id` (whatever their
/// issue), as (id, issue number).
async fn stored_comments(repo_id: i64) -> Vec<(i64, i64)> {
    api_tests::items_under(&format!("REPO#{repo_id}"), "COMMENT#")
        .await
        .iter()
        .map(|item| {
            let n = |k: &str| match item.get(k) {
                Some(AttributeValue::N(n)) => n.parse::<i64>().unwrap(),
                _ => 0,
            };
            (n("id"), n("index"))
        })
        .collect()
}

fn issue_sk(n: i64) -> String {
    format!("ISSUE#{n:020}")
}

#[tokio::test]
async fn create_read_edit_delete_with_the_count() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "talk").await;
    let before = issue(&r, n).await;
    assert_eq!(before["comments"], 0);
    // A reader of a public repository comments.
    let c = comment(&r, &r.reader, n, "first @nobody-here").await;
    let id = c["id"].as_i64().unwrap();
    let page = r.api.base.clone() + &r.repo_path.replace("/api/v1/repos", "");
    // Gitea's fields, in its order (read from the text: parsed JSON sorts
    // its keys).
    let url = format!("{}{}/comments/{id}", r.api.base, r.base);
    let text = reqwest::get(&url).await.unwrap().text().await.unwrap();
    let fields = [
        "id",
        "html_url",
        "pull_request_url",
        "issue_url",
        "user",
        "original_author",
        "original_author_id",
        "body",
        "assets",
        "created_at",
        "updated_at",
    ];
    let at: Vec<usize> = fields
        .iter()
        .map(|f| text.find(&format!("\"{f}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(c.as_object().unwrap().len(), fields.len());
    assert_eq!(
        c["html_url"],
        format!("{page}/issues/{n}#issuecomment-{id}")
    );
    assert_eq!(c["issue_url"], format!("{page}/issues/{n}"));
    assert_eq!(
        (
            &c["pull_request_url"],
            &c["original_author"],
            &c["original_author_id"]
        ),
        (&json!(""), &json!(""), &json!(0))
    );
    assert_eq!(
        (&c["body"], &c["assets"]),
        (&json!("first @nobody-here"), &json!([]))
    );
    assert_eq!(c["user"]["login"], r.reader.name.as_str());
    assert!(
        c["user"]["email"].as_str().unwrap().contains("@noreply."),
        "placeholder e-mail"
    );
    assert_eq!(c["created_at"], c["updated_at"]);
    // The count moved, and so did the issue's update time.
    let after = issue(&r, n).await;
    assert_eq!(after["comments"], 1);
    assert!(after["updated_at"].as_str() >= before["updated_at"].as_str());
    let rid = r.repo_id().await;
    assert_eq!(
        stored(&format!("REPO#{rid}"), &issue_sk(n), "comments").await,
        Some(1)
    );
    assert_eq!(
        stored(&format!("REPO#{rid}"), "PROFILE", "num_issue_comments").await,
        Some(1)
    );
    // Read it back, alone and in both lists.
    let got = by_id(&r, "GET", Auth::None, id, None).await;
    assert_eq!((got.status, &got.body), (200, &c));
    let one = list(&r, &format!("{}/{n}/comments", r.base), "").await;
    assert_eq!(
        (one.body.clone(), one.total()),
        (json!([c.clone()]), Some(1))
    );
    let all = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!((ids(&all.body), all.total()), (vec![id], Some(1)));
    // Its author edits it: 200 with the new body; the same body again
    // changes nothing.
    let edit = json!({"body": "first, edited"});
    let got = by_id(
        &r,
        "PATCH",
        Auth::Token(&r.reader.token),
        id,
        Some(edit.clone()),
    )
    .await;
    assert_eq!(
        (got.status, &got.body["body"]),
        (200, &json!("first, edited")),
        "{:?}",
        got.body
    );
    let again = by_id(&r, "PATCH", Auth::Token(&r.reader.token), id, Some(edit)).await;
    assert_eq!((again.status, &again.body), (200, &got.body));
    assert_eq!(by_id(&r, "GET", Auth::None, id, None).await.body, got.body);
    assert_eq!(issue(&r, n).await["comments"], 1, "an edit does not count");
    // Its author deletes it: 204, gone everywhere, the counts back to 0.
    let gone = by_id(&r, "DELETE", Auth::Token(&r.reader.token), id, None).await;
    assert_eq!((gone.status, gone.body), (204, Value::Null));
    let got = by_id(&r, "GET", Auth::None, id, None).await;
    assert_eq!((got.status, got.message()), (404, "not found"));
    let again = by_id(&r, "DELETE", Auth::Token(&r.reader.token), id, None).await;
    assert_eq!(again.status, 404);
    assert_eq!(issue(&r, n).await["comments"], 0);
    let one = list(&r, &format!("{}/{n}/comments", r.base), "").await;
    assert_eq!((one.total(), one.body), (Some(0), json!([])));
    assert_eq!(
        stored(&format!("REPO#{rid}"), "PROFILE", "num_issue_comments").await,
        Some(0)
    );
    assert!(stored_comments(rid).await.is_empty());
}

#[tokio::test]
async fn comments_on_pull_requests() {
    let r = issue_repo(false).await;
    let pr = json!({"title": "fix", "head": "fix", "base": "main"});
    let path = format!("{}/pulls", r.repo_path);
    let made = r
        .api
        .call("POST", &path, Auth::Token(&r.writer.token), Some(pr))
        .await;
    let n = made.body["number"].as_i64().unwrap();
    let c = comment(&r, &r.reader, n, "looks good").await;
    let page = r.api.base.clone() + &r.repo_path.replace("/api/v1/repos", "");
    assert_eq!(
        c["html_url"],
        format!("{page}/pulls/{n}#issuecomment-{}", c["id"])
    );
    assert_eq!(
        (&c["pull_request_url"], &c["issue_url"]),
        (&json!(format!("{page}/pulls/{n}")), &json!(""))
    );
    comment(&r, &r.writer, n, "thanks").await;
    let view = r
        .api
        .call(
            "GET",
            &format!("{path}/{n}"),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(
        (
            view.body["comments"].clone(),
            view.body["is_locked"].clone()
        ),
        (json!(2), json!(false))
    );
    assert_eq!(issue(&r, n).await["comments"], 2);
    let rid = r.repo_id().await;
    let pk = format!("REPO#{rid}");
    let pulls = stored(&pk, "PROFILE", "num_pull_comments").await;
    let issues = stored(&pk, "PROFILE", "num_issue_comments").await;
    assert_eq!((pulls, issues), (Some(2), Some(0)));
}

#[tokio::test]
async fn lists_page_and_filter_oldest_first() {
    let r = issue_repo(false).await;
    let (a, b) = (
        r.api.new_issue(&r.owner, &r.repo_path, "a").await,
        r.api.new_issue(&r.owner, &r.repo_path, "b").await,
    );
    let mut made = Vec::new();
    for (i, n) in [a, b, a, a, b].into_iter().enumerate() {
        made.push(
            comment(&r, &r.writer, n, &format!("c{i}")).await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let on_a: Vec<i64> = vec![made[0], made[2], made[3]];
    let issue_path = format!("{}/{a}/comments", r.base);
    let got = list(&r, &issue_path, "").await;
    assert_eq!((ids(&got.body), got.total()), (on_a.clone(), Some(3)));
    assert_eq!(got.header("link"), None);
    // Pages of 2: the second holds the third comment; Gitea's headers.
    let got = list(&r, &issue_path, "limit=2&page=2").await;
    assert_eq!((ids(&got.body), got.total()), (vec![made[3]], Some(3)));
    let link = got.header("link").unwrap();
    assert!(
        link.contains("rel=\"first\"") && link.contains("rel=\"prev\""),
        "{link}"
    );
    assert!(
        link.contains(&format!("{issue_path}?limit=2&page=1>")),
        "{link}"
    );
    let got = list(&r, &issue_path, "limit=2").await;
    assert!(got.header("link").unwrap().contains("rel=\"next\""));
    assert_eq!(ids(&got.body), on_a[..2].to_vec());
    let past = list(&r, &issue_path, "limit=2&page=9").await;
    assert_eq!((past.total(), past.body), (Some(3), json!([])));
    // The repository's list: every comment, oldest first, paged alike.
    let repo_path = format!("{}/comments", r.base);
    let got = list(&r, &repo_path, "").await;
    assert_eq!((ids(&got.body), got.total()), (made.clone(), Some(5)));
    let got = list(&r, &repo_path, "limit=3&page=2").await;
    assert_eq!((ids(&got.body), got.total()), (made[3..].to_vec(), Some(5)));
    // `since`/`before` on the update time, inclusive.
    let past_time = "2000-01-01T00:00:00Z";
    let future = "2999-01-01T00:00:00%2B02:00";
    for (q, want) in [
        (format!("since={past_time}"), 3),
        (format!("before={future}"), 3),
        (format!("since={future}"), 0),
        (format!("before={past_time}"), 0),
    ] {
        let got = list(&r, &issue_path, &q).await;
        assert_eq!(
            (got.body.as_array().unwrap().len(), got.total()),
            (want, Some(want as u64)),
            "{q}"
        );
    }
    // An edit made later moves a comment into a later window.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let edited = by_id(
        &r,
        "PATCH",
        Auth::Token(&r.writer.token),
        made[2],
        Some(json!({"body": "late"})),
    )
    .await;
    let since = edited.body["updated_at"].as_str().unwrap().to_string();
    let q = format!("since={}", since.replace('+', "%2B"));
    let got = list(&r, &issue_path, &q).await;
    assert_eq!((ids(&got.body), got.total()), (vec![made[2]], Some(1)));
    let got = list(&r, &repo_path, &format!("{q}&limit=1")).await;
    assert_eq!((ids(&got.body), got.total()), (vec![made[2]], Some(1)));
    // Unreadable times are a 422 naming the parameter.
    for (path, q) in [
        (&issue_path, "since=yesterday"),
        (&repo_path, "before=2024-13-01T00:00:00Z"),
    ] {
        let got = r
            .api
            .call(
                "GET",
                &format!("{path}?{q}"),
                Auth::Token(&r.owner.token),
                None,
            )
            .await;
        let name = q.split('=').next().unwrap();
        assert_eq!(got.status, 422, "{q}: {:?}", got.body);
        assert!(got.message().starts_with(name), "{q}: {:?}", got.body);
    }
}

#[tokio::test]
async fn the_repository_list_shows_only_readable_kinds() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "i").await;
    let pr = json!({"title": "p", "head": "p", "base": "main"});
    let made = r
        .api
        .call(
            "POST",
            &format!("{}/pulls", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(pr),
        )
        .await;
    let p = made.body["number"].as_i64().unwrap();
    let on_issue = comment(&r, &r.owner, n, "on the issue").await["id"]
        .as_i64()
        .unwrap();
    let on_pull = comment(&r, &r.owner, p, "on the pull").await["id"]
        .as_i64()
        .unwrap();
    let all = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!(
        (ids(&all.body), all.total()),
        (vec![on_issue, on_pull], Some(2))
    );
    // Pull requests disabled: their comments are out of every view.
    let off = json!({"has_pull_requests": false});
    let got = r
        .api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(off),
        )
        .await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let all = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!((ids(&all.body), all.total()), (vec![on_issue], Some(1)));
    assert_eq!(
        by_id(&r, "GET", Auth::Token(&r.owner.token), on_pull, None)
            .await
            .status,
        404
    );
    let got = r
        .api
        .call(
            "GET",
            &format!("{}/{p}/comments", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(got.status, 404);
    // Issues disabled too: the repository list is a 404.
    let off = json!({"has_issues": false});
    r.api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(off),
        )
        .await;
    let got = r
        .api
        .call(
            "GET",
            &format!("{}/comments", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(got.status, 404, "{:?}", got.body);
}

#[tokio::test]
async fn mentions_in_comments_find_the_issue() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "quiet").await;
    let other = r.api.new_issue(&r.owner, &r.repo_path, "other").await;
    let mentioned = |who: &TestUser, q: &'static str| {
        let path = format!("/api/v1/repos/issues/search?{q}&state=all&q=quiet");
        let token = who.token.clone();
        let api = &r.api;
        async move {
            // Search reads the index, which trails writes by a moment.
            api_tests::settle().await;
            let got = api.call("GET", &path, Auth::Token(&token), None).await;
            assert_eq!(got.status, 200, "{:?}", got.body);
            got.body
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["number"].as_i64().unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert!(mentioned(&r.writer, "mentioned=true").await.is_empty());
    comment(
        &r,
        &r.reader,
        n,
        &format!("cc @{} and @no-such-user-zz", r.writer.name),
    )
    .await;
    comment(&r, &r.reader, other, "nothing here").await;
    assert_eq!(mentioned(&r.writer, "mentioned=true").await, vec![n]);
    let by = format!("{}?mentioned_by={}&state=all", r.base, r.writer.name);
    api_tests::settle().await;
    let got = r
        .api
        .call("GET", &by, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(got.body.as_array().unwrap().len(), 1, "{:?}", got.body);
    // An edit that adds a mention records it too; deleting the comment
    // does not take mentions back (as Gitea).
    let c = comment(&r, &r.reader, n, "later").await;
    let id = c["id"].as_i64().unwrap();
    assert!(mentioned(&r.outsider, "mentioned=true").await.is_empty());
    let edit = json!({"body": format!("later, @{}", r.outsider.name)});
    assert_eq!(
        by_id(&r, "PATCH", Auth::Token(&r.reader.token), id, Some(edit))
            .await
            .status,
        200
    );
    assert_eq!(mentioned(&r.outsider, "mentioned=true").await, vec![n]);
    assert_eq!(
        by_id(&r, "DELETE", Auth::Token(&r.owner.token), id, None)
            .await
            .status,
        204
    );
    assert_eq!(mentioned(&r.outsider, "mentioned=true").await, vec![n]);
    // Only existing users are recorded, at most 50 per issue.
    let api = Api::from_env();
    let names: Vec<String> = (0..52).map(|_| unique("mn")).collect();
    let made = join_all(names.iter().map(|name| {
        let body = json!({"username": name, "email": format!("{name}@example.com")});
        api.call("POST", "/api/v1/admin/users", api.admin(), Some(body))
    }))
    .await;
    assert!(made.iter().all(|m| m.status == 201));
    let text: String = names.iter().map(|n| format!("@{n} ")).collect();
    comment(&r, &r.owner, n, &text).await;
    let (client, table) = table().await;
    let rid = r.repo_id().await;
    let item = client
        .get_item()
        .table_name(&table)
        .key("pk", AttributeValue::S(format!("REPO#{rid}")))
        .key("sk", AttributeValue::S(issue_sk(n)))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    let recorded = match item.get("comment_mentions") {
        Some(AttributeValue::L(l)) => l
            .iter()
            .map(|v| v.as_s().unwrap().clone())
            .collect::<Vec<_>>(),
        other => panic!("comment_mentions: {other:?}"),
    };
    assert_eq!(recorded.len(), 50, "{recorded:?}");
    assert!(!recorded.iter().any(|m| m == "no-such-user-zz"));
    assert_eq!(
        recorded[..2],
        [r.writer.name.to_lowercase(), r.outsider.name.to_lowercase()]
    );
}
