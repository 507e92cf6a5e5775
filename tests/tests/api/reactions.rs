//! Reactions on issues, pull requests and comments over HTTP, as Gitea
//! serves them: 201 then 200 for the same reaction, Gitea's allowed set,
//! blocks, locked issues, archived and private repositories, comments of
//! another repository, listings (shape, order, paging headers), removal,
//! concurrent identical requests, bad bodies, and the clean-up functions
//! the deletes will call. What is stored is read past the API too.

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

async fn repo_id(r: &IssueRepo) -> i64 {
    let got = r
        .api
        .call("GET", &r.repo_path, Auth::Token(&r.owner.token), None)
        .await;
    got.body["id"].as_i64().unwrap()
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

async fn lock(r: &IssueRepo, n: i64) {
    let p = format!("{}/{n}/lock", r.base);
    let body = Some(json!({"lock_reason": "Too heated"}));
    let got = r
        .api
        .call("PUT", &p, Auth::Token(&r.owner.token), body)
        .await;
    assert_eq!(got.status, 204, "{:?}", got.body);
}

async fn block(r: &IssueRepo, by: &TestUser, whom: &str) {
    let p = format!("/api/v1/user/blocks/{whom}");
    let got = r.api.call("PUT", &p, Auth::Token(&by.token), None).await;
    assert_eq!(got.status, 204, "{:?}", got.body);
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
    let rid = repo_id(&r).await;
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
    let rid = repo_id(&r).await;
    assert_eq!(stored_counts(rid).await, (4, 4, 4));
    // Without credentials: 401.
    let got = send(&r, "DELETE", Auth::None, &t, "confused").await;
    assert_eq!(got.status, 401);
}

#[tokio::test]
async fn reactions_outside_the_allowed_set_are_refused() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "emoji").await;
    let id = comment(&r, &r.owner, n, "c").await;
    for target in [n.to_string(), format!("comments/{id}")] {
        for content in ["smile", "Heart", " heart", "👍", "thumbsup", ""] {
            let got = react(&r, &r.reader, &target, content).await;
            assert_eq!(
                (got.status, got.message()),
                (
                    403,
                    format!("'{content}' is not an allowed reaction").as_str()
                ),
                "{target} {content:?}"
            );
        }
        // A body without `content` names no reaction either (as in Gitea).
        let got = r
            .api
            .call(
                "POST",
                &path(&r, &target),
                Auth::Token(&r.reader.token),
                Some(json!({})),
            )
            .await;
        assert_eq!(got.status, 403, "{:?}", got.body);
        // Every allowed one is taken.
        for content in [
            "+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes",
        ] {
            assert_eq!(react(&r, &r.reader, &target, content).await.status, 201);
        }
    }
    assert_eq!(stored_counts(repo_id(&r).await).await, (16, 16, 16));
}

#[tokio::test]
async fn blocked_users_cannot_react() {
    let r = issue_repo(false).await;
    let (mine, theirs) = (
        r.api.new_issue(&r.owner, &r.repo_path, "owner's").await,
        r.api.new_issue(&r.reader, &r.repo_path, "reader's").await,
    );
    let by_writer = comment(&r, &r.writer, mine, "writer's comment").await;
    let (blocked, snubbed, shunned) = (
        r.api.new_user("rblk").await,
        r.api.new_user("rsnb").await,
        r.api.new_user("rshn").await,
    );
    // Reactions made before a block stay.
    assert_eq!(
        react(&r, &blocked, &mine.to_string(), "eyes").await.status,
        201
    );
    block(&r, &r.owner, &blocked.name).await;
    block(&r, &r.reader, &snubbed.name).await;
    block(&r, &r.writer, &shunned.name).await;
    let refused = |got: Reply, what: &str| {
        assert_eq!(
            (got.status, got.message()),
            (403, "user is blocked"),
            "{what}: {:?}",
            got.body
        );
    };
    // Blocked by the repository's owner: everywhere in the repository.
    for target in [
        mine.to_string(),
        theirs.to_string(),
        format!("comments/{by_writer}"),
    ] {
        refused(react(&r, &blocked, &target, "+1").await, &target);
    }
    // By an issue's poster: on that issue (and its comments) only.
    refused(
        react(&r, &snubbed, &theirs.to_string(), "+1").await,
        "theirs",
    );
    assert_eq!(
        react(&r, &snubbed, &mine.to_string(), "+1").await.status,
        201
    );
    // By a comment's author: on that comment only.
    let c = format!("comments/{by_writer}");
    refused(react(&r, &shunned, &c, "+1").await, "comment");
    assert_eq!(
        react(&r, &shunned, &mine.to_string(), "+1").await.status,
        201
    );
    // Removing is not blocked.
    let got = unreact(&r, &blocked, &mine.to_string(), "eyes").await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let got = list(&r, Auth::None, &mine.to_string(), "").await;
    assert_eq!(
        shown(&got.body),
        vec![pair(&snubbed, "+1"), pair(&shunned, "+1")]
    );
    // Repository admins are not spared (Gitea spares site admins only).
    let repo = r.repo_path.rsplit('/').next().unwrap();
    r.api
        .add_collaborator(&r.owner, &r.owner.name, repo, &snubbed.name, "admin")
        .await;
    refused(
        react(&r, &snubbed, &theirs.to_string(), "heart").await,
        "admin",
    );
    let (admin, _) = api_tests::Api::admin_login();
    block(&r, &r.reader, &admin).await;
    let got = send(&r, "POST", r.api.admin(), &theirs.to_string(), "heart").await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    assert_eq!(
        list(&r, Auth::None, &theirs.to_string(), "").await.total(),
        Some(1)
    );
}

