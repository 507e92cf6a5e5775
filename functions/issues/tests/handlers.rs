//! In-process tests of the issue write path against DynamoDB Local.

use ::issues::Api;
use serde_json::json;
use shared::{
    Error,
    accounts::users,
    db::{self, keys},
    http::App,
    issues::{self, edit},
    repos::{self, NewRepo},
    testing,
};

async fn setup() -> (App, String, i64) {
    let app = testing::app().await;
    let (user, token) = testing::seed_user(&app, "ivy", false, &["write:issue"]).await;
    let owner = users::get(&app.db, &user.name).await.unwrap().unwrap();
    let new = NewRepo {
        name: "app".into(),
        description: String::new(),
        private: false,
        default_branch: "main".into(),
    };
    let repo = repos::create(&app.db, &owner, new).await.unwrap();
    (app, token, repo.id)
}

#[tokio::test]
async fn a_body_edit_against_an_outdated_version_is_refused() {
    let (app, token, repo_id) = setup().await;
    assert_eq!(
        testing::call::<Api>(
            &app,
            "POST",
            "/api/v1/repos/ivy/app/issues",
            Some(&token),
            Some(json!({"title": "t", "body": "v0"}))
        )
        .await
        .0,
        201
    );
    let stale = issues::find(&app.db, repo_id, 1).await.unwrap();
    // Someone else changes the body first.
    let (status, _) = testing::call::<Api>(
        &app,
        "PATCH",
        "/api/v1/repos/ivy/app/issues/1",
        Some(&token),
        Some(json!({"body": "v1"})),
    )
    .await;
    assert_eq!(status, 201);
    let v = stale.content_version;
    let err = edit::update(&app.db, stale, Some(v), |i| {
        i.body = "v2".into();
        Ok(())
    })
    .await
    .unwrap_err();
    assert!(matches!(err, issues::Error::Stale), "{err:?}");
    // Shown to clients as a 400.
    assert!(matches!(Error::from(err), Error::BadRequest(_)));
    assert_eq!(issues::find(&app.db, repo_id, 1).await.unwrap().body, "v1");
}

#[tokio::test]
async fn mentions_and_listing_keys_are_stored() {
    let (app, token, repo_id) = setup().await;
    let body = json!({"title": "ping @Bob", "body": "and @carol."});
    assert_eq!(
        testing::call::<Api>(
            &app,
            "POST",
            "/api/v1/repos/ivy/app/issues",
            Some(&token),
            Some(body)
        )
        .await
        .0,
        201
    );
    let item = app.db.get(keys::issue(repo_id, 1)).await.unwrap().unwrap();
    let stored: issues::IssueRecord = shared::db::from_item(item.clone()).unwrap();
    assert_eq!(stored.mentions, ["bob", "carol"]);
    assert_eq!(
        item["gsi1pk"].as_s().unwrap(),
        &keys::issue_list_pk(repo_id, false, false)
    );
    // Closing moves it to the closed partition of the listing index.
    testing::call::<Api>(
        &app,
        "PATCH",
        "/api/v1/repos/ivy/app/issues/1",
        Some(&token),
        Some(json!({"state": "closed"})),
    )
    .await;
    let item = app.db.get(keys::issue(repo_id, 1)).await.unwrap().unwrap();
    assert_eq!(
        item["gsi1pk"].as_s().unwrap(),
        &keys::issue_list_pk(repo_id, false, true)
    );
}

#[tokio::test]
async fn a_body_that_is_not_utf8_is_a_400_and_changes_nothing() {
    let (app, token, repo_id) = setup().await;
    let bad = [b'{', b'"', b't', 0xff, 0xfe, b'"', b'}'];
    let req = testing::base64_event("POST", "/api/v1/repos/ivy/app/issues", &token, &bad);
    let (status, body) = testing::parts(&shared::http::handle::<Api>(&app, req).await);
    assert_eq!(status, 400, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("UTF-8"),
        "{body}"
    );
    assert_eq!(repos::stats(&app.db, repo_id).await.unwrap().last_index, 0);
}

#[tokio::test]
async fn a_comment_moves_both_counts_and_an_issue_edit_keeps_them() {
    let (app, token, repo_id) = setup().await;
    let call = |method: &'static str, path: &'static str, body: serde_json::Value| {
        testing::call::<Api>(&app, method, path, Some(&token), Some(body))
    };
    assert_eq!(
        call(
            "POST",
            "/api/v1/repos/ivy/app/issues",
            json!({"title": "t"})
        )
        .await
        .0,
        201
    );
    let loaded = issues::find(&app.db, repo_id, 1).await.unwrap();
    let (status, body) = call(
        "POST",
        "/api/v1/repos/ivy/app/issues/1/comments",
        json!({"body": "hi"}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    // An edit from the read made before the comment re-reads: it cannot
    // write the old count back.
    let edited = edit::update(&app.db, loaded, None, |i| {
        i.title = "t2".into();
        Ok(())
    })
    .await
    .unwrap();
    assert_eq!((edited.title.as_str(), edited.comments), ("t2", 1));
    let stats = repos::stats(&app.db, repo_id).await.unwrap();
    assert_eq!((stats.num_issue_comments, stats.num_pull_comments), (1, 0));
    let id = body["id"].as_i64().unwrap();
    let stored = app
        .db
        .get(keys::comment(repo_id, id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored["gsi1pk"].as_s().unwrap(),
        &keys::issue_comments_pk(repo_id, 1)
    );
}

/// At most `MAX_PURGING` deleted issues of a repository are cleaned up at
/// once: past that a delete answers 503 and changes nothing; once one is
/// done, it goes through and marks its issue.
#[tokio::test]
async fn deletes_past_the_clean_up_backlog_wait() {
    use db::Value as AttributeValue;
    let (app, token, repo_id) = setup().await;
    let call = |method: &'static str, path: &'static str, body| {
        testing::call::<Api>(&app, method, path, Some(&token), body)
    };
    let issue = json!({"title": "busy"});
    assert_eq!(
        call("POST", "/api/v1/repos/ivy/app/issues", Some(issue))
            .await
            .0,
        201
    );
    let comment = json!({"body": "one"});
    let path = "/api/v1/repos/ivy/app/issues/1/comments";
    assert_eq!(call("POST", path, Some(comment)).await.0, 201);
    let numbers = |range: std::ops::Range<i64>| {
        AttributeValue::Ns(range.map(|n| (n + 1000).to_string()).collect())
    };
    let set = |change: db::Change| {
        let db = &app.db;
        async move {
            db.change(
                keys::repo_stats(repo_id),
                change,
                None,
                db::Returns::Nothing,
            )
            .await
            .unwrap();
        }
    };
    set(db::Change::new().add("purging", numbers(0..issues::MAX_PURGING))).await;
    let (status, body) = call("DELETE", "/api/v1/repos/ivy/app/issues/1", None).await;
    assert_eq!(status, 503, "{body:?}");
    assert!(
        issues::find(&app.db, repo_id, 1).await.is_ok(),
        "the issue stays"
    );
    set(db::Change::new().delete("purging", numbers(0..1))).await;
    let (status, body) = call("DELETE", "/api/v1/repos/ivy/app/issues/1", None).await;
    assert_eq!(status, 204, "{body:?}");
    let stats = repos::stats(&app.db, repo_id).await.unwrap();
    assert!(stats.purging.contains(&1), "{:?}", stats.purging);
    assert_eq!(stats.num_issue_comments, 0, "its comments left the count");
}
