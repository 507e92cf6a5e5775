//! Lambda answers at most 6 MB, counted on its JSON envelope (where the
//! body is one JSON string, so quotes count four times). Lists that would
//! pass it leave out their declared fields and say so in
//! `X-Omitted-Fields`; pages keep their length. Mentions are bounded too.
//! (Oversized input and hostile texts: hostile_input.rs.)

use api_tests::{
    Api, Auth,
    deploy::{Team, creates::valid},
    raw::{BUDGET, get_raw, send},
};
use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::join_all;
use serde_json::{Value, json};

/// A user with one repository; returns the user and `/api/v1/repos/{o}/{r}`.
/// POSTs every body, ten at a time, asserting 201 for each.
async fn create_all(api: &Api, token: &str, path: &str, bodies: Vec<Value>) {
    for batch in bodies.chunks(10) {
        let auth = format!("token {token}");
        let replies = join_all(
            batch
                .iter()
                .map(|b| send(api, "POST", path, &auth, Some(b))),
        )
        .await;
        for r in replies {
            assert_eq!(r.status, 201, "POST {path}: {:?}", r.json);
        }
    }
}

#[tokio::test]
async fn issue_lists_leave_out_bodies_past_the_response_limit() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("lim", false).await;
    let auth = format!("token {}", u.token);
    let ms = api
        .call(
            "POST",
            &format!("{repo}/milestones"),
            Auth::Token(&u.token),
            Some(json!({"title": "v1", "description": "about v1"})),
        )
        .await;
    assert_eq!(ms.status, 201, "{:?}", ms.body);
    // 65,536 quotes: the largest body, and the most escaped one.
    let text = "\"".repeat(65_536);
    let bodies = (0..50)
        .map(|i| json!({"title": format!("q{i}"), "body": text, "ref": "main", "milestone": ms.body["id"]}))
        .collect();
    create_all(&api, &u.token, &format!("{repo}/issues"), bodies).await;

    // A short page fits: nothing is left out.
    let small = get_raw(&api, &format!("{repo}/issues?limit=3&state=all"), &auth).await;
    assert_eq!(
        small.status,
        200,
        "{}",
        &small.text[..200.min(small.text.len())]
    );
    assert_eq!(small.omitted(), None, "a page that fits is untouched");
    assert_eq!(small.items().len(), 3);
    for it in small.items() {
        assert_eq!(it["body"].as_str().map(str::len), Some(65_536));
        assert_eq!(it["ref"], "main");
        assert_eq!(it["milestone"]["description"], "about v1");
    }
    // Fifty such issues would pass the limit whole.
    let whole = small.envelope() / 3 * 50;
    eprintln!("fifty issues whole: about {whole} envelope bytes");
    assert!(whole > BUDGET, "{whole}");

    let owner = &u.name;
    let mut largest = 0;
    api_tests::settle().await;
    for path in [
        format!("{repo}/issues?limit=50&state=all"),
        format!("/api/v1/repos/issues/search?owner={owner}&limit=50"),
    ] {
        let big = get_raw(&api, &path, &auth).await;
        assert_eq!(big.status, 200, "{path}: {:?}", big.json);
        assert_eq!(
            big.omitted(),
            Some("body,ref,milestone.description,labels.description"),
            "{path}"
        );
        assert_eq!(big.items().len(), 50, "{path}: the page keeps its length");
        assert_eq!(
            big.headers
                .get("x-total-count")
                .and_then(|v| v.to_str().ok()),
            Some("50"),
            "{path}"
        );
        for it in big.items() {
            assert!(it.get("body").is_none(), "{path}: body left out");
            assert!(it.get("ref").is_none(), "{path}: ref left out");
            assert_eq!(it["milestone"]["title"], "v1", "{path}: milestone kept");
            assert!(
                it["milestone"].get("description").is_none(),
                "{path}: milestone description left out"
            );
            assert!(it["title"].as_str().is_some_and(|t| t.starts_with('q')));
        }
        let size = big.envelope();
        eprintln!("{path}: envelope {size} bytes");
        assert!(size < BUDGET, "{path}: envelope {size} bytes");
        largest = largest.max(size);
    }
    eprintln!("largest issue-list envelope: {largest} bytes");
}

#[tokio::test]
async fn milestone_lists_leave_out_descriptions_past_the_response_limit() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("lim", false).await;
    let auth = format!("token {}", u.token);
    let text = "\"".repeat(65_535);
    let bodies = (0..25)
        .map(|i| json!({"title": format!("m{i:02}"), "description": text}))
        .collect();
    create_all(&api, &u.token, &format!("{repo}/milestones"), bodies).await;

    let small = get_raw(&api, &format!("{repo}/milestones?limit=3&state=all"), &auth).await;
    assert_eq!(small.status, 200);
    assert_eq!(small.omitted(), None);
    assert_eq!(
        small.items()[0]["description"].as_str().map(str::len),
        Some(65_535)
    );

    let big = get_raw(
        &api,
        &format!("{repo}/milestones?limit=50&state=all"),
        &auth,
    )
    .await;
    assert_eq!(big.status, 200, "{:?}", big.json);
    assert_eq!(big.omitted(), Some("description"));
    assert_eq!(big.items().len(), 25);
    for (i, m) in big.items().iter().enumerate() {
        assert_eq!(m["title"], format!("m{i:02}"), "milestone {i} in order");
        assert!(m.get("description").is_none(), "milestone {i}");
    }
    let size = big.envelope();
    eprintln!("milestone list envelope: {size} bytes");
    assert!(size < BUDGET, "{size}");
}

