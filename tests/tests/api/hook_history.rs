//! A hook's delivery history over HTTP (this project's extension to
//! Gitea's API): the deliveries with their attempts, one sent again as a
//! new delivery, Gitea's test delivery, and who may read and send them.
//! Deliveries go to a real receiver on loopback; under `make test` a failed
//! attempt is retried after 1, 1 and 1 seconds (`HOOK_RETRY_SECONDS`).

use std::time::Duration;

use api_tests::{Api, Auth, Reply, issue_repo, receiver::Receiver};
use serde_json::{Value, json};

const SECRET: &str = "history-secret-never-shown";
const AUTHORIZATION: &str = "Bearer history-header-never-shown";
const WAIT: Duration = Duration::from_secs(90);

fn hook(url: &str, events: &[&str], active: bool) -> Value {
    json!({
        "type": "gitea",
        "config": {"url": url, "content_type": "json", "secret": SECRET},
        "events": events,
        "authorization_header": AUTHORIZATION,
        "active": active,
    })
}

/// Makes a hook under `base` (`…/hooks`); its path, `base/{id}`.
async fn new_hook(api: &Api, auth: Auth<'_>, base: &str, body: Value) -> String {
    let made = api.call("POST", base, auth, Some(body)).await;
    assert_eq!(made.status, 201, "POST {base}: {:?}", made.body);
    format!("{base}/{}", made.body["id"])
}

/// Neither credential of the hook appears in `r`.
fn no_secrets(r: &Reply, what: &str) {
    let text = r.body.to_string();
    assert!(!text.contains(SECRET), "{what} shows the secret: {text}");
    assert!(
        !text.contains("history-header-never-shown"),
        "{what} shows the authorization header: {text}"
    );
}

/// `GET {hook}/deliveries{query}`, which must answer 200 without secrets.
async fn deliveries(api: &Api, auth: Auth<'_>, hook: &str, query: &str) -> Reply {
    let path = format!("{hook}/deliveries{query}");
    let r = api.call("GET", &path, auth, None).await;
    assert_eq!(r.status, 200, "GET {path}: {:?}", r.body);
    no_secrets(&r, &path);
    assert!(r.total().is_none(), "deliveries are not counted: {path}");
    r
}

/// The hook's deliveries once `done` holds of them (within [`WAIT`]).
async fn deliveries_once(
    api: &Api,
    auth: Auth<'_>,
    hook: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    page_once(api, auth, hook, "", what, done).await
}

