//! Issue comments and issue locks over HTTP: Gitea's `Comment` JSON, the
//! `comments` count of issues and pull requests (checked after every step,
//! in the table too, and under concurrent creates and deletes), listings
//! with paging and `since`/`before`, mentions, locks, blocks, archived
//! repositories, bad input that changes nothing, and what deletes leave.
//! The caller × route table is in `comments/permissions.rs`.

mod permissions;

use api_tests::{Api, Auth, IssueRepo, Reply, TestUser, issue_repo, table, unique};
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

fn ids(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect()
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
    let (client, table) = table().await;
    let (mut out, mut start) = (Vec::new(), None);
    loop {
        let page = client
            .query()
            .table_name(&table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", AttributeValue::S(format!("REPO#{repo_id}")))
            .expression_attribute_values(":p", AttributeValue::S("COMMENT#".into()))
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query the table");
        for item in page.items() {
            let n = |k: &str| match item.get(k) {
                Some(AttributeValue::N(n)) => n.parse::<i64>().unwrap(),
                _ => 0,
            };
            out.push((n("id"), n("index")));
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => return out,
        }
    }
}

async fn repo_id(r: &IssueRepo) -> i64 {
    let got = r
        .api
        .call("GET", &r.repo_path, Auth::Token(&r.owner.token), None)
        .await;
    got.body["id"].as_i64().unwrap()
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
    let rid = repo_id(&r).await;
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
    let rid = repo_id(&r).await;
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
    let rid = repo_id(&r).await;
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

#[tokio::test]
async fn locked_issues_take_comments_from_writers_only() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.reader, &r.repo_path, "heated").await;
    let lock = format!("{}/{n}/lock", r.base);
    let (owner, writer, reader) = (
        Auth::Token(&r.owner.token),
        Auth::Token(&r.writer.token),
        Auth::Token(&r.reader.token),
    );
    // Who may lock: repository admins (Gitea's API); nothing changes else.
    assert_eq!(r.api.call("PUT", &lock, Auth::None, None).await.status, 401);
    for who in [writer, reader] {
        let got = r
            .api
            .call("PUT", &lock, who, Some(json!({"lock_reason": "Spam"})))
            .await;
        assert_eq!(got.status, 403, "{:?}", got.body);
        assert_eq!(
            got.message(),
            "user should be an owner or a collaborator with admin write of a repository"
        );
    }
    assert_eq!(issue(&r, n).await["is_locked"], false);
    // Bad bodies: 422, still unlocked; an unknown issue: 404.
    let long = "x".repeat(256);
    for bad in [
        json!({"lock_reason": 5}),
        json!({"reason": "Spam"}),
        json!({"lock_reason": long}),
    ] {
        let got = r.api.call("PUT", &lock, owner, Some(bad.clone())).await;
        assert_eq!(got.status, 422, "{bad}: {:?}", got.body);
    }
    let got = r
        .api
        .call("PUT", &format!("{}/999/lock", r.base), owner, None)
        .await;
    assert_eq!(got.status, 404);
    assert_eq!(issue(&r, n).await["is_locked"], false);
    // Locked: 204, twice (Gitea answers 204 either way).
    for _ in 0..2 {
        let got = r
            .api
            .call(
                "PUT",
                &lock,
                owner,
                Some(json!({"lock_reason": "Too heated"})),
            )
            .await;
        assert_eq!((got.status, got.body), (204, Value::Null));
    }
    assert_eq!(issue(&r, n).await["is_locked"], true);
    let got = post(&r, &r.reader, n, json!({"body": "but..."})).await;
    assert_eq!(
        (got.status, got.message()),
        (403, "You cannot comment on a locked issue.")
    );
    comment(&r, &r.writer, n, "writers may").await;
    let path = format!("{}/{n}/comments", r.base);
    let site = r
        .api
        .call(
            "POST",
            &path,
            r.api.admin(),
            Some(json!({"body": "site admins too"})),
        )
        .await;
    assert_eq!(site.status, 201, "{:?}", site.body);
    assert_eq!(issue(&r, n).await["comments"], 2);
    // Unlocking (no body needed) reopens it to readers.
    assert_eq!(r.api.call("DELETE", &lock, reader, None).await.status, 403);
    for _ in 0..2 {
        assert_eq!(r.api.call("DELETE", &lock, owner, None).await.status, 204);
    }
    assert_eq!(issue(&r, n).await["is_locked"], false);
    comment(&r, &r.reader, n, "calm now").await;
    // An empty body locks too; a locked pull request says so.
    assert_eq!(
        r.api
            .raw("PUT", &lock, owner, None, Vec::new())
            .await
            .status,
        204
    );
    let pr = json!({"title": "p", "head": "p", "base": "main"});
    let made = r
        .api
        .call("POST", &format!("{}/pulls", r.repo_path), owner, Some(pr))
        .await;
    let p = made.body["number"].as_i64().unwrap();
    let got = r
        .api
        .call(
            "PUT",
            &format!("{}/{p}/lock", r.base),
            owner,
            Some(json!({})),
        )
        .await;
    assert_eq!(got.status, 204);
    let view = r
        .api
        .call("GET", &format!("{}/pulls/{p}", r.repo_path), owner, None)
        .await;
    assert_eq!(view.body["is_locked"], true);
    assert_eq!(
        post(&r, &r.reader, p, json!({"body": "x"})).await.status,
        403
    );
}

