//! Findings of a search audit, each held by a test that failed before its
//! fix: what a listing's answer may not tell a caller about what they
//! cannot read, and what one request may not make the API read.
//! (The cursor identity and the result window's `Link` are unit-tested in
//! `shared::issues::search`.)

use api_tests::{Api, Auth, numbers, settle, unique};
use serde_json::json;

/// A caller given more of an owner's private repositories than are read
/// one by one (8) searches through the owner's private listing; a label
/// used only in a repository they cannot read must answer as one that
/// exists nowhere (dropped), not as "no results".
#[tokio::test]
async fn a_label_used_only_where_the_caller_cannot_read_answers_as_a_missing_one() {
    let api = Api::from_env();
    let owner = api.new_user("aown").await;
    let guest = api.new_user("agst").await;
    let t = Auth::Token(&owner.token);
    let mut granted = Vec::new();
    for _ in 0..9 {
        let repo = api.new_repo(&owner, "/api/v1/user/repos", true).await;
        api.add_collaborator(&owner, &owner.name, &repo, &guest.name, "read")
            .await;
        granted.push(repo);
    }
    let hidden = api.new_repo(&owner, "/api/v1/user/repos", true).await;
    let secret = unique("secret");
    let label = api
        .call(
            "POST",
            &format!("/api/v1/repos/{}/{hidden}/labels", owner.name),
            t,
            Some(json!({"name": secret, "color": "#112233"})),
        )
        .await;
    assert_eq!(label.status, 201, "{:?}", label.body);
    let made = api
        .call(
            "POST",
            &format!("/api/v1/repos/{}/{hidden}/issues", owner.name),
            t,
            Some(json!({"title": "hidden", "labels": [label.body["id"]]})),
        )
        .await;
    assert_eq!(made.status, 201);
    api.new_issue(
        &owner,
        &format!("/api/v1/repos/{}/{}", owner.name, granted[0]),
        "seen",
    )
    .await;
    settle().await;

    let search = |labels: String| {
        let (api, guest, owner) = (&api, &guest, &owner);
        async move {
            let q = format!(
                "/api/v1/repos/issues/search?owner={}&labels={labels}",
                owner.name
            );
            let r = api.call("GET", &q, Auth::Token(&guest.token), None).await;
            assert_eq!(r.status, 200, "{q}: {:?}", r.body);
            (numbers(&r.body), r.total())
        }
    };
    let nowhere = search(unique("nowhere")).await;
    assert_eq!(
        nowhere.0.len(),
        1,
        "a missing label is dropped: {nowhere:?}"
    );
    assert_eq!(
        search(secret).await,
        nowhere,
        "a label of an unreadable repository answers as a missing one"
    );
}

/// Pull-request lists take at most ten label ids, as searches take ten
/// names: each is a listing read at once.
#[tokio::test]
async fn pull_lists_take_at_most_ten_label_ids() {
    let api = Api::from_env();
    let (owner, path) = api.user_repo("aplo", false).await;
    let ids = |n: i64| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let ten = api
        .call(
            "GET",
            &format!("{path}/pulls?labels={}", ids(10)),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(ten.status, 200, "{:?}", ten.body);
    let many = api
        .call(
            "GET",
            &format!("{path}/pulls?labels={}", ids(220)),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(many.status, 422, "{:?}", many.body);
    assert!(many.message().contains("labels"), "{}", many.message());
    let _ = owner;
}

/// A user filter naming a user the caller may not see answers exactly as
/// one naming nobody.
#[tokio::test]
async fn user_filters_answer_hidden_and_missing_users_alike() {
    let api = Api::from_env();
    let (owner, path) = api.user_repo("aufo", false).await;
    api.new_issue(&owner, &path, "public issue").await;
    let hidden = api
        .new_user_with("ahid", json!({"visibility": "private"}))
        .await;
    let missing = unique("nobody");
    for (list, field) in [
        ("issues", "created_by"),
        ("issues", "assigned_by"),
        ("issues", "mentioned_by"),
        ("pulls", "poster"),
    ] {
        let ask = |who: &str| {
            let url = format!("{path}/{list}?{field}={who}");
            let api = &api;
            async move { api.call("GET", &url, Auth::None, None).await }
        };
        let (h, m) = (ask(&hidden.name).await, ask(&missing).await);
        assert_eq!(
            h.status, m.status,
            "{list}?{field}: {:?} / {:?}",
            h.body, m.body
        );
        assert!(
            h.status >= 400,
            "{list}?{field}={}: {:?}",
            hidden.name,
            h.body
        );
        assert_eq!(
            h.message().replace(&hidden.name, "X"),
            m.message().replace(&missing, "X"),
            "{list}?{field}"
        );
    }
    // Their own searches still name them.
    let me = api
        .call(
            "GET",
            &format!("{path}/issues?created_by={}", hidden.name),
            Auth::Token(&hidden.token),
            None,
        )
        .await;
    assert_eq!(me.status, 200, "{:?}", me.body);
}

/// A word longer than any indexed one is refused, naming the bound: left
/// out, it would match everything.
#[tokio::test]
async fn a_word_too_long_to_be_indexed_is_refused() {
    let api = Api::from_env();
    let (owner, path) = api.user_repo("awor", false).await;
    api.new_issue(&owner, &path, "crash").await;
    let long = "x".repeat(65);
    for url in [
        format!("/api/v1/repos/issues/search?q={long}"),
        format!("{path}/issues?q=crash%20{long}"),
    ] {
        let r = api.call("GET", &url, Auth::None, None).await;
        assert_eq!(r.status, 422, "{url}: {:?}", r.body);
        assert!(r.message().contains("64"), "{}", r.message());
    }
    let fits = api
        .call(
            "GET",
            &format!("{path}/issues?q={}", "x".repeat(64)),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(fits.status, 200);
}
