//! `PATCH /pulls/{index}` guards: bad input is named and changes nothing,
//! who may edit, and counters that stay exact under concurrent edits.

use api_tests::{Auth, issue_repo};
use futures::future::join_all;
use serde_json::{Value, json};

use super::edit::label;
use super::{get_pull, list_pulls, open_pull, patch_pull};

#[tokio::test]
async fn bad_input_is_named_and_changes_nothing() {
    let r = issue_repo(false).await;
    let ms = r.milestone("b").await;
    let bug = label(&r, "bug").await;
    let n = open_pull(
        &r,
        &r.writer,
        "bad",
        json!({"milestone": ms, "labels": [bug]}),
    )
    .await;
    let before = get_pull(&r, n).await;
    let path = format!("{}/pulls/{n}", r.repo_path);
    let long = "x".repeat(256);
    let huge = "y".repeat(65_537);
    for (body, field) in [
        (json!({"title": 5}), "title"),
        (json!({"body": ["b"]}), "body"),
        (json!({"labels": ["bug"]}), "labels"),
        (json!({"labels": bug}), "labels"),
        (json!({"milestone": "one"}), "milestone"),
        (json!({"state": true}), "state"),
        (json!({"assignees": "someone"}), "assignees"),
        (json!({"due_date": 20300101}), "due_date"),
        (json!({"unset_due_date": "yes"}), "unset_due_date"),
        (json!({"allow_maintainer_edit": 1}), "allow_maintainer_edit"),
        (json!({"base": 7}), "base"),
        (json!({"title": long}), "title"),
        (json!({"body": huge}), "body"),
    ] {
        let got = patch_pull(&r, &r.writer, n, body.clone()).await;
        assert_eq!(got.status, 422, "{body}: {:?}", got.body);
        assert!(
            got.message().starts_with(field),
            "{body}: {}",
            got.message()
        );
    }
    for (body, message) in [
        (
            json!({"labels": [999_999_999], "title": "x"}),
            "label does not exist [id: 999999999]",
        ),
        (
            json!({"milestone": 999_999_999, "title": "x"}),
            "milestone does not exist [id: 999999999]",
        ),
        (
            json!({"assignees": ["nobody-zz7"], "title": "x"}),
            "Assignee does not exist: [name: nobody-zz7]",
        ),
    ] {
        let got = patch_pull(&r, &r.writer, n, body.clone()).await;
        assert_eq!((got.status, got.message()), (422, message), "{body}");
    }
    for (raw, ct, status) in [
        ("{\"title\":", "application/json", 422),
        ("[1]", "application/json", 422),
        ("", "application/json", 422),
        ("title=x", "application/x-www-form-urlencoded", 415),
    ] {
        let got = r
            .api
            .raw(
                "PATCH",
                &path,
                Auth::Token(&r.writer.token),
                Some(ct),
                raw.into(),
            )
            .await;
        assert_eq!(got.status, status, "{raw:?}: {:?}", got.body);
        assert!(!got.message().is_empty(), "{raw:?} names the problem");
    }
    assert_eq!(get_pull(&r, n).await, before, "nothing changed");
    assert_eq!(r.counts(ms).await, (1, 0));
    // Fields Gitea does not know are ignored, as on every tracker route.
    let got = patch_pull(
        &r,
        &r.writer,
        n,
        json!({"colour": "blue", "title": "renamed"}),
    )
    .await;
    assert_eq!(
        (got.status, got.body["title"].as_str()),
        (201, Some("renamed"))
    );
    assert!(got.body.get("colour").is_none());
}

