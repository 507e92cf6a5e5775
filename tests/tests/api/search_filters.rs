//! Search's filters through the index (`shared::issues::index`): `q` as
//! words, the review relations, update windows, combinations, what a
//! caller may learn of owners and teams they cannot see, totals that count
//! only what may be seen, the result window and deep pages. Every query
//! names a mark no other test uses, so other tests' issues never match.

use api_tests::{Api, Auth, Reply, TestUser, numbers, settle, unique};
use futures::{StreamExt, stream};
use serde_json::{Value, json};

async fn get(api: &Api, auth: Auth<'_>, path: &str) -> Reply {
    api.call("GET", path, auth, None).await
}

/// A search once the index has caught up; 200 expected.
async fn search(api: &Api, auth: Auth<'_>, query: &str) -> Reply {
    settle().await;
    let r = get(api, auth, &format!("/api/v1/repos/issues/search?{query}")).await;
    assert_eq!(r.status, 200, "{query}: {:?}", r.body);
    r
}

async fn post(api: &Api, who: &TestUser, path: &str, body: Value) -> Value {
    let r = api
        .call("POST", path, Auth::Token(&who.token), Some(body.clone()))
        .await;
    assert!(
        r.status == 201 || r.status == 200,
        "POST {path} {body}: {:?}",
        r.body
    );
    r.body
}

#[tokio::test]
async fn q_matches_whole_words_in_titles_bodies_and_comments() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("sqw", false).await;
    let mark = unique("mq");
    let issue = |title: &str, body: &str| json!({"title": format!("{mark} {title}"), "body": body});
    let path = format!("{repo}/issues");
    let made = [
        issue("Crash on Startup", "the parser panics"),
        issue("crashes sometimes", "Café résumé ＦＵＬＬ width"),
        issue("東京タワー", "黑猫很可爱"),
        issue("quiet", ""),
    ];
    let mut n = Vec::new();
    for body in made {
        n.push(
            post(&api, &owner, &path, body).await["number"]
                .as_i64()
                .unwrap(),
        );
    }
    let comment = post(
        &api,
        &owner,
        &format!("{path}/{}/comments", n[3]),
        json!({"body": "segfault in the parser"}),
    )
    .await;
    let anyone = Auth::None;
    let q = |words: &str| format!("q={mark}%20{words}&state=all");
    for (words, want) in [
        // Whole words, any case, in any order, anywhere in the issue.
        ("crash", vec![n[0]]),
        ("CRASH%20startup", vec![n[0]]),
        ("startup%20crash", vec![n[0]]),
        ("crashes", vec![n[1]]),
        ("cras", vec![]),
        // A comment's words find its issue.
        ("parser", vec![n[3], n[0]]),
        ("segfault", vec![n[3]]),
        // Accents and compatibility forms fold (NFKC).
        ("cafe", vec![n[1]]),
        ("RESUME", vec![n[1]]),
        ("full", vec![n[1]]),
        // Text without spaces: pairs of characters, and single ones.
        ("%E9%BB%91%E7%8C%AB", vec![n[2]]),
        ("%E7%8C%AB", vec![n[2]]),
        ("%E6%9D%B1%E4%BA%AC", vec![n[2]]),
        // A number also matches the issue's number.
        (&n[1].to_string(), vec![n[1]]),
        // Every word must occur.
        ("crash%20segfault", vec![]),
    ] {
        let r = search(&api, anyone, &q(words)).await;
        assert_eq!(numbers(&r.body), want, "q={words}");
        assert_eq!(r.total(), Some(want.len() as u64), "q={words}");
    }
    // Editing the comment moves its words; deleting it takes them away.
    let id = comment["id"].as_i64().unwrap();
    let r = api
        .call(
            "PATCH",
            &format!("{repo}/issues/comments/{id}"),
            Auth::Token(&owner.token),
            Some(json!({"body": "fixed now"})),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        numbers(&search(&api, anyone, &q("segfault")).await.body),
        Vec::<i64>::new()
    );
    assert_eq!(
        numbers(&search(&api, anyone, &q("fixed")).await.body),
        vec![n[3]]
    );
    assert_eq!(
        numbers(&search(&api, anyone, &q("parser")).await.body),
        vec![n[0]]
    );
    let r = api
        .call(
            "DELETE",
            &format!("{repo}/issues/comments/{id}"),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(
        numbers(&search(&api, anyone, &q("fixed")).await.body),
        Vec::<i64>::new()
    );
    // The same words filter a repository's own listing.
    settle().await;
    let r = get(&api, anyone, &format!("{path}?q=crash&state=all")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![n[0]], Some(1)));

    // Bounds, named.
    for (query, field) in [
        ("q=b%20c%20d%20e%20f%20g%20h%20j%20k", "q"),
        (&format!("q={}", "x".repeat(257)), "q"),
        ("labels=a,b,c,d,e,f,g,h,i,j,k", "labels"),
    ] {
        let r = get(
            &api,
            anyone,
            &format!("/api/v1/repos/issues/search?{query}"),
        )
        .await;
        assert_eq!(r.status, 422, "{query}: {:?}", r.body);
        assert!(r.body.to_string().contains(field), "{query}: {:?}", r.body);
    }
}

