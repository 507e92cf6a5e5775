//! Input meant to hurt: texts past the stored bounds, request bodies past
//! each route's limit, over-long lists, deadlines outside years 1 to 9999,
//! and compose files built to nest or expand without end. Each is refused
//! (or, for aliases, accepted cheaply) with a client error, never a 500.

use std::time::{Duration, Instant};

use api_tests::{
    Api, Auth, Reply, TestUser,
    deploy::{Team, creates::count, creates::valid},
};
use serde_json::{Value, json};

/// Issues and pulls of the repository (`X-Total-Count` of every state).
async fn total(api: &Api, u: &TestUser, repo: &str) -> String {
    let r = api
        .call(
            "GET",
            &format!("{repo}/issues?state=all"),
            Auth::Token(&u.token),
            None,
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.header("x-total-count").unwrap_or_default().to_string()
}

#[tokio::test]
async fn texts_and_bodies_past_their_bounds_are_refused() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("hos", true).await;
    let other = api.new_user("hosc").await;
    let issues = format!("{repo}/issues");
    let r = api
        .call(
            "POST",
            &issues,
            Auth::Token(&u.token),
            Some(json!({"title": "kept", "body": "original", "ref": "main"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let before = total(&api, &u, &repo).await;
    let one = format!("{issues}/1");
    // Plain ASCII: under the 512 KiB request limit, over the stored bound.
    let (over, big) = ("b".repeat(65_537), "x".repeat(401 * 1024));
    let past_limit = "x".repeat(513 * 1024);
    let (pulls, milestones) = (format!("{repo}/pulls"), format!("{repo}/milestones"));
    let collaborator = format!("{repo}/collaborators/{}", other.name);
    let long = "body: is too long";
    let rows: Vec<(&str, &str, Value, u16, &str)> = vec![
        (
            "POST",
            &issues,
            json!({"title": "t", "body": over}),
            422,
            "body: is too long (maximum is 65536 characters)",
        ),
        (
            "POST",
            &issues,
            json!({"title": "t", "body": big}),
            422,
            long,
        ),
        (
            "POST",
            &issues,
            json!({"title": "t", "ref": big}),
            422,
            "ref: ",
        ),
        (
            "POST",
            &issues,
            json!({"title": "t", "body": past_limit}),
            413,
            "",
        ),
        ("PATCH", &one, json!({"body": over}), 422, long),
        ("PATCH", &one, json!({"body": big}), 422, long),
        ("PATCH", &one, json!({"ref": big}), 422, "ref: "),
        ("PATCH", &one, json!({"body": past_limit}), 413, ""),
        (
            "POST",
            &pulls,
            json!({"title": "t", "head": "a", "base": "b", "body": big}),
            422,
            long,
        ),
        (
            "POST",
            &milestones,
            json!({"title": "t", "description": "d".repeat(65_536)}),
            422,
            "description",
        ),
        (
            "PUT",
            &collaborator,
            json!({"permission": "write", "pad": "p".repeat(65 * 1024)}),
            413,
            "",
        ),
    ];
    for (i, (method, path, body, status, text)) in rows.into_iter().enumerate() {
        let r = api
            .call(method, path, Auth::Token(&u.token), Some(body))
            .await;
        assert_eq!(
            r.status,
            status,
            "row {i}: {method} {path}: {:?}",
            r.message()
        );
        assert!(r.message().contains(text), "row {i}: {:?}", r.body);
    }
    // Nothing was created or changed.
    assert_eq!(
        total(&api, &u, &repo).await,
        before,
        "no issue or pull created"
    );
    let kept = api.call("GET", &one, Auth::Token(&u.token), None).await;
    assert_eq!(
        (kept.body["body"].as_str(), kept.body["ref"].as_str()),
        (Some("original"), Some("main"))
    );
    let ms = api
        .call(
            "GET",
            &format!("{repo}/milestones?state=all"),
            Auth::Token(&u.token),
            None,
        )
        .await;
    assert_eq!(ms.body, json!([]), "no milestone created");
    // The refused collaborator still cannot see the private repository.
    let seen = api
        .call("GET", &repo, Auth::Token(&other.token), None)
        .await;
    assert_eq!(seen.status, 404, "collaborator not added");
}

#[tokio::test]
async fn lists_past_their_bounds_are_refused_before_lookups() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("hos", false).await;
    let issues = format!("{repo}/issues");
    let r = api
        .call(
            "POST",
            &issues,
            Auth::Token(&u.token),
            Some(json!({"title": "t"})),
        )
        .await;
    assert_eq!(r.status, 201);
    let before = total(&api, &u, &repo).await;
    // Names and ids that do not exist: the count is checked first.
    let eleven: Vec<String> = (0..11).map(|i| format!("ghost{i}")).collect();
    let labels: Vec<i64> = (1..=101).collect();
    let rows: Vec<(&str, String, Value, &str)> = vec![
        (
            "POST",
            issues.clone(),
            json!({"title": "t", "assignees": eleven}),
            "assignees",
        ),
        (
            "POST",
            issues.clone(),
            json!({"title": "t", "labels": labels}),
            "labels",
        ),
        (
            "PATCH",
            format!("{issues}/1"),
            json!({"assignees": eleven}),
            "assignees",
        ),
        (
            "PUT",
            format!("{issues}/1/labels"),
            json!({"labels": labels}),
            "labels",
        ),
    ];
    for (i, (method, path, body, field)) in rows.into_iter().enumerate() {
        let r = api
            .call(method, &path, Auth::Token(&u.token), Some(body))
            .await;
        assert_eq!(r.status, 422, "row {i}: {method} {path}: {:?}", r.body);
        assert!(r.message().starts_with(field), "row {i}: {:?}", r.body);
        assert!(r.message().contains("at most"), "row {i}: {:?}", r.body);
    }
    assert_eq!(total(&api, &u, &repo).await, before);
}

#[tokio::test]
async fn deadlines_and_filters_outside_years_1_to_9999_are_refused() {
    let api = Api::from_env();
    let (u, repo) = api.user_repo("hos", false).await;
    let issues = format!("{repo}/issues");
    let due = "2030-05-06T00:00:00Z";
    let r = api
        .call(
            "POST",
            &issues,
            Auth::Token(&u.token),
            Some(json!({"title": "t", "due_date": due})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let kept = r.body["due_date"].clone();
    let m = api
        .call(
            "POST",
            &format!("{repo}/milestones"),
            Auth::Token(&u.token),
            Some(json!({"title": "m", "due_on": due})),
        )
        .await;
    assert_eq!(m.status, 201, "{:?}", m.body);
    let ms = format!("{repo}/milestones/{}", m.body["id"]);
    for bad in [
        "+262142-12-31",
        "10000-01-01",
        "+262142-12-31T00:00:00Z",
        "10000-01-01T00:00:00Z",
        "0000-06-01",
    ] {
        let rows = [
            (
                "POST",
                issues.clone(),
                json!({"title": "t", "due_date": bad}),
                "due_date",
            ),
            (
                "PATCH",
                format!("{issues}/1"),
                json!({"due_date": bad}),
                "due_date",
            ),
            (
                "POST",
                format!("{issues}/1/deadline"),
                json!({"due_date": bad}),
                "due_date",
            ),
            (
                "POST",
                format!("{repo}/milestones"),
                json!({"title": "n", "due_on": bad}),
                "due_on",
            ),
            ("PATCH", ms.clone(), json!({"due_on": bad}), "due_on"),
        ];
        for (method, path, body, field) in rows {
            let r = api
                .call(method, &path, Auth::Token(&u.token), Some(body))
                .await;
            assert_eq!(r.status, 422, "{bad}: {method} {path}: {:?}", r.body);
            assert!(
                r.message().starts_with(field),
                "{bad}: {method} {path}: {:?}",
                r.body
            );
        }
    }
    for bad in ["+262142-12-31T00:00:00Z", "10000-01-01T00:00:00Z"] {
        for filter in ["since", "before"] {
            let q = format!("{filter}={}", bad.replace('+', "%2B"));
            for path in [
                format!("{issues}?{q}"),
                format!("/api/v1/repos/issues/search?{q}"),
            ] {
                let r = api.call("GET", &path, Auth::Token(&u.token), None).await;
                assert_eq!(r.status, 422, "{path}: {:?}", r.body);
                assert!(r.message().starts_with(filter), "{path}: {:?}", r.body);
            }
        }
    }
    // Nothing changed, and the last day of year 9999 is still a deadline.
    assert_eq!(total(&api, &u, &repo).await, "1");
    let now = api
        .call("GET", &format!("{issues}/1"), Auth::Token(&u.token), None)
        .await;
    assert_eq!(now.body["due_date"], kept);
    let now = api.call("GET", &ms, Auth::Token(&u.token), None).await;
    assert_eq!(now.body["due_on"], m.body["due_on"]);
    let r = api
        .call(
            "POST",
            &format!("{issues}/1/deadline"),
            Auth::Token(&u.token),
            Some(json!({"due_date": "9999-12-31T00:00:00Z"})),
        )
        .await;
    assert_eq!(
        (r.status, r.body),
        (201, json!({"due_date": "9999-12-31T23:59:59Z"}))
    );
}

/// A GET of a large response. The local emulator (`cargo lambda watch`)
/// now and then replaces one with its own bare 500, without the
/// `x-request-id` every API response carries; only that 500 is retried.
async fn read(t: &Team, path: &str) -> Reply {
    for _ in 0..5 {
        let r = t.get(path).await;
        if r.status != 500 || r.header("x-request-id").is_some() {
            return r;
        }
    }
    panic!("GET {path}: the emulator kept failing")
}

/// Posts a compose create; the answer must come quickly.
async fn compose(t: &Team, text: &str) -> (Reply, Duration) {
    let mut body = valid(t, "dockercompose");
    body["docker_compose_raw"] = json!(text);
    let started = Instant::now();
    let r = t.post("/applications/dockercompose", body).await;
    (r, started.elapsed())
}

#[tokio::test]
async fn compose_files_that_nest_or_expand_without_end_cost_little() {
    let t = Team::new().await;
    let before = count(&t).await;
    // ~100 KB of flow openers, and 200 indented block mappings.
    let mut block = String::from("services:\n");
    for i in 0..200 {
        block.push_str(&format!("{}k{i}:\n", "  ".repeat(i + 1)));
    }
    // A sequence where services belongs is refused for its shape at once;
    // flow openers are stopped by the parser's own nesting limit, block
    // nesting by the 64-level check.
    let (deep, flow) = ("nests deeper than 64", "The docker compose raw");
    let bombs = [
        (
            "[",
            format!("services: {}", "[".repeat(100 * 1024)),
            "services mapping",
        ),
        (
            "web: [",
            format!("services: {{web: {}", "[".repeat(100 * 1024)),
            flow,
        ),
        ("{", format!("services: {}", "{".repeat(100 * 1024)), flow),
        ("block", block, deep),
    ];
    for (open, text, want) in bombs {
        let (r, took) = compose(&t, &text).await;
        assert_eq!(r.status, 400, "{open:?}: {:?}", r.body);
        assert_eq!(r.body["message"], "Validation failed.", "{open:?}");
        let err = r.body["errors"]["docker_compose_raw"][0]
            .as_str()
            .unwrap_or_default();
        eprintln!("{open:?}: {err} ({took:?})");
        assert!(err.contains(want), "{open:?}: {err}");
        assert!(took < Duration::from_secs(10), "{open:?}: {took:?}");
    }
    assert_eq!(count(&t).await, before, "nothing created");

    // One anchor referenced ~10,000 times, then a valid services mapping.
    let mut flat = String::from("x-a: &a [\"lol\", \"lol\", \"lol\"]\nx-b: [");
    while flat.len() < 120 * 1024 {
        flat.push_str("*a, ");
    }
    flat.push_str("*a]\nservices: {web: {image: nginx}}\n");
    // Nine layers, each referencing the one below ~350 times: 350^9 if
    // expanded, ~16 KB as written.
    let mut layered = String::from("x-0: &l0 [\"lol\"]\n");
    for i in 1..10 {
        let refs = vec![format!("*l{}", i - 1); 350].join(", ");
        layered.push_str(&format!("x-{i}: &l{i} [{refs}]\n"));
    }
    layered.push_str("services: {web: {image: nginx}}\n");
    for (name, text) in [("flat", &flat), ("layered", &layered)] {
        let (r, took) = compose(&t, text).await;
        assert_eq!(r.status, 201, "{name}: {:?}", r.body);
        assert!(took < Duration::from_secs(10), "{name}: {took:?}");
        let uuid = r.body["uuid"].as_str().expect("uuid");
        let app = read(&t, &format!("/applications/{uuid}")).await;
        assert_eq!(app.status, 200, "{name}");
        assert_eq!(
            app.body["docker_compose_raw"],
            json!(text),
            "{name}: kept as sent"
        );
    }
    assert_eq!(count(&t).await, before + 2);
}
