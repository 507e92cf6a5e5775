//! `Idempotency-Key` on creating routes: a retry with the same key, caller
//! and request replays the first completed answer and creates nothing; a
//! retry racing the first gets 409; the key reused for another request is
//! refused; keys are per caller; token creation ignores the header.

use api_tests::{
    Api, Auth, IssueRepo, Reply,
    deploy::{Team, creates, infra},
    issue_repo, unique,
};
use futures::future::join_all;
use serde_json::{Value, json};

const REPLAYED: &str = "idempotent-replayed";

/// Sends JSON with an `Authorization` value and an optional key (the
/// shared helpers cannot set extra headers).
async fn send(
    api: &Api,
    method: &str,
    path: &str,
    authorization: &str,
    key: Option<&str>,
    body: &Value,
) -> Reply {
    // A client per call: each test has its own runtime, and a pooled
    // connection must not outlive the runtime that opened it.
    let http = reqwest::Client::new();
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("valid method");
    let mut req = http
        .request(method.clone(), format!("{}{path}", api.base))
        .header("authorization", authorization)
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(k) = key {
        req = req.header("idempotency-key", k);
    }
    let res = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = res.bytes().await.expect("response body");
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    Reply {
        status,
        headers,
        body,
    }
}

fn token(t: &str) -> String {
    format!("token {t}")
}

/// Creates an issue in `r` as its owner with `key`.
async fn create_issue(r: &IssueRepo, key: Option<&str>, body: &Value) -> Reply {
    send(&r.api, "POST", &r.base, &token(&r.owner.token), key, body).await
}

