//! Bad input is a 4xx and changes nothing; a retried create makes one comment.

use super::*;

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

/// A window that ends before it starts holds nothing: an empty page, not a
/// 500 (found by fuzzing the seeded large repository). Search too.
#[tokio::test]
async fn windows_ending_before_they_start_are_empty() {
    let r = issue_repo(false).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "windows").await;
    comment(&r, &r.owner, n, "inside every window but these").await;
    let window = "since=4076-02-12T05:18:12Z&before=2001-08-29T05:43:28Z";
    for path in [
        format!("{}/comments?{window}", r.base),
        format!("{}/{n}/comments?{window}", r.base),
        format!("{}/comments?{window}&page=92495&limit=50", r.base),
        format!("/api/v1/repos/issues/search?{window}&state=all"),
        format!("{}?{window}&state=all", r.base),
    ] {
        let res = r
            .api
            .call("GET", &path, Auth::Token(&r.owner.token), None)
            .await;
        assert_eq!(res.status, 200, "GET {path}: {:?}", res.body);
        assert_eq!(res.body, serde_json::json!([]), "GET {path}");
        assert_eq!(res.total(), Some(0), "GET {path}");
    }
}