#[tokio::test]
async fn application_lists_leave_out_inline_files_past_the_response_limit() {
    let t = Team::new().await;
    // A valid compose file padded with a comment of quotes to 128 KiB.
    let mut text = String::from("services:\n  web:\n    image: nginx\n# ");
    text.push_str(&"\"".repeat(128 * 1024 - text.len()));
    let mut body = valid(&t, "dockercompose");
    body["docker_compose_raw"] = json!(text);
    let auth = format!("Bearer {}", t.token);
    let path = "/api/v1/applications/dockercompose";
    for batch in 0..3 {
        let replies =
            join_all((0..4).map(|_| send(&t.api, "POST", path, &auth, Some(&body)))).await;
        for r in replies {
            assert_eq!(r.status, 201, "batch {batch}: {:?}", r.json);
        }
    }
    let list = get_raw(&t.api, "/api/v1/applications", &auth).await;
    assert_eq!(list.status, 200, "{:?}", list.json);
    assert_eq!(
        list.omitted(),
        Some("dockerfile,docker_compose_raw,custom_labels,custom_nginx_configuration")
    );
    assert_eq!(list.items().len(), 12);
    for a in list.items() {
        assert!(a.get("docker_compose_raw").is_none(), "{a}");
        assert_eq!(a["build_pack"], "dockercompose");
    }
    assert!(list.envelope() < BUDGET, "{}", list.envelope());
    // One application still reads whole.
    let uuid = list.items()[0]["uuid"].as_str().expect("uuid");
    let one = get_raw(&t.api, &format!("/api/v1/applications/{uuid}"), &auth).await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json["docker_compose_raw"], json!(text));
}

/// `@u0 @u1 ...` up to `max` characters; returns the text and the count.
fn names(prefix: &str, max: usize) -> (String, usize) {
    let mut text = String::new();
    let mut n = 0;
    loop {
        let next = format!("@{prefix}{n} ");
        if text.len() + next.len() > max {
            return (text, n);
        }
        text.push_str(&next);
        n += 1;
    }
}

async fn stored_mentions(repo_id: i64, index: i64) -> Vec<String> {
    let (client, table) = api_tests::table().await;
    let pk = format!("REPO#{repo_id}");
    let sk = format!("ISSUE#{index:020}");
    let out = client
        .get_item()
        .table_name(table)
        .key("pk", AttributeValue::S(pk))
        .key("sk", AttributeValue::S(sk))
        .send()
        .await
        .expect("get_item");
    let item = out.item.expect("the issue is stored");
    match item.get("mentions") {
        Some(AttributeValue::L(l)) => l
            .iter()
            .map(|v| v.as_s().cloned().expect("a string"))
            .collect(),
        Some(AttributeValue::Ss(ss)) => ss.clone(),
        other => panic!("mentions stored as {other:?}"),
    }
}

#[tokio::test]
async fn at_most_fifty_mentions_are_stored() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("lim", false).await;
    let repo_id = api
        .call("GET", &repo, Auth::Token(&u.token), None)
        .await
        .body["id"]
        .as_i64()
        .expect("repository id");
    let issues = format!("{repo}/issues");

    // 20,000 names take ~149,000 characters: over the body bound, refused.
    let huge: Vec<String> = (0..20_000).map(|i| format!("@u{i}")).collect();
    let huge = huge.join(" ");
    let r = api
        .call(
            "POST",
            &issues,
            Auth::Token(&u.token),
            Some(json!({"title": "many", "body": huge})),
        )
        .await;
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert!(r.message().contains("body"), "{:?}", r.body);

    // As many distinct names as the largest body holds.
    let (text, n) = names("u", 65_536);
    assert!(n > 9_000, "{n} names");
    let auth = format!("token {}", u.token);
    let body = json!({"title": "many", "body": text});
    let r = send(&api, "POST", &issues, &auth, Some(&body)).await;
    assert_eq!(r.status, 201, "{:?}", r.json);
    let index = r.json["number"].as_i64().expect("number");
    let want: Vec<String> = (0..50).map(|i| format!("u{i}")).collect();
    assert_eq!(stored_mentions(repo_id, index).await, want, "create");

    let (text, _) = names("v", 65_536);
    // Resending this edit (see `send`) would store the same text again.
    let edit = json!({"body": text});
    let r = send(
        &api,
        "PATCH",
        &format!("{issues}/{index}"),
        &auth,
        Some(&edit),
    )
    .await;
    assert_eq!(r.status, 201, "{:?}", r.json);
    let want: Vec<String> = (0..50).map(|i| format!("v{i}")).collect();
    assert_eq!(stored_mentions(repo_id, index).await, want, "edit");
}
