//! Who may react where: Gitea's allowed set, blocked users, locked
//! issues, archived and private repositories, and comments of another
//! repository.

use super::*;

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
    assert_eq!(stored_counts(r.repo_id().await).await, (16, 16, 16));
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
    assert_eq!(stored_counts(r.repo_id().await).await, (2, 2, 2));
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
    assert_eq!(stored_counts(r.repo_id().await).await, (2, 2, 2));
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
    assert!(stored(b.repo_id().await).await.is_empty());
    let got = list(&a, Auth::None, &c, "").await;
    assert_eq!(shown(&got.body), vec![pair(&a.owner, "heart")]);
}