#[tokio::test]
async fn locked_issues_take_reactions_from_writers_only() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.reader, &r.repo_path, "heated").await;
    let t = n.to_string();
    let id = comment(&r, &r.reader, n, "before the lock").await;
    let c = format!("comments/{id}");
    for target in [&t, &c] {
        assert_eq!(react(&r, &r.reader, target, "-1").await.status, 201);
    }
    lock(&r, n).await;
    for target in [&t, &c] {
        // A reader may neither add nor remove.
        for got in [
            react(&r, &r.reader, target, "heart").await,
            unreact(&r, &r.reader, target, "-1").await,
            react(&r, &r.outsider, target, "heart").await,
        ] {
            assert_eq!(
                (got.status, got.message()),
                (403, "no permission to change reaction"),
                "{target}: {:?}",
                got.body
            );
        }
        // Writers and site admins may.
        assert_eq!(react(&r, &r.writer, target, "heart").await.status, 201);
        assert_eq!(react(&r, &r.owner, target, "heart").await.status, 201);
        let got = send(&r, "POST", r.api.admin(), target, "heart").await;
        assert_eq!(got.status, 201, "{:?}", got.body);
        assert_eq!(unreact(&r, &r.writer, target, "heart").await.status, 200);
        // Reading goes on.
        let got = list(&r, Auth::Token(&r.reader.token), target, "").await;
        assert_eq!(got.total(), Some(3), "{target}");
        assert_eq!(got.body[0]["content"], "-1");
    }
}

#[tokio::test]
async fn archived_repositories_take_no_reaction_writes() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "old").await;
    let t = n.to_string();
    let id = comment(&r, &r.owner, n, "kept").await;
    let c = format!("comments/{id}");
    for target in [&t, &c] {
        assert_eq!(react(&r, &r.writer, target, "+1").await.status, 201);
    }
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
    let archived = format!(
        "{} is archived",
        r.repo_path.trim_start_matches("/api/v1/repos/")
    );
    for target in [&t, &c] {
        for got in [
            react(&r, &r.owner, target, "heart").await,
            unreact(&r, &r.writer, target, "+1").await,
        ] {
            assert_eq!(
                (got.status, got.message()),
                (423, archived.as_str()),
                "{target}: {:?}",
                got.body
            );
        }
        let got = list(&r, Auth::None, target, "").await;
        assert_eq!(
            (shown(&got.body), got.total()),
            (vec![pair(&r.writer, "+1")], Some(1))
        );
    }
    assert_eq!(stored_counts(repo_id(&r).await).await, (2, 2, 2));
}