#[tokio::test]
async fn blocked_users_cannot_comment() {
    let r = issue_repo(false).await;
    let (mine, theirs) = (
        r.api.new_issue(&r.owner, &r.repo_path, "owner's").await,
        r.api.new_issue(&r.reader, &r.repo_path, "reader's").await,
    );
    let (blocked, snubbed) = (r.api.new_user("cblk").await, r.api.new_user("csnb").await);
    let early = comment(&r, &blocked, theirs, "before the block").await["id"]
        .as_i64()
        .unwrap();
    for (by, whom) in [(&r.owner, &blocked), (&r.reader, &snubbed)] {
        let path = format!("/api/v1/user/blocks/{}", whom.name);
        let got = r.api.call("PUT", &path, Auth::Token(&by.token), None).await;
        assert_eq!(got.status, 204);
    }
    // Blocked by the repository's owner: on any issue of theirs.
    for n in [mine, theirs] {
        let got = post(&r, &blocked, n, json!({"body": "let me in"})).await;
        assert_eq!(
            (got.status, got.message()),
            (403, "user is blocked"),
            "#{n}"
        );
    }
    // Blocked by an issue's poster: on that issue only.
    let got = post(&r, &snubbed, theirs, json!({"body": "hey"})).await;
    assert_eq!((got.status, got.message()), (403, "user is blocked"));
    comment(&r, &snubbed, mine, "elsewhere is fine").await;
    // A blocked author may not edit their comment, but may delete it.
    let edit = json!({"body": "edited"});
    let got = by_id(&r, "PATCH", Auth::Token(&blocked.token), early, Some(edit)).await;
    assert_eq!((got.status, got.message()), (403, "user is blocked"));
    assert_eq!(issue(&r, theirs).await["comments"], 1);
    let got = by_id(&r, "DELETE", Auth::Token(&blocked.token), early, None).await;
    assert_eq!(got.status, 204);
    assert_eq!(
        (
            issue(&r, theirs).await["comments"].clone(),
            issue(&r, mine).await["comments"].clone()
        ),
        (json!(0), json!(1))
    );
}

