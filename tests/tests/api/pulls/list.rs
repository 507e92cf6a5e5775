//! `GET /repos/{owner}/{repo}/pulls`: Gitea's `PullRequest` objects, its
//! state, sort, milestone, labels and poster filters (plus `base_branch`),
//! paging with `X-Total-Count` and `Link`, strict query values, and who
//! may list.

use std::time::Duration;

use api_tests::{Api, Auth, IssueRepo, issue_repo, numbers};
use serde_json::{Value, json};

use super::{get_pull, list_pulls, open_pull, patch_pull};

/// The list as the owner sees it: numbers and `X-Total-Count`.
async fn seen(r: &IssueRepo, query: &str) -> (Vec<i64>, Option<u64>) {
    let page = list_pulls(r, Auth::Token(&r.owner.token), query).await;
    assert_eq!(page.status, 200, "?{query}: {:?}", page.body);
    (numbers(&page.body), page.total())
}

/// Creates a label in the repository; its id.
async fn label(r: &IssueRepo, name: &str) -> i64 {
    let got = r
        .api
        .call(
            "POST",
            &format!("{}/labels", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(json!({"name": name, "color": "#00aabb"})),
        )
        .await;
    assert_eq!(got.status, 201, "{:?}", got.body);
    got.body["id"].as_i64().unwrap()
}

#[tokio::test]
async fn open_pull_requests_newest_first_with_gitea_paging() {
    let r = issue_repo(false).await;
    r.create(&r.writer, json!({"title": "an issue"})).await;
    for t in ["p2", "p3", "p4", "p5", "p6"] {
        open_pull(&r, &r.writer, t, json!({})).await;
    }
    assert_eq!(
        patch_pull(&r, &r.writer, 3, json!({"state": "closed"}))
            .await
            .status,
        201
    );
    let merge = format!("{}/pulls/4/merge", r.repo_path);
    let m = r
        .api
        .call("POST", &merge, Auth::Token(&r.writer.token), None)
        .await;
    assert_eq!(m.status, 200, "{:?}", m.body);

    // Open by default; never the issue; each item as GET /pulls/{n} shows it.
    let page = list_pulls(&r, Auth::Token(&r.owner.token), "").await;
    assert_eq!(page.status, 200, "{:?}", page.body);
    assert_eq!(
        (numbers(&page.body), page.total()),
        (vec![6, 5, 2], Some(3))
    );
    assert_eq!(page.header("link"), None, "one page: no Link");
    assert_eq!(
        page.header("access-control-expose-headers"),
        Some("X-Total-Count")
    );
    for item in page.body.as_array().unwrap() {
        let n = item["number"].as_i64().unwrap();
        assert_eq!(item, &get_pull(&r, n).await, "list item {n}");
        assert!(
            item.get("pull_request").is_none(),
            "a PullRequest, not an Issue"
        );
        assert_eq!(item["base"]["ref"], "main");
    }
    assert_eq!(seen(&r, "state=closed").await, (vec![4, 3], Some(2)));
    assert_eq!(seen(&r, "state=open").await, (vec![6, 5, 2], Some(3)));
    assert_eq!(seen(&r, "state=").await, (vec![6, 5, 2], Some(3)));
    assert_eq!(seen(&r, "state=all").await, (vec![6, 5, 4, 3, 2], Some(5)));
    let merged = list_pulls(&r, Auth::None, "state=closed").await;
    assert_eq!(
        (
            merged.body[0]["merged"].as_bool(),
            merged.body[1]["merged"].as_bool()
        ),
        (Some(true), Some(false))
    );

    // Paging: Gitea's Link, keys sorted, every other parameter kept.
    let base = format!("{}{}/pulls", r.api.base, r.repo_path);
    let first = list_pulls(&r, Auth::None, "state=all&limit=2").await;
    assert_eq!((numbers(&first.body), first.total()), (vec![6, 5], Some(5)));
    assert_eq!(
        first.header("link").unwrap(),
        format!(
            "<{base}?limit=2&page=2&state=all>; rel=\"next\",<{base}?limit=2&page=3&state=all>; rel=\"last\""
        )
    );
    assert_eq!(
        first.header("access-control-expose-headers"),
        Some("Link, X-Total-Count")
    );
    let middle = list_pulls(&r, Auth::None, "state=all&limit=2&page=2").await;
    assert_eq!(numbers(&middle.body), [4, 3]);
    assert_eq!(
        middle.header("link").unwrap(),
        format!(
            "<{base}?limit=2&page=3&state=all>; rel=\"next\",<{base}?limit=2&page=3&state=all>; rel=\"last\",<{base}?limit=2&page=1&state=all>; rel=\"first\",<{base}?limit=2&page=1&state=all>; rel=\"prev\""
        )
    );
    let last = list_pulls(&r, Auth::None, "state=all&limit=2&page=3").await;
    assert_eq!(numbers(&last.body), [2]);
    let past = list_pulls(&r, Auth::None, "state=all&limit=2&page=9").await;
    assert_eq!((past.body.clone(), past.total()), (json!([]), Some(5)));
    assert_eq!(
        past.header("link").unwrap(),
        format!(
            "<{base}?limit=2&page=1&state=all>; rel=\"first\",<{base}?limit=2&page=2&state=all>; rel=\"prev\""
        )
    );
    // Gitea's clamps: limit above 50 is 50, unparsable page and limit are
    // the defaults.
    assert_eq!(seen(&r, "state=all&limit=500").await.0.len(), 5);
    assert_eq!(
        seen(&r, "state=all&limit=x&page=y").await,
        (vec![6, 5, 4, 3, 2], Some(5))
    );
    // A token in the query stays out of the Link header.
    let with_token = list_pulls(&r, Auth::Query(&r.owner.token), "state=all&limit=2").await;
    assert!(!with_token.header("link").unwrap().contains(&r.owner.token));
}

#[tokio::test]
async fn sorts_by_creation_update_and_closing() {
    let r = issue_repo(false).await;
    for t in ["s1", "s2", "s3", "s4"] {
        open_pull(&r, &r.writer, t, json!({})).await;
    }
    // One second apart, as Gitea's times are whole seconds.
    let tick = || tokio::time::sleep(Duration::from_millis(1100));
    tick().await;
    patch_pull(&r, &r.writer, 2, json!({"title": "s2 again"})).await;
    tick().await;
    patch_pull(&r, &r.writer, 1, json!({"state": "closed"})).await;
    tick().await;
    patch_pull(&r, &r.writer, 3, json!({"state": "closed"})).await;

    for (sort, want) in [
        ("", [4, 3, 2, 1]),
        ("newest", [4, 3, 2, 1]),
        ("oldest", [1, 2, 3, 4]),
        ("recentupdate", [3, 1, 2, 4]),
        ("leastupdate", [4, 2, 1, 3]),
        ("recentclose", [3, 1, 4, 2]),
        // No comments yet, and no priorities: they tie, newest first.
        ("mostcomment", [4, 3, 2, 1]),
        ("leastcomment", [4, 3, 2, 1]),
        ("priority", [4, 3, 2, 1]),
    ] {
        let got = seen(&r, &format!("state=all&sort={sort}")).await;
        assert_eq!(got, (want.to_vec(), Some(4)), "sort={sort}");
    }
    // The order follows the times the API shows.
    let page = list_pulls(&r, Auth::None, "state=all&sort=recentupdate").await;
    let updated: Vec<&str> = page
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["updated_at"].as_str().unwrap())
        .collect();
    assert!(updated.windows(2).all(|w| w[0] > w[1]), "{updated:?}");
    assert_eq!(seen(&r, "state=closed&sort=oldest").await.0, [1, 3]);
    assert_eq!(seen(&r, "sort=recentclose").await.0, [4, 2]);
    // Sorted pages: the total, and the sort kept in Link.
    let page = list_pulls(&r, Auth::None, "state=all&sort=leastupdate&limit=3").await;
    assert_eq!(
        (numbers(&page.body), page.total()),
        (vec![4, 2, 1], Some(4))
    );
    assert!(
        page.header("link")
            .unwrap()
            .contains("limit=3&page=2&sort=leastupdate&state=all"),
        "{:?}",
        page.header("link")
    );
    let page = list_pulls(&r, Auth::None, "state=all&sort=oldest&limit=3&page=2").await;
    assert_eq!((numbers(&page.body), page.total()), (vec![4], Some(4)));
    // By comment count, ties newest first, as Gitea.
    for n in [2, 2, 1] {
        let c = r
            .api
            .call(
                "POST",
                &format!("{}/{n}/comments", r.base),
                Auth::Token(&r.writer.token),
                Some(json!({"body": "+1"})),
            )
            .await;
        assert_eq!(c.status, 201, "{:?}", c.body);
    }
    for (sort, want) in [
        ("mostcomment", [2, 1, 4, 3]),
        ("leastcomment", [4, 3, 1, 2]),
    ] {
        let got = seen(&r, &format!("state=all&sort={sort}")).await;
        assert_eq!(got, (want.to_vec(), Some(4)), "sort={sort}");
    }
}

