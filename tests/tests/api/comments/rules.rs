//! Who may comment when: locked issues, blocked users, archived repositories.

use super::*;

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