/// (open_issues_count of the repository, X-Total-Count of its issue list)
async fn issue_counts(r: &IssueRepo) -> (i64, String) {
    let (open, _) = r.open_count().await;
    let list = r
        .api
        .call(
            "GET",
            &format!("{}?state=all&type=issues", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    (open, list.header("x-total-count").unwrap_or("").to_string())
}

#[tokio::test]
async fn a_retried_issue_create_is_replayed_and_creates_once() {
    let r = issue_repo(false).await;
    let key = unique("key");
    let body = json!({"title": unique("crash")});
    let first = create_issue(&r, Some(&key), &body).await;
    assert_eq!(first.status, 201, "{:?}", first.body);
    assert_eq!(
        first.header(REPLAYED),
        None,
        "the first answer is no replay"
    );
    let again = create_issue(&r, Some(&key), &body).await;
    assert_eq!(again.status, 201, "{:?}", again.body);
    assert_eq!(again.body, first.body, "the replay is the first answer");
    assert_eq!(again.body["number"], json!(1));
    assert_eq!(again.header(REPLAYED), Some("true"));
    assert_eq!(again.header("content-type"), first.header("content-type"));
    // The caller is the user, not the token: another token of the same
    // user replays too.
    let other = r
        .api
        .token(&r.owner.name, &r.owner.password, &["all"])
        .await;
    let third = send(
        &r.api,
        "POST",
        &r.base,
        &format!("Bearer {other}"),
        Some(&key),
        &body,
    )
    .await;
    assert_eq!((third.status, third.header(REPLAYED)), (201, Some("true")));
    assert_eq!(third.body, first.body);
    assert_eq!(issue_counts(&r).await, (1, "1".to_string()));
}

#[tokio::test]
async fn concurrent_retries_create_one_issue() {
    let r = issue_repo(false).await;
    let key = unique("key");
    let body = json!({"title": unique("race")});
    let replies = join_all((0..10).map(|_| create_issue(&r, Some(&key), &body))).await;
    let statuses: Vec<u16> = replies.iter().map(|x| x.status).collect();
    let created: Vec<&Reply> = replies.iter().filter(|x| x.status == 201).collect();
    assert!(!created.is_empty(), "at least one 201: {statuses:?}");
    assert!(
        replies.iter().all(|x| x.status == 201 || x.status == 409),
        "only 201 or 409: {statuses:?}"
    );
    for c in &created {
        assert_eq!(c.body, created[0].body, "every 201 is the same answer");
    }
    assert_eq!(
        created
            .iter()
            .filter(|c| c.header(REPLAYED).is_none())
            .count(),
        1,
        "exactly one original answer: {statuses:?}"
    );
    assert_eq!(created[0].body["number"], json!(1));
    assert_eq!(issue_counts(&r).await, (1, "1".to_string()));
    // After the race, a retry is a plain replay.
    let later = create_issue(&r, Some(&key), &body).await;
    assert_eq!((later.status, later.header(REPLAYED)), (201, Some("true")));
    assert_eq!(later.body, created[0].body);
}

#[tokio::test]
async fn a_key_reused_for_another_request_is_refused() {
    let r = issue_repo(false).await;
    let key = unique("key");
    let first = create_issue(&r, Some(&key), &json!({"title": "one"})).await;
    assert_eq!(first.status, 201, "{:?}", first.body);
    let other_repo = r.api.new_repo(&r.owner, "/api/v1/user/repos", false).await;
    let other_base = format!("/api/v1/repos/{}/{other_repo}/issues", r.owner.name);
    let rows: [(&str, String, Value); 3] = [
        ("other body", r.base.clone(), json!({"title": "two"})),
        (
            "same body, other path",
            other_base.clone(),
            json!({"title": "one"}),
        ),
        (
            "same body, query added",
            format!("{}?x=1", r.base),
            json!({"title": "one"}),
        ),
    ];
    for (row, path, body) in rows {
        let again = send(
            &r.api,
            "POST",
            &path,
            &token(&r.owner.token),
            Some(&key),
            &body,
        )
        .await;
        assert_eq!(again.status, 422, "{row}: {:?}", again.body);
        assert_eq!(again.header(REPLAYED), None, "{row}");
        assert!(
            again.message().contains("Idempotency-Key"),
            "{row}: {:?}",
            again.body
        );
    }
    assert_eq!(
        issue_counts(&r).await,
        (1, "1".to_string()),
        "nothing more created"
    );
    let other = r
        .api
        .call("GET", &other_base, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(
        other.body,
        json!([]),
        "nothing created in the other repository"
    );
}

#[tokio::test]
async fn a_refused_create_is_replayed_and_a_new_key_then_creates() {
    let r = issue_repo(false).await;
    let key = unique("key");
    let bad = json!({"title": ""});
    let first = create_issue(&r, Some(&key), &bad).await;
    assert_eq!(first.status, 422, "{:?}", first.body);
    let again = create_issue(&r, Some(&key), &bad).await;
    assert_eq!(again.status, 422, "{:?}", again.body);
    assert_eq!(again.body, first.body, "the 4xx is replayed as it was");
    assert_eq!(again.header(REPLAYED), Some("true"));
    // The key stays bound to the refused request: fixing the body needs a
    // new key.
    let good = json!({"title": unique("fixed")});
    let reused = create_issue(&r, Some(&key), &good).await;
    assert_eq!(reused.status, 422, "{:?}", reused.body);
    assert_eq!(issue_counts(&r).await, (0, "0".to_string()));
    let fresh = create_issue(&r, Some(&unique("key")), &good).await;
    assert_eq!(fresh.status, 201, "{:?}", fresh.body);
    assert_eq!(fresh.header(REPLAYED), None);
    assert_eq!(issue_counts(&r).await, (1, "1".to_string()));
}

/// Sends a deploy create twice with one key: the second is a replay and
/// `count` rose by one.
async fn deploy_replay(t: &Team, path: &str, body: &Value, list: &str) {
    let count = || async { infra::count(&t.get(list).await) };
    let before = count().await;
    let auth = format!("Bearer {}", t.token);
    let key = unique("key");
    let api_path = format!("/api/v1{path}");
    let first = send(&t.api, "POST", &api_path, &auth, Some(&key), body).await;
    assert_eq!(first.status, 201, "{path}: {:?}", first.body);
    assert!(first.body["uuid"].is_string(), "{path}: {:?}", first.body);
    let again = send(&t.api, "POST", &api_path, &auth, Some(&key), body).await;
    assert_eq!(again.status, 201, "{path}: {:?}", again.body);
    assert_eq!(
        again.body, first.body,
        "{path}: the replay is the first answer"
    );
    assert_eq!(again.header(REPLAYED), Some("true"), "{path}");
    assert_eq!(count().await, before + 1, "{path}: one object created");
    // Deploy renders "unprocessable" as 400.
    let mut other = body.clone();
    other["description"] = json!("another request");
    let clash = send(&t.api, "POST", &api_path, &auth, Some(&key), &other).await;
    assert_eq!(clash.status, 400, "{path}: {:?}", clash.body);
    assert!(
        clash.message().contains("Idempotency-Key"),
        "{path}: {:?}",
        clash.body
    );
    assert_eq!(clash.header(REPLAYED), None, "{path}");
    assert_eq!(count().await, before + 1, "{path}: nothing more created");
}

#[tokio::test]
async fn deploy_creates_are_replayed() {
    let t = Team::new().await;
    let image = creates::valid(&t, "dockerimage");
    deploy_replay(&t, "/applications/dockerimage", &image, "/applications").await;
    let project = json!({"name": unique("proj")});
    deploy_replay(&t, "/projects", &project, "/projects").await;
}

#[tokio::test]
async fn invalid_keys_are_refused_before_anything_is_created() {
    let r = issue_repo(false).await;
    let t = Team::new().await;
    let body = json!({"title": unique("bad key")});
    let long = "k".repeat(256);
    let rows: [(&str, &str); 3] = [
        ("256 characters", &long),
        ("a space", "two words"),
        ("a tab", "tab\there"),
    ];
    let apps = creates::count(&t).await;
    let image = creates::valid(&t, "dockerimage");
    let deploy_auth = format!("Bearer {}", t.token);
    for (row, key) in rows {
        let res = create_issue(&r, Some(key), &body).await;
        assert_eq!(res.status, 400, "tracker, {row}: {:?}", res.body);
        assert!(
            res.message().contains("Idempotency-Key"),
            "tracker, {row}: {:?}",
            res.body
        );
        let path = "/api/v1/applications/dockerimage";
        let res = send(&t.api, "POST", path, &deploy_auth, Some(key), &image).await;
        assert_eq!(res.status, 400, "deploy, {row}: {:?}", res.body);
        assert!(
            res.message().contains("Idempotency-Key"),
            "deploy, {row}: {:?}",
            res.body
        );
    }
    assert_eq!(issue_counts(&r).await, (0, "0".to_string()));
    assert_eq!(creates::count(&t).await, apps, "no application created");
    // The bounds themselves are accepted.
    let longest = "k".repeat(255);
    for (row, key) in [("255 characters", longest.as_str()), ("one character", "k")] {
        let res = create_issue(&r, Some(key), &json!({"title": row})).await;
        assert_eq!(res.status, 201, "{row}: {:?}", res.body);
    }
    assert_eq!(issue_counts(&r).await, (2, "2".to_string()));
}

/// A non-ASCII byte cannot cross the local emulator (it answers 500 before
/// the function runs), so the rule is checked on the parser itself.
#[test]
fn non_ascii_and_control_bytes_are_not_keys() {
    use shared::http::idempotency::parse_key;
    for (row, raw) in [
        ("latin-1 byte", &b"ab\xe9cd"[..]),
        ("utf-8 letter", "clé".as_bytes()),
        ("control byte", b"a\x01b"),
        ("delete", b"a\x7fb"),
        ("empty", b""),
    ] {
        assert!(parse_key(raw).is_err(), "{row} must be refused");
    }
    assert_eq!(parse_key(b"~!azAZ09{}").ok(), Some("~!azAZ09{}"));
}

#[tokio::test]
async fn keys_are_scoped_per_caller() {
    let r = issue_repo(false).await;
    let key = unique("key");
    let body = json!({"title": unique("shared")});
    let mine = create_issue(&r, Some(&key), &body).await;
    assert_eq!(mine.status, 201, "{:?}", mine.body);
    let writer = token(&r.writer.token);
    let theirs = send(&r.api, "POST", &r.base, &writer, Some(&key), &body).await;
    assert_eq!(theirs.status, 201, "{:?}", theirs.body);
    assert_eq!(theirs.header(REPLAYED), None, "not the owner's answer");
    assert_eq!(theirs.body["number"], json!(2));
    assert_eq!(theirs.body["user"]["login"], json!(r.writer.name));
    // B's retry replays B's answer, not A's.
    let replay = send(&r.api, "POST", &r.base, &writer, Some(&key), &body).await;
    assert_eq!(
        (replay.status, replay.header(REPLAYED)),
        (201, Some("true"))
    );
    assert_eq!(replay.body, theirs.body);
    assert_eq!(issue_counts(&r).await, (2, "2".to_string()));
}

#[tokio::test]
async fn token_creation_ignores_the_key() {
    let api = Api::from_env();
    let u = api.new_user("idtok").await;
    let path = format!("/api/v1/users/{}/tokens", u.name);
    let basic = {
        use base64::{Engine, engine::general_purpose::STANDARD};
        format!(
            "Basic {}",
            STANDARD.encode(format!("{}:{}", u.name, u.password))
        )
    };
    let key = unique("key");
    let mut secrets = Vec::new();
    for row in ["first", "second"] {
        let body = json!({"name": unique(row), "scopes": ["read:user"]});
        let res = send(&api, "POST", &path, &basic, Some(&key), &body).await;
        assert_eq!(res.status, 201, "{row}: {:?}", res.body);
        assert_eq!(res.header(REPLAYED), None, "{row}");
        assert_eq!(res.body["name"], body["name"], "{row}");
        secrets.push(res.body["sha1"].as_str().expect("sha1").to_string());
    }
    assert_ne!(secrets[0], secrets[1], "each create shows its own secret");
    // Even an invalid key is ignored there.
    let body = json!({"name": unique("third"), "scopes": ["read:user"]});
    let res = send(&api, "POST", &path, &basic, Some("two words"), &body).await;
    assert_eq!(res.status, 201, "{:?}", res.body);
    let list = api
        .call("GET", &path, Auth::Basic(&u.name, &u.password), None)
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    // The helper's own token plus the three made here.
    assert_eq!(
        list.body.as_array().map(Vec::len),
        Some(4),
        "{:?}",
        list.body
    );
}