#[tokio::test]
async fn milestone_labels_poster_and_base_filters() {
    let r = issue_repo(false).await;
    let (bug, ui) = (label(&r, "bug").await, label(&r, "ui").await);
    let (m1, m2) = (r.milestone("m1").await, r.milestone("m2").await);
    r.create(
        &r.writer,
        json!({"title": "issue", "labels": [bug], "milestone": m1}),
    )
    .await;
    let writer_pr = |t: &'static str, extra: Value| open_pull(&r, &r.writer, t, extra);
    assert_eq!(
        writer_pr("f2", json!({"labels": [bug], "milestone": m1})).await,
        2
    );
    let three = json!({"title": "f3", "head": "f3", "base": "dev"});
    let got = r
        .api
        .call(
            "POST",
            &format!("{}/pulls", r.repo_path),
            Auth::Token(&r.reader.token),
            Some(three),
        )
        .await;
    assert_eq!(got.body["number"], 3, "{:?}", got.body);
    assert_eq!(
        writer_pr("f4", json!({"labels": [ui], "milestone": m2})).await,
        4
    );
    let both = json!({"labels": [bug, ui], "milestone": m1});
    assert_eq!(writer_pr("f5", both).await, 5);
    patch_pull(&r, &r.writer, 5, json!({"state": "closed"})).await;

    let reader = r.reader.name.clone();
    let other = api_tests::issue_repo(false).await;
    let foreign = label(&other, "bug").await;
    for (query, want) in [
        (format!("labels={bug}"), vec![2]),
        (format!("labels={bug}&state=all"), vec![5, 2]),
        // Any of them, each pull request once.
        (format!("labels={bug}&labels={ui}&state=all"), vec![5, 4, 2]),
        (format!("labels={bug},{ui}&state=all"), vec![5, 4, 2]),
        ("labels=999999999&state=all".into(), vec![]),
        (format!("labels={foreign}&state=all"), vec![]),
        (format!("milestone={m1}"), vec![2]),
        (format!("milestone={m1}&state=all"), vec![5, 2]),
        (format!("milestone={m2}"), vec![4]),
        ("milestone=0".into(), vec![4, 3, 2]),
        ("milestone=999999999&state=all".into(), vec![]),
        (format!("poster={reader}"), vec![3]),
        (format!("poster={}", reader.to_uppercase()), vec![3]),
        (
            format!("poster={}&labels={ui}&state=all", r.writer.name),
            vec![5, 4],
        ),
        ("base_branch=dev".into(), vec![3]),
        ("base_branch=main&state=all".into(), vec![5, 4, 2]),
        (format!("milestone={m1}&labels={ui}&state=all"), vec![5]),
        (format!("milestone={m1}&sort=oldest&state=all"), vec![2, 5]),
    ] {
        let total = want.len() as u64;
        assert_eq!(seen(&r, &query).await, (want, Some(total)), "?{query}");
    }
    // Paged filters count every match.
    let page = list_pulls(&r, Auth::None, &format!("milestone={m1}&state=all&limit=1")).await;
    assert_eq!((numbers(&page.body), page.total()), (vec![5], Some(2)));
    assert!(
        page.header("link")
            .unwrap()
            .contains(&format!("limit=1&milestone={m1}&page=2&state=all"))
    );
    // A deleted label no longer matches, though its id lingers.
    let del = r
        .api
        .call(
            "DELETE",
            &format!("{}/labels/{ui}", r.repo_path),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(del.status, 204);
    assert_eq!(
        seen(&r, &format!("labels={ui}&state=all")).await,
        (vec![], Some(0))
    );
}

#[tokio::test]
async fn milestone_filter_agrees_whichever_read_it_takes() {
    // A milestone with few members is read through its membership items,
    // one holding most pull requests through the listing index: both
    // answer the same.
    let r = issue_repo(false).await;
    let (small, big) = (r.milestone("small").await, r.milestone("big").await);
    for i in 1..=10 {
        let m = match i {
            1 => json!({"milestone": small}),
            2..=8 => json!({"milestone": big}),
            _ => json!({}),
        };
        open_pull(&r, &r.writer, &format!("m{i}"), m).await;
    }
    for n in [2, 4] {
        patch_pull(&r, &r.writer, n, json!({"state": "closed"})).await;
    }
    for (query, want) in [
        (format!("milestone={small}"), vec![1]),
        (format!("milestone={small}&state=closed"), vec![]),
        (format!("milestone={big}"), vec![8, 7, 6, 5, 3]),
        (format!("milestone={big}&state=closed"), vec![4, 2]),
        (
            format!("milestone={big}&state=all&sort=oldest"),
            vec![2, 3, 4, 5, 6, 7, 8],
        ),
        (
            format!("milestone={small}&state=all&sort=recentupdate"),
            vec![1],
        ),
        ("state=all".into(), (1..=10).rev().collect()),
    ] {
        let total = want.len() as u64;
        assert_eq!(seen(&r, &query).await, (want, Some(total)), "?{query}");
    }
    // Moving one changes both answers at once.
    patch_pull(&r, &r.writer, 9, json!({"milestone": small})).await;
    assert_eq!(
        seen(&r, &format!("milestone={small}")).await,
        (vec![9, 1], Some(2))
    );
}

#[tokio::test]
async fn bad_query_values_name_the_parameter() {
    let r = issue_repo(false).await;
    open_pull(&r, &r.writer, "q1", json!({})).await;
    for (query, status, message) in [
        (
            "state=merged",
            422,
            "state: must be open, closed or all (got \"merged\")",
        ),
        (
            "sort=nearduedate",
            422,
            "sort: must be one of newest, oldest, recentupdate, leastupdate, recentclose, mostcomment, leastcomment, priority (got \"nearduedate\")",
        ),
        ("labels=bug", 422, "labels: must be label ids (got \"bug\")"),
        (
            "labels=1&labels=x",
            422,
            "labels: must be label ids (got \"x\")",
        ),
        (
            "milestone=v1",
            422,
            "milestone: must be a milestone id (got \"v1\")",
        ),
        (
            "poster=nobody-zz9q",
            400,
            "user does not exist [name: nobody-zz9q]",
        ),
    ] {
        let got = list_pulls(&r, Auth::None, query).await;
        assert_eq!((got.status, got.message()), (status, message), "?{query}");
        assert!(
            got.body["url"].is_string(),
            "Gitea's error body: {:?}",
            got.body
        );
    }
}

#[tokio::test]
async fn who_may_list() {
    // Public: anyone, signed in or not.
    let public = issue_repo(false).await;
    open_pull(&public, &public.writer, "w1", json!({})).await;
    assert_eq!(list_pulls(&public, Auth::None, "").await.status, 200);
    assert_eq!(
        list_pulls(&public, Auth::Token(&public.outsider.token), "")
            .await
            .status,
        200
    );
    // Private: readers only; anyone else is told it does not exist.
    let private = issue_repo(true).await;
    open_pull(&private, &private.writer, "s1", json!({})).await;
    for (who, status) in [
        (Auth::None, 404),
        (Auth::Token(&private.outsider.token), 404),
        (Auth::Token(&private.reader.token), 200),
        (Auth::Token(&private.writer.token), 200),
    ] {
        let got = list_pulls(&private, who, "").await;
        assert_eq!(got.status, status, "{who:?}: {:?}", got.body);
    }
    // Tokens need read:repository, as in Gitea's router (pull requests are
    // a repository route there, not an issue one); public-only ones stay
    // off private repositories.
    let api = &private.api;
    let reader = &private.reader;
    let repo_scope = api
        .token(&reader.name, &reader.password, &["read:repository"])
        .await;
    let got = list_pulls(&private, Auth::Token(&repo_scope), "").await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let issue_scope = api
        .token(&reader.name, &reader.password, &["read:issue"])
        .await;
    let got = list_pulls(&private, Auth::Token(&issue_scope), "").await;
    assert_eq!(got.status, 403, "{:?}", got.body);
    assert!(
        got.message()
            .starts_with("token does not have at least one of required scope(s)"),
        "{:?}",
        got.body
    );
    let public_only = api
        .token(
            &reader.name,
            &reader.password,
            &["read:repository", "public-only"],
        )
        .await;
    let got = list_pulls(&private, Auth::Token(&public_only), "").await;
    assert_eq!(
        (got.status, got.message()),
        (403, "token scope is limited to public repos")
    );
    // Pull requests disabled: 404 for everyone, the owner included.
    let off = api
        .call(
            "PATCH",
            &public.repo_path,
            Auth::Token(&public.owner.token),
            Some(json!({"has_pull_requests": false})),
        )
        .await;
    assert_eq!(off.status, 200, "{:?}", off.body);
    assert_eq!(
        list_pulls(&public, Auth::Token(&public.owner.token), "")
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn teams_list_only_with_the_pull_request_unit() {
    let api = Api::from_env();
    let owner = api.new_user("tpown").await;
    let (issues_only, pulls_only) = (api.new_user("tpio").await, api.new_user("tppo").await);
    let org = api.new_org(&owner, "tporg", "public").await;
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), true)
        .await;
    let path = format!("/api/v1/repos/{org}/{repo}");
    let t = Auth::Token(&owner.token);
    let pr = json!({"title": "pr", "head": "a", "base": "b"});
    assert_eq!(
        api.call("POST", &format!("{path}/pulls"), t, Some(pr))
            .await
            .status,
        201
    );
    for (name, unit, member) in [
        ("io", "repo.issues", &issues_only),
        ("po", "repo.pulls", &pulls_only),
    ] {
        let body =
            json!({"name": name, "includes_all_repositories": true, "units_map": {unit: "read"}});
        let team = api
            .call("POST", &format!("/api/v1/orgs/{org}/teams"), t, Some(body))
            .await;
        assert_eq!(team.status, 201, "{:?}", team.body);
        let id = team.body["id"].as_i64().unwrap();
        let add = format!("/api/v1/teams/{id}/members/{}", member.name);
        assert_eq!(api.call("PUT", &add, t, None).await.status, 204);
    }
    let list = |who: &str| {
        let (path, who) = (format!("{path}/pulls"), who.to_string());
        let api = &api;
        async move { api.call("GET", &path, Auth::Token(&who), None).await }
    };
    assert_eq!(list(&issues_only.token).await.status, 404);
    let got = list(&pulls_only.token).await;
    assert_eq!((got.status, got.total()), (200, Some(1)), "{:?}", got.body);
}
