//! Reactions on issues, pull requests and comments over HTTP, as Gitea
//! serves them: 201 then 200 for the same reaction, Gitea's allowed set,
//! blocks, locked issues, archived and private repositories, comments of
//! another repository, listings (shape, order, paging headers), removal,
//! concurrent identical requests, bad bodies, and the clean-up functions
//! the deletes will call. What is stored is read past the API too.
//! The allowed set, blocks, locks, archived and private repositories and
//! other repositories' comments are in `reactions/rules.rs`; bad bodies in
//! `input.rs`; concurrency and the deletes' clean-up in `integrity.rs`.

mod input;
mod integrity;
mod rules;

use api_tests::{IssueRepo, Reply, TestUser, issue_repo, table};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::join_all;
use serde_json::{Value, json};

use api_tests::Auth;

/// `{base}/{target}/reactions` (`target`: an issue number, or
/// `comments/<id>`).
fn path(r: &IssueRepo, target: &str) -> String {
    format!("{}/{target}/reactions", r.base)
}

/// `method` on the target's reactions as `who`, with `{"content": ...}`.
async fn send(r: &IssueRepo, method: &str, who: Auth<'_>, target: &str, content: &str) -> Reply {
    let body = json!({ "content": content });
    r.api.call(method, &path(r, target), who, Some(body)).await
}

async fn react(r: &IssueRepo, who: &TestUser, target: &str, content: &str) -> Reply {
    send(r, "POST", Auth::Token(&who.token), target, content).await
}

async fn unreact(r: &IssueRepo, who: &TestUser, target: &str, content: &str) -> Reply {
    send(r, "DELETE", Auth::Token(&who.token), target, content).await
}

/// The target's reactions as `who` sees them (`query` after `?`).
async fn list(r: &IssueRepo, who: Auth<'_>, target: &str, query: &str) -> Reply {
    let p = format!("{}?{query}", path(r, target));
    let got = r.api.call("GET", &p, who, None).await;
    assert_eq!(got.status, 200, "GET {p}: {:?}", got.body);
    got
}

/// `(login, content)` of each reaction of a list.
fn shown(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|x| {
            let login = x["user"]["login"].as_str().unwrap().to_lowercase();
            (login, x["content"].as_str().unwrap().to_string())
        })
        .collect()
}

fn pair(who: &TestUser, content: &str) -> (String, String) {
    (who.name.to_lowercase(), content.to_string())
}

/// The sort keys of the reaction items stored under repository `repo_id`.
async fn stored(repo_id: i64) -> Vec<String> {
    api_tests::items_under(&format!("REPO#{repo_id}"), "REACT#")
        .await
        .iter()
        .map(|item| item["sk"].as_s().unwrap().clone())
        .collect()
}

/// How many claims, entries and counted reactions are stored.
async fn stored_counts(repo_id: i64) -> (usize, usize, i64) {
    let sks = stored(repo_id).await;
    let claims = sks.iter().filter(|s| s.contains("#U#")).count();
    let entries = sks.iter().filter(|s| s.contains("#T#")).count();
    let (client, table) = table().await;
    let mut counted = 0;
    for sk in sks.iter().filter(|s| s.ends_with("#N")) {
        let item = client
            .get_item()
            .table_name(&table)
            .key("pk", AttributeValue::S(format!("REPO#{repo_id}")))
            .key("sk", AttributeValue::S(sk.clone()))
            .consistent_read(true)
            .send()
            .await
            .unwrap()
            .item
            .unwrap();
        counted += item["n"].as_n().unwrap().parse::<i64>().unwrap();
    }
    (claims, entries, counted)
}