#[tokio::test]
async fn archived_repositories_take_no_comment_writes() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "old").await;
    let id = comment(&r, &r.owner, n, "kept").await["id"]
        .as_i64()
        .unwrap();
    let got = r
        .api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(json!({"archived": true})),
        )
        .await;
    assert_eq!(got.status, 200);
    let owner = Auth::Token(&r.owner.token);
    let lock = format!("{}/{n}/lock", r.base);
    let writes = [
        post(&r, &r.owner, n, json!({"body": "new"})).await,
        by_id(&r, "PATCH", owner, id, Some(json!({"body": "changed"}))).await,
        by_id(&r, "DELETE", owner, id, None).await,
        r.api.call("PUT", &lock, owner, Some(json!({}))).await,
        r.api.call("DELETE", &lock, owner, None).await,
    ];
    for got in writes {
        assert_eq!(got.status, 423, "{:?}", got.body);
        assert!(got.message().ends_with("is archived"), "{:?}", got.body);
    }
    // Reading goes on; nothing changed.
    let got = by_id(&r, "GET", Auth::None, id, None).await;
    assert_eq!((got.status, got.body["body"].clone()), (200, json!("kept")));
    let one = list(&r, &format!("{}/{n}/comments", r.base), "").await;
    assert_eq!(
        (one.total(), issue(&r, n).await["is_locked"].clone()),
        (Some(1), json!(false))
    );
}

#[tokio::test]
async fn bad_input_is_a_4xx_and_changes_nothing() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "target").await;
    let id = comment(&r, &r.owner, n, "original").await["id"]
        .as_i64()
        .unwrap();
    let owner = Auth::Token(&r.owner.token);
    let comments = format!("{}/{n}/comments", r.base);
    let one = format!("{}/comments/{id}", r.base);
    let huge_text = "x".repeat(65_537);
    let at_limit = "é".repeat(65_536);
    // (method, path, content type, body, status, words the message holds)
    let cases: Vec<(&str, &str, &str, String, u16, &str)> = vec![
        (
            "POST",
            &comments,
            "application/json",
            "{\"body\":".into(),
            422,
            "malformed JSON",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "[]".into(),
            422,
            "JSON object",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "".into(),
            422,
            "body is required",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "{}".into(),
            422,
            "missing field `body`",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "{\"body\": 5}".into(),
            422,
            "body: invalid type",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "{\"body\": null}".into(),
            422,
            "body: invalid type",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "{\"body\":\"x\",\"extra\":1}".into(),
            422,
            "unknown field `extra`",
        ),
        (
            "POST",
            &comments,
            "application/json",
            "{\"body\":\"  \\n \"}".into(),
            422,
            "body: must not be empty",
        ),
        (
            "POST",
            &comments,
            "application/json",
            json!({"body": huge_text}).to_string(),
            422,
            "body: is too long",
        ),
        (
            "POST",
            &comments,
            "text/plain",
            "{\"body\":\"x\"}".into(),
            415,
            "Content-Type",
        ),
        (
            "POST",
            &comments,
            "application/json",
            json!({"body": "x".repeat(600_000)}).to_string(),
            413,
            "larger than",
        ),
        (
            "PATCH",
            &one,
            "application/json",
            "{\"body\": [\"x\"]}".into(),
            422,
            "body: invalid type",
        ),
        (
            "PATCH",
            &one,
            "application/json",
            "{\"content\":\"x\"}".into(),
            422,
            "unknown field `content`",
        ),
        (
            "PATCH",
            &one,
            "application/json",
            "{\"body\":\"\"}".into(),
            422,
            "must not be empty",
        ),
        (
            "PATCH",
            &one,
            "application/json",
            json!({"body": huge_text}).to_string(),
            422,
            "too long",
        ),
    ];
    for (method, path, ct, body, status, words) in cases {
        let got = r
            .api
            .raw(method, path, owner, Some(ct), body.clone().into_bytes())
            .await;
        let shown: String = body.chars().take(60).collect();
        assert_eq!(got.status, status, "{method} {shown}: {:?}", got.body);
        assert!(
            got.message().contains(words),
            "{method} {shown}: {:?} lacks {words:?}",
            got.body
        );
        assert!(got.body["url"].is_string(), "Gitea's error shape");
    }
    // Ids and numbers that name nothing: 404 on every route.
    let base = &r.base;
    let paths = [
        format!("{base}/comments/abc"),
        format!("{base}/comments/-1"),
        format!("{base}/comments/0"),
        format!("{base}/comments/99999999999999999999"),
        format!("{base}/comments/{}", id + 1_000_000),
    ];
    for path in &paths {
        for method in ["GET", "PATCH", "DELETE"] {
            let body = (method == "PATCH").then(|| json!({"body": "x"}));
            let got = r.api.call(method, path, owner, body).await;
            assert_eq!(got.status, 404, "{method} {path}: {:?}", got.body);
        }
    }
    for n in ["abc", "999", "-3"] {
        let path = format!("{base}/{n}/comments");
        assert_eq!(
            r.api.call("GET", &path, owner, None).await.status,
            404,
            "GET {path}"
        );
        let got = r
            .api
            .call("POST", &path, owner, Some(json!({"body": "x"})))
            .await;
        assert_eq!(got.status, 404, "POST {path}");
    }
    // A comment of another repository is not found through this one.
    let other = issue_repo(false).await;
    let m = other
        .api
        .new_issue(&other.owner, &other.repo_path, "elsewhere")
        .await;
    let foreign = comment(&other, &other.owner, m, "theirs").await["id"]
        .as_i64()
        .unwrap();
    for method in ["GET", "PATCH", "DELETE"] {
        let body = (method == "PATCH").then(|| json!({"body": "mine now"}));
        let got = by_id(&r, method, owner, foreign, body).await;
        assert_eq!(got.status, 404, "{method}");
    }
    assert_eq!(
        by_id(&other, "GET", Auth::None, foreign, None).await.body["body"],
        "theirs"
    );
    // Nothing changed; a body of exactly 65,536 characters is taken.
    let got = by_id(&r, "GET", Auth::None, id, None).await;
    assert_eq!(got.body["body"], "original");
    assert_eq!(issue(&r, n).await["comments"], 1);
    let listed = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!(listed.total(), Some(1));
    let big = post(&r, &r.owner, n, json!({"body": at_limit})).await;
    assert_eq!(big.status, 201, "{:?}", big.message());
    assert_eq!(big.body["body"].as_str().unwrap().chars().count(), 65_536);
    assert_eq!(issue(&r, n).await["comments"], 2);
}