#[tokio::test]
async fn private_repositories_hide_their_reactions() {
    let r = issue_repo(true).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "secret").await;
    let t = n.to_string();
    let id = comment(&r, &r.owner, n, "secret comment").await;
    let c = format!("comments/{id}");
    for target in [&t, &c] {
        assert_eq!(react(&r, &r.reader, target, "eyes").await.status, 201);
        // Strangers, signed in or not, find nothing to read or change: the
        // repository does not exist for them.
        for who in [Auth::Token(&r.outsider.token), Auth::None] {
            let p = path(&r, target);
            let got = r.api.call("GET", &p, who, None).await;
            assert_eq!(got.status, 404, "{target}: {:?}", got.body);
            assert!(
                got.message().starts_with("repository does not exist"),
                "{target}: {:?}",
                got.body
            );
            for method in ["POST", "DELETE"] {
                let got = send(&r, method, who, target, "eyes").await;
                assert_eq!(got.status, 404, "{method} {target}: {:?}", got.body);
            }
        }
        let got = list(&r, Auth::Token(&r.reader.token), target, "").await;
        assert_eq!(shown(&got.body), vec![pair(&r.reader, "eyes")]);
    }
    // Unknown issues and comments are 404 for members too.
    for target in ["999", "comments/999999999", "x", "comments/x"] {
        let got = r
            .api
            .call("GET", &path(&r, target), Auth::Token(&r.owner.token), None)
            .await;
        assert_eq!(got.status, 404, "{target}: {:?}", got.body);
        let got = react(&r, &r.owner, target, "eyes").await;
        assert_eq!(got.status, 404, "{target}: {:?}", got.body);
    }
    assert_eq!(stored_counts(repo_id(&r).await).await, (2, 2, 2));
}

#[tokio::test]
async fn a_comment_of_another_repository_is_not_found() {
    let (a, b) = (issue_repo(false).await, issue_repo(false).await);
    let n = a.api.new_issue(&a.owner, &a.repo_path, "here").await;
    let id = comment(&a, &a.owner, n, "mine").await;
    let c = format!("comments/{id}");
    assert_eq!(react(&a, &a.owner, &c, "heart").await.status, 201);
    // B's owner names A's comment under B: 404 for every method.
    let got = b
        .api
        .call("GET", &path(&b, &c), Auth::Token(&b.owner.token), None)
        .await;
    assert_eq!((got.status, got.message()), (404, "not found"));
    for method in ["POST", "DELETE"] {
        let got = send(&b, method, Auth::Token(&b.owner.token), &c, "heart").await;
        assert_eq!(got.status, 404, "{method}: {:?}", got.body);
    }
    // Nothing stored under B; A's reaction is still there.
    assert!(stored(repo_id(&b).await).await.is_empty());
    let got = list(&a, Auth::None, &c, "").await;
    assert_eq!(shown(&got.body), vec![pair(&a.owner, "heart")]);
}

#[tokio::test]
async fn concurrent_identical_reactions_store_one() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "race").await;
    let id = comment(&r, &r.owner, n, "race too").await;
    for target in [n.to_string(), format!("comments/{id}")] {
        let same = join_all((0..8).map(|_| react(&r, &r.reader, &target, "rocket"))).await;
        let mut statuses: Vec<u16> = same.iter().map(|g| g.status).collect();
        statuses.sort_unstable();
        assert_eq!(
            statuses,
            [200, 200, 200, 200, 200, 200, 200, 201],
            "{target}"
        );
        // Every answer shows the one reaction.
        let created: Vec<&Value> = same.iter().map(|g| &g.body["created_at"]).collect();
        assert!(created.iter().all(|c| *c == created[0]), "{created:?}");
        // Different users and contents at once: each stored, counted exactly.
        let users = [&r.owner, &r.writer, &r.outsider];
        let others = users
            .iter()
            .flat_map(|u| ["heart", "eyes"].map(|c| (*u, c)))
            .map(|(u, c)| react(&r, u, &target, c));
        assert!(join_all(others).await.iter().all(|g| g.status == 201));
        let got = list(&r, Auth::None, &target, "").await;
        assert_eq!(got.total(), Some(7), "{target}");
        assert_eq!(got.body.as_array().unwrap().len(), 7);
    }
    assert_eq!(stored_counts(repo_id(&r).await).await, (14, 14, 14));
    // Concurrent removals of the same reaction remove it once.
    let t = n.to_string();
    let gone = join_all((0..6).map(|_| unreact(&r, &r.reader, &t, "rocket"))).await;
    assert!(gone.iter().all(|g| g.status == 200), "{gone:?}");
    assert_eq!(list(&r, Auth::None, &t, "").await.total(), Some(6));
    assert_eq!(stored_counts(repo_id(&r).await).await, (13, 13, 13));
}

