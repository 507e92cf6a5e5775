//! Concurrent identical reactions store one; the clean-up functions the
//! deletes call remove what they name.

use super::*;

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
    assert_eq!(stored_counts(r.repo_id().await).await, (14, 14, 14));
    // Concurrent removals of the same reaction remove it once.
    let t = n.to_string();
    let gone = join_all((0..6).map(|_| unreact(&r, &r.reader, &t, "rocket"))).await;
    assert!(gone.iter().all(|g| g.status == 200), "{gone:?}");
    assert_eq!(list(&r, Auth::None, &t, "").await.total(), Some(6));
    assert_eq!(stored_counts(r.repo_id().await).await, (13, 13, 13));
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
    let rid = r.repo_id().await;
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