#[tokio::test]
async fn review_relations_update_windows_and_combinations() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("srv", false).await;
    let reviewer = api.new_user("srvr").await;
    let name = repo.rsplit('/').next().unwrap().to_string();
    api.add_collaborator(&owner, &owner.name, &name, &reviewer.name, "write")
        .await;
    let mark = unique("mr");
    let pull = |title: &str, head: &str| json!({"title": format!("{mark} {title}"), "head": head, "base": "main"});
    let asked = post(&api, &owner, &format!("{repo}/pulls"), pull("asked", "a")).await["number"]
        .as_i64()
        .unwrap();
    let done = post(&api, &owner, &format!("{repo}/pulls"), pull("done", "b")).await["number"]
        .as_i64()
        .unwrap();
    post(
        &api,
        &owner,
        &format!("{repo}/pulls/{asked}/requested_reviewers"),
        json!({"reviewers": [reviewer.name]}),
    )
    .await;
    post(
        &api,
        &reviewer,
        &format!("{repo}/pulls/{done}/reviews"),
        json!({"event": "APPROVED", "body": "ok"}),
    )
    .await;
    let me = Auth::Token(&reviewer.token);
    let q = format!("q={mark}&type=pulls");
    let r = search(&api, me, &format!("{q}&review_requested=true")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![asked], Some(1)));
    let r = search(&api, me, &format!("{q}&reviewed=true")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![done], Some(1)));
    // Anonymous callers have no relations: the flag is ignored.
    let r = search(&api, Auth::None, &format!("{q}&reviewed=true")).await;
    assert_eq!(numbers(&r.body), vec![done, asked]);

    // Updated since / before a moment between two writes.
    let plain = api.new_issue(&owner, &repo, &format!("{mark} plain")).await;
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let between = shared::time::now();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let r = api
        .call(
            "PATCH",
            &format!("{repo}/issues/{plain}"),
            Auth::Token(&owner.token),
            Some(json!({"body": "touched"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let at = shared::time::render(between, shared::time::Zone::UTC);
    let r = search(&api, Auth::None, &format!("q={mark}&state=all&since={at}")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![plain], Some(1)));
    let r = search(&api, Auth::None, &format!("q={mark}&state=all&before={at}")).await;
    assert_eq!(numbers(&r.body), vec![done, asked]);
    // Without text: the window alone, over a fresh owner's repository.
    let r = search(
        &api,
        Auth::None,
        &format!("owner={}&state=all&since={at}", owner.name),
    )
    .await;
    assert_eq!((numbers(&r.body), r.total()), (vec![plain], Some(1)));
    // Combinations: a word and a kind; an owner and a state.
    let r = search(&api, Auth::None, &format!("q={mark}%20touched&type=issues")).await;
    assert_eq!(numbers(&r.body), vec![plain]);
    let r = search(&api, Auth::None, &format!("q={mark}%20touched&type=pulls")).await;
    assert_eq!(numbers(&r.body), Vec::<i64>::new());
    let r = search(
        &api,
        Auth::None,
        &format!("owner={}&state=closed&q={mark}", owner.name),
    )
    .await;
    assert_eq!((numbers(&r.body), r.total()), (Vec::<i64>::new(), Some(0)));
}

/// A window of updates is answered from the update listings, whose
/// entries carry each issue's creation and state: filtered by state and
/// ordered by creation, with exact totals.
#[tokio::test]
async fn an_update_window_is_filtered_by_state_and_ordered_by_creation() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("swo", false).await;
    let auth = Auth::Token(&owner.token);
    let mut made = Vec::new();
    for title in ["a", "b", "c", "old 1", "old 2"] {
        made.push(api.new_issue(&owner, &repo, title).await);
    }
    let [a, b, c, ..] = made[..] else {
        unreachable!()
    };
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let at = shared::time::render(shared::time::now(), shared::time::Zone::UTC);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    // Updated in another order than created; b closed.
    for (n, edit) in [
        (c, json!({"body": "c"})),
        (b, json!({"state": "closed"})),
        (a, json!({"body": "a"})),
    ] {
        let r = api
            .call("PATCH", &format!("{repo}/issues/{n}"), auth, Some(edit))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    let window = |state: &str| format!("owner={}&since={at}{state}", owner.name);
    let r = search(&api, auth, &window("")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![c, a], Some(2)));
    let r = search(&api, auth, &window("&state=closed")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![b], Some(1)));
    let r = search(&api, auth, &window("&state=all")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![c, b, a], Some(3)));
    let r = search(&api, auth, &window("&state=all&limit=2&page=2")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![a], Some(3)));
    // Reopened: the entry moves and carries the new state.
    let r = api
        .call(
            "PATCH",
            &format!("{repo}/issues/{b}"),
            auth,
            Some(json!({"state": "open"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let r = search(&api, auth, &window("")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![c, b, a], Some(3)));
    let r = search(&api, auth, &window("&state=closed")).await;
    assert_eq!((numbers(&r.body), r.total()), (vec![], Some(0)));
}

/// The message of a 400, with the name it repeats replaced.
fn shape(r: &Reply, name: &str) -> (u16, String) {
    (r.status, r.message().replace(name, "<name>"))
}

#[tokio::test]
async fn hidden_owners_and_teams_answer_as_missing_ones() {
    let api = Api::from_env();
    let owner = api.new_user("sho").await;
    let (member, stranger) = (api.new_user("shm").await, api.new_user("shs").await);
    let private = api.new_org(&owner, "shp", "private").await;
    let limited = api.new_org(&owner, "shl", "limited").await;
    let public = api.new_org(&owner, "shu", "public").await;
    let team = post(
        &api,
        &owner,
        &format!("/api/v1/orgs/{public}/teams"),
        json!({"name": "devs", "permission": "read", "includes_all_repositories": true}),
    )
    .await;
    let team_id = team["id"].as_i64().unwrap();
    let r = api
        .call(
            "PUT",
            &format!("/api/v1/teams/{team_id}/members/{}", member.name),
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    for org in [&private, &limited] {
        api.new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), false)
            .await;
    }
    let missing = unique("nobody");
    let ask = |auth, query: String| {
        let api = &api;
        async move { get(api, auth, &format!("/api/v1/repos/issues/search?{query}")).await }
    };
    let nobody = ask(Auth::None, format!("owner={missing}")).await;
    assert_eq!(nobody.status, 400);
    let like_missing = shape(&nobody, &missing);
    for (auth, org) in [
        (Auth::None, &private),
        (Auth::Token(&stranger.token), &private),
        (Auth::None, &limited),
    ] {
        let r = ask(auth, format!("owner={org}")).await;
        assert_eq!(shape(&r, org), like_missing, "{org}: {:?}", r.body);
        assert_eq!(r.header("x-total-count"), None);
    }
    for (auth, org) in [
        (Auth::Token(&owner.token), &private),
        (Auth::Token(&stranger.token), &limited),
    ] {
        let r = ask(auth, format!("owner={org}")).await;
        assert_eq!(r.status, 200, "{org}: {:?}", r.body);
    }
    // A team: only its organisation's members know it.
    let no_team = ask(
        Auth::Token(&member.token),
        format!("owner={public}&team=nope"),
    )
    .await;
    assert_eq!(no_team.status, 400);
    let r = ask(
        Auth::Token(&stranger.token),
        format!("owner={public}&team=devs"),
    )
    .await;
    assert_eq!(shape(&r, "devs"), shape(&no_team, "nope"), "{:?}", r.body);
    let r = ask(Auth::None, format!("owner={public}&team=devs")).await;
    assert_eq!(shape(&r, "devs"), shape(&no_team, "nope"));
    let r = ask(
        Auth::Token(&member.token),
        format!("owner={public}&team=devs"),
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

#[tokio::test]
async fn totals_count_only_what_the_caller_may_see() {
    let api = Api::from_env();
    let (me, public) = api.user_repo("stc", false).await;
    let private = format!(
        "/api/v1/repos/{}/{}",
        me.name,
        api.new_repo(&me, "/api/v1/user/repos", true).await
    );
    for (repo, n) in [(&public, 2), (&private, 3)] {
        for i in 0..n {
            api.new_issue(&me, repo, &format!("counted {i}")).await;
        }
    }
    let public_only = api
        .token(&me.name, &me.password, &["all", "public-only"])
        .await;
    for (auth, query, want) in [
        (Auth::Token(&me.token), "created=true", 5),
        (Auth::Token(&public_only), "created=true", 2),
        (Auth::None, &format!("owner={}", me.name) as &str, 2),
        (Auth::Token(&me.token), &format!("owner={}", me.name), 5),
        (Auth::Token(&public_only), &format!("owner={}", me.name), 2),
    ] {
        let r = search(&api, auth, query).await;
        assert_eq!(
            (r.body.as_array().unwrap().len(), r.total()),
            (want, Some(want as u64)),
            "{query}"
        );
    }
}

#[tokio::test]
async fn deep_pages_page_in_order_and_jumps_are_bounded() {
    let api = Api::from_env();
    let (owner, repo) = api.user_repo("sdp", false).await;
    let label = post(
        &api,
        &owner,
        &format!("{repo}/labels"),
        json!({"name": "many", "color": "#00aa00"}),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    const ISSUES: i64 = 410;
    let path = format!("{repo}/issues");
    let made: Vec<u16> = stream::iter(0..ISSUES)
        .map(|i| {
            let (api, owner, path) = (&api, &owner, &path);
            async move {
                api.call(
                    "POST",
                    path,
                    Auth::Token(&owner.token),
                    Some(json!({"title": format!("deep {i}"), "labels": [label]})),
                )
                .await
                .status
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    assert!(made.iter().all(|s| *s == 201));
    settle().await;
    let list = |query: String| {
        let api = &api;
        let path = &path;
        async move { get(api, Auth::None, &format!("{path}?state=all&{query}")).await }
    };
    // A filtered page far down, asked for straight away, would check more
    // issues than one request may: refused, naming the limit.
    let r = list("labels=many&limit=50&page=9".into()).await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert!(r.message().contains("at most"), "{:?}", r.body);
    // In order, page after page (as clients page to the end), every page
    // costs one page: each starts where the one before ended.
    let mut seen = Vec::new();
    for page in 1..=9 {
        let r = list(format!("labels=many&limit=50&page={page}")).await;
        assert_eq!(r.status, 200, "page {page}: {:?}", r.body);
        assert_eq!(r.total(), Some(ISSUES as u64), "page {page}");
        let got = numbers(&r.body);
        assert_eq!(got.len(), if page < 9 { 50 } else { 10 }, "page {page}");
        seen.extend(got);
    }
    // Every issue once, newest first (issues made in the same second sort
    // by number within it).
    let mut sorted = seen.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=ISSUES).collect::<Vec<_>>());
    // Unfiltered, a deep page is cheap to reach at once, in the same order;
    // past the end, nothing is read.
    let r = list("limit=50&page=9".into()).await;
    assert_eq!(numbers(&r.body), seen[400..].to_vec());
    let r = list("limit=50&page=4294967295".into()).await;
    assert_eq!(
        (numbers(&r.body), r.total()),
        (Vec::<i64>::new(), Some(ISSUES as u64))
    );
    // Search answers its first 1,000 results only.
    let r = get(
        &api,
        Auth::None,
        "/api/v1/repos/issues/search?limit=50&page=21",
    )
    .await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert!(r.message().contains("1000"), "{:?}", r.body);
    // Comments past the last page: nothing read, the total kept.
    for i in 0..3 {
        post(
            &api,
            &owner,
            &format!("{path}/1/comments"),
            json!({"body": format!("c{i}")}),
        )
        .await;
    }
    let r = get(
        &api,
        Auth::None,
        &format!("{path}/1/comments?page=4294967295&limit=50"),
    )
    .await;
    assert_eq!((r.status, r.total()), (200, Some(3)));
    assert_eq!(r.body, json!([]));
}
