//! Counts under concurrent creates, deletes and edits; what deletes leave.

use super::*;

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
    let rid = r.repo_id().await;
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
    let rid = r.repo_id().await;
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
    // Listed without them at once; stored without them once the stream
    // consumer's clean-up is done.
    let all = list(&r, &format!("{}/comments", r.base), "").await;
    assert_eq!((ids(&all.body), all.total()), (vec![kept], Some(1)));
    api_tests::settle().await;
    assert_eq!(stored_comments(rid).await, vec![(kept, b)]);
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