#[tokio::test]
async fn a_retried_create_with_its_key_makes_one_comment() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "once").await;
    let key = unique("ck");
    let send = || async {
        reqwest::Client::new()
            .post(format!("{}{}/{n}/comments", r.api.base, r.base))
            .header("authorization", format!("token {}", r.writer.token))
            .header("content-type", "application/json")
            .header("idempotency-key", &key)
            .body(json!({"body": "just once"}).to_string())
            .send()
            .await
            .unwrap()
    };
    let first = send().await;
    assert_eq!(first.status(), 201);
    let first_id = first.json::<Value>().await.unwrap()["id"].clone();
    let again = send().await;
    assert_eq!(again.status(), 201);
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(again.json::<Value>().await.unwrap()["id"], first_id);
    assert_eq!(issue(&r, n).await["comments"], 1);
}

#[tokio::test]
async fn concurrent_creates_deletes_and_edits_keep_the_count_exact() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "busy").await;
    let people = [&r.owner, &r.writer, &r.reader, &r.outsider];
    // 24 comments at once, some with mentions (which write the issue on
    // condition of its version), while the issue's title is edited.
    let creates = (0..24).map(|i| {
        let who = people[i % people.len()];
        let text = if i % 3 == 0 {
            format!("#{i} cc @{}", r.writer.name)
        } else {
            format!("#{i}")
        };
        post(&r, who, n, json!({ "body": text }))
    });
    let edits = (0..6).map(|i| r.patch(&r.owner, n, json!({"title": format!("busy {i}")})));
    let (made, edited) = tokio::join!(join_all(creates), join_all(edits));
    assert!(
        made.iter().all(|m| m.status == 201),
        "{:?}",
        made.iter().map(|m| m.status).collect::<Vec<_>>()
    );
    assert!(edited.iter().all(|e| e.status == 201));
    let made: Vec<i64> = made
        .iter()
        .map(|m| m.body["id"].as_i64().unwrap())
        .collect();
    assert_eq!(issue(&r, n).await["comments"], 24);
    let all = list(&r, &format!("{}/{n}/comments", r.base), "limit=50").await;
    assert_eq!(
        (all.total(), all.body.as_array().unwrap().len()),
        (Some(24), 24)
    );
    // Delete 12 of them twice each, at once, while 8 more are created:
    // each delete lands once (204), its twin finds nothing (404).
    let owner = Auth::Token(&r.owner.token);
    let deletes = made[..12]
        .iter()
        .chain(&made[..12])
        .map(|id| by_id(&r, "DELETE", owner, *id, None));
    let more = (0..8).map(|i| post(&r, people[i % 4], n, json!({"body": format!("more {i}")})));
    let (deleted, more) = tokio::join!(join_all(deletes), join_all(more));
    let codes = |v: &[Reply], s: u16| v.iter().filter(|d| d.status == s).count();
    assert_eq!((codes(&deleted, 204), codes(&deleted, 404)), (12, 12));
    assert_eq!(codes(&more, 201), 8);
    // The count, the lists, the repository's count and the table agree.
    assert_eq!(issue(&r, n).await["comments"], 20);
    let all = list(&r, &format!("{}/{n}/comments", r.base), "limit=50").await;
    assert_eq!(
        (all.total(), all.body.as_array().unwrap().len()),
        (Some(20), 20)
    );
    let repo_wide = list(&r, &format!("{}/comments", r.base), "limit=50").await;
    assert_eq!(repo_wide.total(), Some(20));
    let rid = repo_id(&r).await;
    assert_eq!(stored_comments(rid).await.len(), 20);
    assert_eq!(
        stored(&format!("REPO#{rid}"), &issue_sk(n), "comments").await,
        Some(20)
    );
    assert_eq!(
        stored(&format!("REPO#{rid}"), "PROFILE", "num_issue_comments").await,
        Some(20)
    );
    assert_eq!(
        issue(&r, n).await["title"]
            .as_str()
            .map(|t| t.starts_with("busy ")),
        Some(true)
    );
}