#[tokio::test]
async fn who_may_edit() {
    let r = issue_repo(false).await;
    let n = open_pull(&r, &r.writer, "perm", json!({})).await;
    let issue = r.create(&r.writer, json!({"title": "an issue"})).await["number"]
        .as_i64()
        .unwrap();
    let before = get_pull(&r, n).await;
    let body = json!({"title": "hijack"});
    let path = format!("{}/pulls/{n}", r.repo_path);
    let got = r
        .api
        .call("PATCH", &path, Auth::None, Some(body.clone()))
        .await;
    assert_eq!((got.status, got.message()), (401, "token is required"));
    // Neither poster nor writer: Gitea's 403 with an empty body.
    for who in [&r.outsider, &r.reader] {
        let got = patch_pull(&r, who, n, body.clone()).await;
        assert_eq!(
            (got.status, got.body.clone()),
            (403, Value::Null),
            "{}",
            who.name
        );
    }
    // Tokens need write:repository (Gitea's router puts pull requests in
    // the repository group): read:repository or write:issue is not enough.
    for scopes in [["read:repository"], ["write:issue"]] {
        let token = r
            .api
            .token(&r.writer.name, &r.writer.password, &scopes)
            .await;
        let got = r
            .api
            .call("PATCH", &path, Auth::Token(&token), Some(body.clone()))
            .await;
        assert_eq!(got.status, 403, "{scopes:?}: {:?}", got.body);
        assert!(
            got.message()
                .starts_with("token does not have at least one of required scope(s)"),
            "{scopes:?}: {:?}",
            got.body
        );
    }
    // Not a pull request, or no such number: 404.
    let got = patch_pull(&r, &r.writer, issue, body.clone()).await;
    assert_eq!(
        (got.status, got.message()),
        (
            404,
            format!("pull request does not exist [index: {issue}]").as_str()
        )
    );
    for bad in ["999", "abc", "-1"] {
        let p = format!("{}/pulls/{bad}", r.repo_path);
        let got = r
            .api
            .call(
                "PATCH",
                &p,
                Auth::Token(&r.writer.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(got.status, 404, "{bad}: {:?}", got.body);
    }
    assert_eq!(get_pull(&r, n).await, before, "nothing changed");

    // Private: outsiders are told it does not exist.
    let private = issue_repo(true).await;
    let m = open_pull(&private, &private.writer, "secret", json!({})).await;
    let got = patch_pull(&private, &private.outsider, m, body.clone()).await;
    assert_eq!(got.status, 404, "{:?}", got.body);
    let po = private
        .api
        .token(
            &private.writer.name,
            &private.writer.password,
            &["write:repository", "public-only"],
        )
        .await;
    let p = format!("{}/pulls/{m}", private.repo_path);
    let got = private
        .api
        .call("PATCH", &p, Auth::Token(&po), Some(body.clone()))
        .await;
    assert_eq!(
        (got.status, got.message()),
        (403, "token scope is limited to public repos")
    );
    assert_eq!(get_pull(&private, m).await["title"], "secret");

    // A poster the owner has since blocked keeps the state, not the text.
    let own = open_pull(&r, &r.outsider, "outsider", json!({})).await;
    let block = format!("/api/v1/user/blocks/{}", r.outsider.name);
    let blocked = r
        .api
        .call("PUT", &block, Auth::Token(&r.owner.token), None)
        .await;
    assert_eq!(blocked.status, 204, "{:?}", blocked.body);
    let got = patch_pull(&r, &r.outsider, own, json!({"title": "again"})).await;
    assert_eq!((got.status, got.message()), (403, "user is blocked"));
    let got = patch_pull(&r, &r.outsider, own, json!({"state": "closed"})).await;
    assert_eq!(
        (got.status, got.body["state"].as_str()),
        (201, Some("closed"))
    );
}

#[tokio::test]
async fn counters_stay_exact_under_concurrent_edits() {
    let r = issue_repo(false).await;
    let (a, b) = (r.milestone("a").await, r.milestone("b").await);
    let bug = label(&r, "bug").await;
    for i in 0..2 {
        r.create(
            &r.writer,
            json!({"title": format!("issue {i}"), "milestone": a}),
        )
        .await;
    }
    let mut pulls = Vec::new();
    for i in 0..6 {
        pulls.push(open_pull(&r, &r.writer, &format!("c{i}"), json!({"milestone": a})).await);
    }
    // 60 edits at once, through both routes: states, milestones, labels.
    let edits = (0..60).map(|k| {
        let n = pulls[k % pulls.len()];
        let body = match k % 6 {
            0 => json!({"state": "closed"}),
            1 => json!({"state": "open", "milestone": b}),
            2 => json!({"milestone": a, "labels": [bug]}),
            3 => json!({"state": "closed", "milestone": b, "labels": []}),
            4 => json!({"state": "open"}),
            _ => json!({"milestone": a, "state": "closed"}),
        };
        let (r, via_issue) = (&r, k % 5 == 0);
        async move {
            if via_issue && body.get("labels").is_none() {
                r.patch(&r.writer, n, body).await
            } else {
                patch_pull(r, &r.writer, n, body).await
            }
        }
    });
    let replies = join_all(edits).await;
    let statuses: Vec<u16> = replies.iter().map(|x| x.status).collect();
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");

    let (mut open, mut in_a, mut in_b) = (0, (2, 0), (0, 0));
    for n in &pulls {
        let pr = get_pull(&r, *n).await;
        let closed = pr["state"] == "closed";
        open += i64::from(!closed);
        let m = pr["milestone"]["id"].as_i64();
        let slot = if m == Some(a) {
            &mut in_a
        } else if m == Some(b) {
            &mut in_b
        } else {
            panic!("{pr}")
        };
        if closed { slot.1 += 1 } else { slot.0 += 1 }
    }
    assert_eq!(r.open_count().await, (2, open), "repository counters");
    assert_eq!(r.counts(a).await, in_a, "milestone a");
    assert_eq!(r.counts(b).await, in_b, "milestone b");
    // The list's totals (counters) agree with what it finds (records).
    let counted = list_pulls(&r, Auth::None, "state=open").await.total();
    let found = list_pulls(&r, Auth::None, "state=open&sort=recentupdate")
        .await
        .total();
    assert_eq!((counted, found), (Some(open as u64), Some(open as u64)));
    let closed = list_pulls(&r, Auth::None, "state=closed").await.total();
    assert_eq!(closed, Some(6 - open as u64));
    let in_b_listed = list_pulls(&r, Auth::None, &format!("milestone={b}&state=all"))
        .await
        .total();
    assert_eq!(in_b_listed, Some((in_b.0 + in_b.1) as u64));
}