async fn comment(r: &IssueRepo, who: &TestUser, n: i64, text: &str) -> i64 {
    let p = format!("{}/{n}/comments", r.base);
    let body = Some(json!({ "body": text }));
    let got = r.api.call("POST", &p, Auth::Token(&who.token), body).await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    got.body["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_reaction_is_created_once_then_found() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "react").await;
    let t = n.to_string();
    // A reader of a public repository reacts: 201, Gitea's fields in its
    // order (read from the text: parsed JSON sorts its keys).
    let url = format!("{}{}", r.api.base, path(&r, &t));
    let text = reqwest::Client::new()
        .post(&url)
        .header("authorization", format!("token {}", r.reader.token))
        .json(&json!({"content": "heart"}))
        .send()
        .await
        .unwrap();
    assert_eq!(text.status().as_u16(), 201);
    let text = text.text().await.unwrap();
    let at: Vec<usize> = ["user", "content", "created_at"]
        .iter()
        .map(|f| text.find(&format!("\"{f}\":")).unwrap())
        .collect();
    assert!(at[0] < at[1] && at[1] < at[2], "{text}");
    let made: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(made.as_object().unwrap().len(), 3, "{made}");
    assert_eq!(made["content"], "heart");
    assert_eq!(made["user"]["login"], r.reader.name.as_str());
    // Gitea shows the user to the caller: their own e-mail address.
    assert_eq!(
        made["user"]["email"],
        format!("{}@example.com", r.reader.name)
    );
    // The same again: 200 with the reaction as it was.
    let again = react(&r, &r.reader, &t, "heart").await;
    assert_eq!((again.status, &again.body), (200, &made));
    let rid = r.repo_id().await;
    assert_eq!(stored_counts(rid).await, (1, 1, 1));
    // Listed, to anonymous callers too (placeholder e-mail then).
    let got = list(&r, Auth::None, &t, "").await;
    assert_eq!(got.total(), Some(1));
    assert_eq!(shown(&got.body), vec![pair(&r.reader, "heart")]);
    assert_eq!(got.body[0]["created_at"], made["created_at"]);
    assert!(
        got.body[0]["user"]["email"]
            .as_str()
            .unwrap()
            .contains("@noreply."),
        "{:?}",
        got.body
    );
    // Another content is another reaction; pull requests take them too.
    assert_eq!(react(&r, &r.reader, &t, "+1").await.status, 201);
    let pr = json!({"title": "p", "head": "p", "base": "main"});
    let p = r
        .api
        .call(
            "POST",
            &format!("{}/pulls", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(pr),
        )
        .await;
    let p = p.body["number"].as_i64().unwrap().to_string();
    assert_eq!(react(&r, &r.writer, &p, "rocket").await.status, 201);
    let got = list(&r, Auth::Token(&r.owner.token), &p, "").await;
    assert_eq!(
        (shown(&got.body), got.total()),
        (vec![pair(&r.writer, "rocket")], Some(1))
    );
    assert_eq!(list(&r, Auth::None, &t, "").await.total(), Some(2));
    assert_eq!(stored_counts(rid).await, (3, 3, 3));
}

#[tokio::test]
async fn listings_are_oldest_first_and_paged() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "many").await;
    let t = n.to_string();
    let steps = [
        (&r.reader, "heart"),
        (&r.writer, "+1"),
        (&r.reader, "+1"),
        (&r.owner, "eyes"),
        (&r.outsider, "-1"),
    ];
    for (who, content) in steps {
        assert_eq!(react(&r, who, &t, content).await.status, 201);
    }
    let want: Vec<_> = steps.iter().map(|(w, c)| pair(w, c)).collect();
    let owner = Auth::Token(&r.owner.token);
    let all = list(&r, owner, &t, "").await;
    assert_eq!((shown(&all.body), all.total()), (want.clone(), Some(5)));
    assert_eq!(all.header("link"), None);
    // Pages of 2: Gitea's headers.
    let first = list(&r, owner, &t, "limit=2").await;
    assert_eq!(shown(&first.body), want[..2].to_vec());
    let link = first.header("link").unwrap();
    assert!(
        link.contains("rel=\"next\"") && link.contains("rel=\"last\""),
        "{link}"
    );
    let second = list(&r, owner, &t, "limit=2&page=2").await;
    assert_eq!(
        (shown(&second.body), second.total()),
        (want[2..4].to_vec(), Some(5))
    );
    let link = second.header("link").unwrap();
    for rel in ["next", "last", "first", "prev"] {
        assert!(link.contains(&format!("rel=\"{rel}\"")), "{link}");
    }
    assert!(
        link.contains(&format!("{}?limit=2&page=3>", path(&r, &t))),
        "{link}"
    );
    let last = list(&r, owner, &t, "limit=2&page=3").await;
    assert_eq!(shown(&last.body), want[4..].to_vec());
    let past = list(&r, owner, &t, "limit=2&page=9").await;
    assert_eq!((past.total(), past.body), (Some(5), json!([])));
    // A comment's reactions are its own: not in the issue's list, nor the
    // issue's in the comment's.
    let id = comment(&r, &r.owner, n, "hello").await;
    let c = format!("comments/{id}");
    assert_eq!(react(&r, &r.reader, &c, "laugh").await.status, 201);
    assert_eq!(react(&r, &r.writer, &c, "hooray").await.status, 201);
    let on_comment = list(&r, Auth::None, &c, "").await;
    assert_eq!(
        (shown(&on_comment.body), on_comment.total()),
        (
            vec![pair(&r.reader, "laugh"), pair(&r.writer, "hooray")],
            Some(2)
        )
    );
    let paged = list(&r, Auth::None, &c, "limit=1&page=2").await;
    assert_eq!(shown(&paged.body), vec![pair(&r.writer, "hooray")]);
    assert!(paged.header("link").unwrap().contains("rel=\"prev\""));
    assert_eq!(list(&r, owner, &t, "").await.total(), Some(5));
}

#[tokio::test]
async fn removing_a_reaction_and_one_that_is_not_there() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "undo").await;
    let t = n.to_string();
    let id = comment(&r, &r.writer, n, "on it").await;
    let c = format!("comments/{id}");
    for target in [&t, &c] {
        assert_eq!(react(&r, &r.reader, target, "confused").await.status, 201);
        assert_eq!(react(&r, &r.writer, target, "confused").await.status, 201);
        // Gitea answers 200 with an empty body.
        let gone = unreact(&r, &r.reader, target, "confused").await;
        assert_eq!((gone.status, &gone.body), (200, &Value::Null), "{target}");
        let got = list(&r, Auth::None, target, "").await;
        assert_eq!(
            (shown(&got.body), got.total()),
            (vec![pair(&r.writer, "confused")], Some(1)),
            "{target}"
        );
        // Not there (any more), or not a reaction at all: still 200, and
        // nothing else goes.
        for content in ["confused", "heart", "smile", ""] {
            let got = unreact(&r, &r.reader, target, content).await;
            assert_eq!((got.status, &got.body), (200, &Value::Null), "{content}");
        }
        assert_eq!(list(&r, Auth::None, target, "").await.total(), Some(1));
        // Reacting again after removing is a new reaction.
        assert_eq!(react(&r, &r.reader, target, "confused").await.status, 201);
        let got = list(&r, Auth::None, target, "").await;
        assert_eq!(
            shown(&got.body),
            vec![pair(&r.writer, "confused"), pair(&r.reader, "confused")]
        );
    }
    let rid = r.repo_id().await;
    assert_eq!(stored_counts(rid).await, (4, 4, 4));
    // Without credentials: 401.
    let got = send(&r, "DELETE", Auth::None, &t, "confused").await;
    assert_eq!(got.status, 401);
}