/// A page of the hook's deliveries (`query`) once `done` holds of it.
async fn page_once(
    api: &Api,
    auth: Auth<'_>,
    hook: &str,
    query: &str,
    what: &str,
    done: impl Fn(&[Value]) -> bool,
) -> Vec<Value> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let listed = deliveries(api, auth, hook, query).await;
        let list = listed.body.as_array().unwrap().clone();
        if done(&list) {
            return list;
        }
        assert!(
            std::time::Instant::now() < until,
            "{hook}: not {what} within {WAIT:?}: {list:#?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

fn redeliver_path(hook: &str, delivery: &str) -> String {
    format!("{hook}/deliveries/{delivery}/redeliver")
}

#[tokio::test]
async fn a_failed_delivery_shows_its_attempts_and_is_sent_again_as_a_new_one() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    receiver.answer_with(&[500; 10]);
    let owner = Auth::Token(&r.owner.token);
    let base = format!("{}/hooks", r.repo_path);
    let hook = new_hook(&r.api, owner, &base, hook(&receiver.url, &["issues"], true)).await;
    let n = r.api.new_issue(&r.owner, &r.repo_path, "Deliver me").await;

    // One attempt and the schedule's three retries, all refused.
    let got = receiver.wait_for(4, WAIT).await;
    let list = deliveries_once(&r.api, owner, &hook, "failed", |l| {
        l.first().is_some_and(|d| d["status"] == "failed")
    })
    .await;
    assert_eq!(list.len(), 1, "{list:#?}");
    let first = &list[0];
    let id = first["id"].as_str().unwrap().to_string();
    assert_eq!(got[0].header("x-gitea-delivery"), id);
    assert_eq!(
        (&first["event"], &first["event_type"], &first["action"]),
        (&json!("issues"), &json!("issues"), &json!("opened"))
    );
    assert_eq!(first["test"], false);
    assert_eq!(first["redelivery_of"], Value::Null);
    assert_eq!(first["next_attempt_at"], Value::Null, "settled");
    assert!(
        first["created_at"]
            .as_str()
            .is_some_and(|t| t.contains('T'))
    );
    let payload: Value = serde_json::from_str(first["payload"].as_str().unwrap()).unwrap();
    assert_eq!(payload["action"], "opened");
    assert_eq!(payload["issue"]["number"], n);
    assert_eq!(payload["issue"]["title"], "Deliver me");
    assert_eq!(
        first["payload"].as_str().unwrap().as_bytes(),
        got[0].body.as_slice(),
        "the bytes sent"
    );

    let attempts = first["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 4, "{attempts:#?}");
    for (i, a) in attempts.iter().enumerate() {
        assert_eq!(a["number"], i as i64 + 1, "oldest first");
        assert_eq!(a["response"]["status"], 500, "{a:#?}");
        assert_eq!(a["response"]["body"], "ok", "what the receiver answered");
        assert_eq!(a["request"]["url"], receiver.url.as_str());
        assert_eq!(a["request"]["http_method"], "POST");
        assert!(a["duration_ms"].as_i64().is_some_and(|ms| ms >= 0));
        let headers = &a["request"]["headers"];
        assert_eq!(headers["Authorization"], "******", "{headers:#?}");
        assert_eq!(
            headers["X-Gitea-Delivery"],
            id.as_str(),
            "retries keep the id"
        );
        assert_eq!(headers["X-Gitea-Event"], "issues");
        assert_eq!(headers["X-Gitea-Event-Type"], "issues");
        assert_eq!(headers["Content-Type"], "application/json");
        // The signature, as the receiver got it.
        let sig = got[i].header("x-gitea-signature");
        assert!(!sig.is_empty());
        assert_eq!(headers["X-Gitea-Signature"], sig);
    }

    // Sent again: a new delivery, linked to the first, answered at once.
    let again = r
        .api
        .call("POST", &redeliver_path(&hook, &id), owner, None)
        .await;
    assert_eq!(again.status, 202, "{:?}", again.body);
    no_secrets(&again, "redeliver");
    let new_id = again.body["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, id);
    assert_eq!(new_id.len(), 36, "a UUID: {new_id}");
    assert_eq!(again.body["redelivery_of"], id.as_str());
    assert_eq!(again.body["status"], "pending");
    assert_eq!(again.body["attempts"], json!([]));
    assert_eq!(again.body["event_type"], "issues");
    assert_eq!(again.body["payload"], first["payload"]);

    let got = receiver.wait_for(5, WAIT).await;
    assert_eq!(
        got[4].header("x-gitea-delivery"),
        new_id,
        "a new delivery id"
    );
    assert_eq!(got[4].body, got[0].body, "the same payload");
    let list = deliveries_once(&r.api, owner, &hook, "with the redelivery tried", |l| {
        l.len() == 2 && l[0]["attempts"].as_array().is_some_and(|a| !a.is_empty())
    })
    .await;
    assert_eq!(list[0]["id"], new_id.as_str(), "newest first");
    assert_eq!(list[0]["redelivery_of"], id.as_str());
    assert_eq!(list[1]["id"], id.as_str());
    assert_eq!(list[1]["attempts"].as_array().unwrap().len(), 4);
    assert_eq!(
        list[0]["attempts"][0]["request"]["headers"]["X-Gitea-Delivery"],
        new_id.as_str()
    );
}

#[tokio::test]
async fn tests_send_a_sample_issue_event_whatever_the_hook_s_events_and_state() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let base = format!("{}/hooks", r.repo_path);
    // Subscribed to comments only.
    let body = hook(&receiver.url, &["issue_comment"], true);
    let hook = new_hook(&r.api, owner, &base, body).await;
    let tests = format!("{hook}/tests");
    let with_ref = format!("{tests}?ref=main");
    let sent = r.api.call("POST", &with_ref, owner, None).await;
    assert_eq!(sent.status, 204, "{:?}", sent.body);
    let got = receiver.wait_for(1, WAIT).await;

    // Inactive: a test is sent all the same.
    let off = json!({"active": false});
    let edited = r.api.call("PATCH", &hook, owner, Some(off)).await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    let sent = r.api.call("POST", &tests, owner, None).await;
    assert_eq!(sent.status, 204, "{:?}", sent.body);
    assert_eq!(got.len(), 1);
    let got = receiver.wait_for(2, WAIT).await;

    let repo = r.repo_path.trim_start_matches("/api/v1/repos/");
    for d in &got {
        assert_eq!(d.header("x-gitea-event"), "issues");
        assert_eq!(d.header("x-gitea-event-type"), "issues");
        assert_eq!(d.header("authorization"), AUTHORIZATION);
        let p = d.json();
        assert_eq!(p["action"], "opened");
        assert_eq!(p["number"], 0);
        assert_eq!(p["issue"]["number"], 0);
        assert_eq!(p["repository"]["full_name"], repo);
        assert_eq!(p["sender"]["login"], r.owner.name.as_str());
    }
    assert_ne!(
        got[0].header("x-gitea-delivery"),
        got[1].header("x-gitea-delivery"),
        "each test is a delivery of its own"
    );
    let list = deliveries_once(&r.api, owner, &hook, "delivered", |l| {
        l.len() == 2 && l.iter().all(|d| d["status"] == "delivered")
    })
    .await;
    for d in &list {
        assert_eq!(d["test"], true);
        assert_eq!(
            (&d["event"], &d["action"]),
            (&json!("issues"), &json!("opened"))
        );
        assert_eq!(d["attempts"][0]["response"]["status"], 200);
    }
    assert_eq!(
        list[0]["id"],
        got[1].header("x-gitea-delivery"),
        "newest first"
    );
}

#[tokio::test]
async fn deliveries_are_paged_by_ten_and_not_counted() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let base = format!("{}/hooks", r.repo_path);
    let hook = new_hook(&r.api, owner, &base, hook(&receiver.url, &["issues"], true)).await;
    let tests = format!("{hook}/tests");
    for _ in 0..11 {
        assert_eq!(r.api.call("POST", &tests, owner, None).await.status, 204);
    }
    // Each is made before the answer (the sender tries it later); the
    // index that lists them may lag a little.
    page_once(&r.api, owner, &hook, "?page=2", "listed", |l| l.len() == 1).await;
    let page = deliveries(&r.api, owner, &hook, "?limit=50").await;
    let items = page.body.as_array().unwrap();
    assert_eq!(items.len(), 10, "at most 10 a page");
    assert_eq!(page.header("x-hasmore"), Some("true"));
    let link = page.header("link").expect("a Link to the next page");
    assert!(
        link.contains("page=2") && link.contains("rel=\"next\""),
        "{link}"
    );
    assert!(
        !link.contains("rel=\"last\""),
        "uncounted: no last page: {link}"
    );
    let created: Vec<&str> = items
        .iter()
        .map(|d| d["created_at"].as_str().unwrap())
        .collect();
    assert!(
        created.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {created:?}"
    );

    let next = deliveries(&r.api, owner, &hook, "?limit=50&page=2").await;
    assert_eq!(next.body.as_array().unwrap().len(), 1);
    assert_eq!(next.header("x-hasmore"), Some("false"));
    let link = next.header("link").expect("links back");
    assert!(
        link.contains("rel=\"first\"") && link.contains("rel=\"prev\""),
        "{link}"
    );
    assert!(!link.contains("rel=\"next\""), "{link}");
    let mut seen: Vec<&Value> = items.iter().map(|d| &d["id"]).collect();
    seen.push(&next.body[0]["id"]);
    seen.sort_by_key(|v| v.to_string());
    seen.dedup();
    assert_eq!(seen.len(), 11, "every delivery once");

    let small = deliveries(&r.api, owner, &hook, "?limit=4&page=3").await;
    assert_eq!(small.body.as_array().unwrap().len(), 3);
    assert_eq!(small.header("x-hasmore"), Some("false"));
    let past = deliveries(&r.api, owner, &hook, "?page=99").await;
    assert_eq!(past.body, json!([]));
    assert_eq!(past.header("x-hasmore"), Some("false"));
    receiver.wait_for(11, WAIT).await;
}

#[tokio::test]
async fn deliveries_of_hooks_the_path_s_owner_lacks_or_the_caller_may_not_manage_are_refused() {
    let r = issue_repo(true).await;
    let api = &r.api;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let base = format!("{}/hooks", r.repo_path);
    let a = new_hook(api, owner, &base, hook(&receiver.url, &["issues"], true)).await;
    let b = new_hook(api, owner, &base, hook(&receiver.url, &["issues"], true)).await;
    let sent = api.call("POST", &format!("{a}/tests"), owner, None).await;
    assert_eq!(sent.status, 204, "{:?}", sent.body);
    let listed = deliveries_once(api, owner, &a, "made", |l| !l.is_empty()).await;
    let delivery = listed[0]["id"].as_str().unwrap().to_string();

    // Another hook's delivery, and ids that name none.
    let missing = [
        "nope".to_string(),
        "123".to_string(),
        "00000000-0000-4000-8000-000000000000".to_string(),
        "f".repeat(2000),
        delivery.replace('-', "x"),
    ];
    for (hook, id) in [(&b, &delivery)]
        .into_iter()
        .chain(missing.iter().map(|m| (&a, m)))
    {
        let path = redeliver_path(hook, id);
        let got = api.call("POST", &path, owner, None).await;
        assert_eq!(got.status, 404, "POST {path}: {:?}", got.body);
    }

    // A hook of another repository, under this one's path, and the other
    // way round: 404, as for GET …/hooks/{id}.
    let (other, other_repo) = api.user_repo("hho", false).await;
    let other_auth = Auth::Token(&other.token);
    let other_base = format!("{other_repo}/hooks");
    let c = new_hook(
        api,
        other_auth,
        &other_base,
        hook(&receiver.url, &["issues"], true),
    )
    .await;
    let c_id = c.rsplit('/').next().unwrap();
    let a_id = a.rsplit('/').next().unwrap();
    for (auth, hook) in [
        (owner, format!("{base}/{c_id}")),
        (other_auth, format!("{other_base}/{a_id}")),
    ] {
        for (method, path) in [
            ("GET", format!("{hook}/deliveries")),
            ("POST", redeliver_path(&hook, &delivery)),
            ("POST", format!("{hook}/tests")),
        ] {
            let got = api.call(method, &path, auth, None).await;
            assert_eq!(got.status, 404, "{method} {path}: {:?}", got.body);
        }
    }

    // Writers and readers see the repository but are not its admins: 403;
    // strangers do not see the private repository: 404.
    for (user, status) in [(&r.writer, 403), (&r.reader, 403), (&r.outsider, 404)] {
        for (method, path) in [
            ("GET", a.clone()),
            ("GET", format!("{a}/deliveries")),
            ("POST", redeliver_path(&a, &delivery)),
            ("POST", format!("{a}/tests")),
        ] {
            let got = api
                .call(method, &path, Auth::Token(&user.token), None)
                .await;
            assert_eq!(
                got.status, status,
                "{} {method} {path}: {:?}",
                user.name, got.body
            );
        }
    }
    let path = format!("{a}/deliveries");
    assert_eq!(api.call("GET", &path, Auth::None, None).await.status, 404);
    // A site admin manages them.
    let path = redeliver_path(&a, &delivery);
    assert_eq!(api.call("POST", &path, api.admin(), None).await.status, 202);
    let listed = deliveries_once(api, owner, &a, "redelivered", |l| l.len() >= 2).await;
    assert_eq!(listed.len(), 2, "nothing else was sent: {listed:#?}");
    assert_eq!(deliveries(api, owner, &b, "").await.body, json!([]));
}

#[tokio::test]
async fn organisation_user_and_site_hooks_have_deliveries_too() {
    let api = Api::from_env();
    let receiver = Receiver::start().await;
    let owner = api.new_user("hho").await;
    let member = api.new_user("hhm").await;
    let org = api.new_org(&owner, "hhorg", "public").await;
    let team = json!({"name": "devs", "permission": "write", "units": ["repo.issues"]});
    let teams = format!("/api/v1/orgs/{org}/teams");
    let made = api.call("POST", &teams, Auth::Token(&owner.token), Some(team));
    let team = made.await.body["id"].as_i64().unwrap();
    let add = format!("/api/v1/teams/{team}/members/{}", member.name);
    let added = api.call("PUT", &add, Auth::Token(&owner.token), None);
    assert_eq!(added.await.status, 204);
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), false)
        .await;

    // The organisation's hook hears of its repository's issue.
    let org_base = format!("/api/v1/orgs/{org}/hooks");
    let body = hook(&receiver.url, &["issues"], true);
    let org_hook = new_hook(&api, Auth::Token(&owner.token), &org_base, body).await;
    api.new_issue(&owner, &format!("/api/v1/repos/{org}/{repo}"), "to the org")
        .await;
    receiver.wait_for(1, WAIT).await;
    let list = deliveries_once(&api, Auth::Token(&owner.token), &org_hook, "made", |l| {
        !l.is_empty()
    })
    .await;
    let delivery = list[0]["id"].as_str().unwrap().to_string();
    let path = redeliver_path(&org_hook, &delivery);
    let again = api
        .call("POST", &path, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(again.status, 202, "{:?}", again.body);
    receiver.wait_for(2, WAIT).await;
    // A member who is no owner: 403, as for the hook itself.
    for (method, path) in [
        ("GET", org_hook.clone()),
        ("GET", format!("{org_hook}/deliveries")),
        ("POST", redeliver_path(&org_hook, &delivery)),
    ] {
        let got = api
            .call(method, &path, Auth::Token(&member.token), None)
            .await;
        assert_eq!(got.status, 403, "{method} {path}: {:?}", got.body);
    }

    // The user's own: another user's hook id is 404.
    let user_base = "/api/v1/user/hooks";
    let body = hook(&receiver.url, &["issues"], true);
    let mine = new_hook(&api, Auth::Token(&member.token), user_base, body).await;
    assert_eq!(
        deliveries(&api, Auth::Token(&member.token), &mine, "")
            .await
            .body,
        json!([])
    );
    for (method, path) in [
        ("GET", mine.clone()),
        ("GET", format!("{mine}/deliveries")),
        ("POST", redeliver_path(&mine, &delivery)),
    ] {
        let got = api
            .call(method, &path, Auth::Token(&owner.token), None)
            .await;
        assert_eq!(got.status, 404, "{method} {path}: {:?}", got.body);
    }
    // The organisation's hook is not the user's.
    let org_id = org_hook.rsplit('/').next().unwrap();
    let path = format!("{user_base}/{org_id}/deliveries");
    let got = api
        .call("GET", &path, Auth::Token(&owner.token), None)
        .await;
    assert_eq!(got.status, 404);

    // The site's: site admins only. Inactive, so that it hears nothing
    // of the other tests.
    let body = hook(&receiver.url, &["issues"], false);
    let site = new_hook(&api, api.admin(), "/api/v1/admin/hooks", body).await;
    assert_eq!(
        deliveries(&api, api.admin(), &site, "").await.body,
        json!([])
    );
    for (method, path) in [
        ("GET", format!("{site}/deliveries")),
        ("POST", redeliver_path(&site, &delivery)),
    ] {
        let got = api
            .call(method, &path, Auth::Token(&owner.token), None)
            .await;
        assert_eq!(got.status, 403, "{method} {path}: {:?}", got.body);
    }
    let path = redeliver_path(&site, &delivery);
    let got = api.call("POST", &path, api.admin(), None).await;
    assert_eq!(
        got.status, 404,
        "the organisation's delivery is not the site's"
    );
    assert_eq!(
        api.call("DELETE", &site, api.admin(), None).await.status,
        204
    );
}

#[tokio::test]
async fn public_only_tokens_read_no_deliveries_of_a_private_repository() {
    let api = Api::from_env();
    let (u, _private) = api.user_repo("hhp", true).await;
    let body = hook("http://127.0.0.1:9/hook", &["issues"], true);
    let mine = new_hook(&api, Auth::Token(&u.token), "/api/v1/user/hooks", body).await;
    let limited = api
        .token(&u.name, &u.password, &["all", "public-only"])
        .await;
    // The hook itself, yes; what it was sent of every repository the
    // user owns, a private one among them, no.
    let got = api.call("GET", &mine, Auth::Bearer(&limited), None).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let got = api
        .call(
            "GET",
            &format!("{mine}/deliveries"),
            Auth::Bearer(&limited),
            None,
        )
        .await;
    assert_eq!(got.status, 403, "{:?}", got.body);
    assert_eq!(got.message(), "token scope is limited to public users");
    let all = deliveries(&api, Auth::Token(&u.token), &mine, "").await;
    assert_eq!(all.body, json!([]));
}