#[tokio::test]
async fn bad_bodies_are_refused_and_change_nothing() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "input").await;
    let id = comment(&r, &r.owner, n, "c").await;
    let auth = Auth::Token(&r.reader.token);
    for target in [n.to_string(), format!("comments/{id}")] {
        let p = path(&r, &target);
        for method in ["POST", "DELETE"] {
            let raw: [(&[u8], &str); 4] = [
                (b"{\"content\": \"heart\"", "malformed JSON"),
                (b"[\"heart\"]", "must be a JSON object"),
                (b"", "request body is required"),
                (b"\"heart\"", "must be a JSON object"),
            ];
            for (body, says) in raw {
                let got = r
                    .api
                    .raw(method, &p, auth, Some("application/json"), body.to_vec())
                    .await;
                assert_eq!(got.status, 422, "{method} {body:?}: {:?}", got.body);
                assert!(got.message().contains(says), "{method}: {:?}", got.body);
            }
            for (body, says) in [
                (
                    json!({"content": "heart", "extra": 1}),
                    "unknown field `extra`",
                ),
                (json!({"reaction": "heart"}), "unknown field `reaction`"),
                (json!({"content": 5}), "content: invalid type: integer"),
                (
                    json!({"content": ["heart"]}),
                    "content: invalid type: sequence",
                ),
                (json!({"content": null}), "content: invalid type: null"),
            ] {
                let got = r.api.call(method, &p, auth, Some(body.clone())).await;
                assert_eq!(got.status, 422, "{method} {body}: {:?}", got.body);
                assert!(
                    got.message().contains(says),
                    "{method} {body}: {:?}",
                    got.body
                );
            }
            // Not JSON at all.
            let got = r
                .api
                .raw(method, &p, auth, Some("text/plain"), b"heart".to_vec())
                .await;
            assert_eq!(got.status, 415, "{method}: {:?}", got.body);
        }
        let got = list(&r, Auth::None, &target, "").await;
        assert_eq!((got.total(), got.body), (Some(0), json!([])));
    }
    assert!(stored(repo_id(&r).await).await.is_empty());
    // Without credentials: 401 before the body is read.
    let got = send(&r, "POST", Auth::None, &n.to_string(), "heart").await;
    assert_eq!(got.status, 401, "{:?}", got.body);
}

/// The clean-up functions the issue and comment deletes call remove what
/// they name, and only that, whatever is left of it.
#[tokio::test]
async fn deleting_a_comment_an_issue_or_a_repository_removes_their_reactions() {
    let r = issue_repo(false).await;
    let (a, b) = (
        r.api.new_issue(&r.owner, &r.repo_path, "a").await,
        r.api.new_issue(&r.owner, &r.repo_path, "b").await,
    );
    let (ca, cb) = (
        comment(&r, &r.owner, a, "on a").await,
        comment(&r, &r.owner, b, "on b").await,
    );
    let (ca2, ta) = (comment(&r, &r.owner, a, "on a, again").await, a.to_string());
    let targets = [
        ta.clone(),
        format!("comments/{ca}"),
        format!("comments/{ca2}"),
        b.to_string(),
        format!("comments/{cb}"),
    ];
    for t in &targets {
        for who in [&r.reader, &r.writer] {
            assert_eq!(react(&r, who, t, "heart").await.status, 201);
        }
    }
    let rid = repo_id(&r).await;
    assert_eq!(stored_counts(rid).await, (10, 10, 10));
    let delete = async |path: &str| {
        let res = r
            .api
            .call("DELETE", path, Auth::Token(&r.owner.token), None)
            .await;
        assert_eq!(res.status, 204, "DELETE {path}: {:?}", res.body);
        api_tests::settle().await;
    };
    // A deleted comment's reactions go (the stream consumer's clean-up).
    delete(&format!("{}/issues/comments/{ca}", r.repo_path)).await;
    assert_eq!(stored_counts(rid).await, (8, 8, 8));
    // A deleted issue's: its own and its comments'; issue b keeps its.
    delete(&format!("{}/issues/{a}", r.repo_path)).await;
    assert_eq!(stored_counts(rid).await, (4, 4, 4));
    assert!(
        stored(rid)
            .await
            .iter()
            .all(|sk| sk.starts_with(&format!("REACT#{b:020}#")))
    );
    let total = async |t: &str| list(&r, Auth::None, t, "").await.total();
    for t in &targets[3..] {
        assert_eq!(total(t).await, Some(2), "{t}");
    }
    // A deleted repository's: all.
    delete(&r.repo_path).await;
    assert!(stored(rid).await.is_empty());
}