#[tokio::test]
async fn deleting_an_issue_or_a_repository_removes_its_comments() {
    let r = issue_repo(false).await;
    let (a, b) = (
        r.api.new_issue(&r.owner, &r.repo_path, "a").await,
        r.api.new_issue(&r.owner, &r.repo_path, "b").await,
    );
    let mut on_a = Vec::new();
    for i in 0..3 {
        on_a.push(
            comment(&r, &r.reader, a, &format!("a{i}")).await["id"]
                .as_i64()
                .unwrap(),
        );
    }
    let kept = comment(&r, &r.reader, b, "b").await["id"].as_i64().unwrap();
    let rid = repo_id(&r).await;
    assert_eq!(
        stored(&format!("REPO#{rid}"), "PROFILE", "num_issue_comments").await,
        Some(4)
    );
    let got = r
        .api
        .call(
            "DELETE",
            &format!("{}/{a}", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(got.status, 204);
    for id in &on_a {
        assert_eq!(by_id(&r, "GET", Auth::None, *id, None).await.status, 404);
    }
    assert_eq!(stored_comments(rid).await, vec![(kept, b)]);
    let all = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!((ids(&all.body), all.total()), (vec![kept], Some(1)));
    assert_eq!(
        stored(&format!("REPO#{rid}"), "PROFILE", "num_issue_comments").await,
        Some(1)
    );
    // The repository: its comments go with it.
    let got = r
        .api
        .call("DELETE", &r.repo_path, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(got.status, 204);
    assert!(stored_comments(rid).await.is_empty());
}
