//! Webhooks of repositories, organisations, users and the site, over
//! HTTP: Gitea's statuses, who may manage them, what is refused (and
//! changes nothing), the bound of 20 under concurrent creates, and that a
//! secret is never shown.

use api_tests::{Api, Auth, IssueRepo, Reply, TestUser, issue_repo};
use serde_json::{Value, json};

/// A target the test instance accepts (loopback is allowed there); no
/// test sends anything to it.
const TARGET: &str = "http://127.0.0.1:9/hook";
const SECRET: &str = "s3cret-never-shown";
const AUTHORIZATION: &str = "Bearer also-never-shown";

fn hook(events: &[&str]) -> Value {
    json!({
        "type": "gitea",
        "config": {"url": TARGET, "content_type": "json", "secret": SECRET},
        "events": events,
        "authorization_header": AUTHORIZATION,
        "active": true,
    })
}

/// Neither secret appears anywhere in a response.
fn no_secrets(r: &Reply, what: &str) {
    let text = r.body.to_string();
    assert!(!text.contains(SECRET), "{what} shows the secret: {text}");
    assert!(
        !text.contains("also-never-shown"),
        "{what} shows the header: {text}"
    );
}

async fn list(api: &Api, base: &str, auth: Auth<'_>) -> Vec<Value> {
    let r = api.call("GET", base, auth, None).await;
    assert_eq!(r.status, 200, "GET {base}: {:?}", r.body);
    no_secrets(&r, base);
    assert_eq!(
        r.total(),
        Some(r.body.as_array().unwrap().len() as u64),
        "{base}"
    );
    r.body.as_array().unwrap().clone()
}

/// Creates, reads, lists, edits and deletes a hook under `base` as `auth`,
/// with Gitea's statuses and shapes.
async fn lifecycle(api: &Api, base: &str, auth: Auth<'_>) {
    let made = api
        .call("POST", base, auth, Some(hook(&["issues", "repository"])))
        .await;
    assert_eq!(made.status, 201, "POST {base}: {:?}", made.body);
    no_secrets(&made, base);
    let id = made.body["id"].as_i64().unwrap();
    assert!(id > 0);
    assert_eq!(made.body["type"], "gitea");
    assert_eq!(made.body["active"], true);
    assert_eq!(made.body["authorization_header"], "******");
    assert_eq!(
        made.body["config"],
        json!({"url": TARGET, "content_type": "json"})
    );
    assert_eq!(
        made.body["events"],
        json!([
            "issues",
            "issue_assign",
            "issue_label",
            "issue_milestone",
            "issue_comment",
            "repository"
        ])
    );
    for field in ["created_at", "updated_at"] {
        assert!(
            made.body[field].as_str().is_some_and(|t| t.contains('T')),
            "{field}"
        );
    }
    let one = format!("{base}/{id}");
    let got = api.call("GET", &one, auth, None).await;
    assert_eq!((got.status, &got.body), (200, &made.body), "GET {one}");
    assert!(list(api, base, auth).await.contains(&made.body));

    // Only what is named changes; the secret and header stay set.
    let patch = json!({"active": false, "events": ["pull_request_review"],
        "branch_filter": "{main,release/*}", "config": {"content_type": "form"}});
    let edited = api.call("PATCH", &one, auth, Some(patch)).await;
    assert_eq!(edited.status, 200, "PATCH {one}: {:?}", edited.body);
    no_secrets(&edited, &one);
    assert_eq!(edited.body["active"], false);
    assert_eq!(edited.body["branch_filter"], "{main,release/*}");
    assert_eq!(
        edited.body["config"],
        json!({"url": TARGET, "content_type": "form"})
    );
    assert_eq!(
        edited.body["events"],
        json!([
            "pull_request_review_approved",
            "pull_request_review_rejected",
            "pull_request_review_comment"
        ])
    );
    assert_eq!(edited.body["authorization_header"], "******");
    let cleared = api
        .call(
            "PATCH",
            &one,
            auth,
            Some(json!({"authorization_header": ""})),
        )
        .await;
    assert_eq!(
        cleared.body["authorization_header"], "",
        "{:?}",
        cleared.body
    );
    assert_eq!(cleared.body["events"], edited.body["events"]);

    // Ids that name no hook of this owner.
    for bad in [
        "abc",
        "0",
        "-1",
        "99999999999999999999",
        &(id + 1_000_000).to_string(),
    ] {
        for method in ["GET", "PATCH", "DELETE"] {
            let body = (method == "PATCH").then(|| json!({"active": true}));
            let r = api.call(method, &format!("{base}/{bad}"), auth, body).await;
            assert_eq!(r.status, 404, "{method} {base}/{bad}: {:?}", r.body);
        }
    }
    let gone = api.call("DELETE", &one, auth, None).await;
    assert_eq!(gone.status, 204, "DELETE {one}: {:?}", gone.body);
    for method in ["GET", "DELETE"] {
        let r = api.call(method, &one, auth, None).await;
        assert_eq!(r.status, 404, "{method} {one} after its delete");
    }
    assert!(!list(api, base, auth).await.iter().any(|h| h["id"] == id));
}

fn repo_hooks(r: &IssueRepo) -> String {
    format!("{}/hooks", r.repo_path)
}

#[tokio::test]
async fn repository_hooks_are_managed_by_repository_admins() {
    let r = issue_repo(true).await;
    let base = repo_hooks(&r);
    lifecycle(&r.api, &base, Auth::Token(&r.owner.token)).await;
    // A site admin manages them too.
    lifecycle(&r.api, &base, r.api.admin()).await;

    let made = r.api.call(
        "POST",
        &base,
        Auth::Token(&r.owner.token),
        Some(hook(&["issues"])),
    );
    let id = made.await.body["id"].as_i64().unwrap();
    let one = format!("{base}/{id}");
    // Writers and readers see the repository but are not its admins: 403;
    // strangers do not see the private repository: 404; anonymous: 404.
    let who: [(&TestUser, u16); 3] = [(&r.writer, 403), (&r.reader, 403), (&r.outsider, 404)];
    for (user, status) in who {
        for (method, path, body) in [
            ("GET", &base, None),
            ("POST", &base, Some(hook(&["issues"]))),
            ("GET", &one, None),
            ("PATCH", &one, Some(json!({"active": false}))),
            ("DELETE", &one, None),
        ] {
            let got = r
                .api
                .call(method, path, Auth::Token(&user.token), body)
                .await;
            assert_eq!(
                got.status, status,
                "{} {method} {path}: {:?}",
                user.name, got.body
            );
        }
    }
    let anonymous = r.api.call("GET", &base, Auth::None, None).await;
    assert_eq!(anonymous.status, 404, "{:?}", anonymous.body);
    let left = list(&r.api, &base, Auth::Token(&r.owner.token)).await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["active"], true);
}

#[tokio::test]
async fn refused_bodies_name_the_problem_and_change_nothing() {
    let r = issue_repo(false).await;
    let (api, base, auth) = (&r.api, repo_hooks(&r), Auth::Token(&r.owner.token));
    let config = |url: &str| json!({"url": url, "content_type": "json"});
    let with = |patch: Value| {
        let mut body = hook(&["issues"]);
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let mut cases = vec![
        (with(json!({"events": []})), "push"),
        (with(json!({"events": ["push"]})), "push"),
        (with(json!({"events": ["create"]})), "create"),
        (with(json!({"events": ["release"]})), "release"),
        (
            with(json!({"events": ["pull_request_sync"]})),
            "pull_request_sync",
        ),
        (with(json!({"events": ["nonsense"]})), "nonsense"),
        (with(json!({"events": vec!["issues"; 33]})), "at most 32"),
        (with(json!({"config": {"url": TARGET}})), "content_type"),
        (with(json!({"config": {"content_type": "json"}})), "url"),
        (
            with(json!({"config": {"url": TARGET, "content_type": "xml"}})),
            "xml",
        ),
        (
            with(json!({"config": {"url": TARGET, "content_type": "json", "secrte": "x"}})),
            "secrte",
        ),
        (
            with(json!({"config": {"url": TARGET, "content_type": "json", "http_method": "GET"}})),
            "GET",
        ),
        (with(json!({"config": config(&"u".repeat(2049))})), "2048"),
        (
            with(json!({"config": {"url": TARGET, "content_type": "json",
            "secret": "s".repeat(256)}})),
            "255",
        ),
        (
            with(json!({"authorization_header": "a".repeat(1025)})),
            "1024",
        ),
        (
            with(json!({"authorization_header": "Bearer x\r\nX-Evil: 1"})),
            "control",
        ),
        (with(json!({"branch_filter": "b".repeat(256)})), "255"),
        (with(json!({"is_system_webhook": true})), "system"),
        (with(json!({"config": "not an object"})), "config"),
        (with(json!({"active": "yes"})), "active"),
    ];
    for kind in [
        "slack",
        "discord",
        "msteams",
        "dingtalk",
        "telegram",
        "feishu",
        "matrix",
        "wechatwork",
        "packagist",
        "GITEA",
    ] {
        cases.push((with(json!({"type": kind})), kind));
    }
    // Targets a stranger should not reach, in literal forms only (no DNS
    // at create; the test instance allows loopback, nothing else).
    for url in [
        "http://10.0.0.1/",
        "http://192.168.1.1:8080/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00::1]/",
        "http://[fe80::1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://167772161/",
        "http://012.0.0.1/",
        "http://metadata.google.internal/",
        "ftp://127.0.0.1/",
        "file:///etc/passwd",
        "http://user:pw@127.0.0.1:9/",
        "not a url",
    ] {
        cases.push((with(json!({"config": config(url)})), "config.url"));
    }
    let mut without_type = hook(&["issues"]);
    without_type.as_object_mut().unwrap().remove("type");
    cases.push((without_type, "type"));
    for (body, says) in &cases {
        let got = api.call("POST", &base, auth, Some(body.clone())).await;
        assert_eq!(got.status, 422, "{body}: {:?}", got.body);
        assert!(
            got.message().contains(says),
            "{body}: {:?} should name {says:?}",
            got.body
        );
        no_secrets(&got, "a refusal");
    }
    assert!(
        list(api, &base, auth).await.is_empty(),
        "a refused create stored a hook"
    );

    // Edits are refused the same way and leave the hook as it was.
    let made = api.call("POST", &base, auth, Some(hook(&["issues"]))).await;
    let one = format!("{base}/{}", made.body["id"]);
    for (body, says) in [
        (json!({"events": []}), "push"),
        (json!({"events": ["push"]}), "push"),
        (json!({"config": {"content_type": "xml"}}), "xml"),
        (json!({"config": {"url": ""}}), "url"),
        (
            json!({"config": {"url": "http://169.254.169.254/"}}),
            "config.url",
        ),
        (json!({"config": {"secrte": "x"}}), "secrte"),
        (json!({"branch_filter": "b".repeat(256)}), "255"),
        (json!({"is_system_webhook": true}), "system"),
    ] {
        let got = api.call("PATCH", &one, auth, Some(body.clone())).await;
        assert_eq!(got.status, 422, "{body}: {:?}", got.body);
        assert!(got.message().contains(says), "{body}: {:?}", got.body);
    }
    let after = api.call("GET", &one, auth, None).await;
    assert_eq!(after.body, made.body, "a refused edit changed the hook");
    // Unknown fields outside `config` are ignored, as Gitea ignores them.
    let extra = with(json!({"colour": "blue"}));
    assert_eq!(api.call("POST", &base, auth, Some(extra)).await.status, 201);
    // `gogs` is served; `pull_request` is every pull-request event.
    let gogs = with(json!({"type": "gogs", "events": ["pull_request"]}));
    let got = api.call("POST", &base, auth, Some(gogs)).await;
    assert_eq!((got.status, &got.body["type"]), (201, &json!("gogs")));
    assert_eq!(
        got.body["events"].as_array().unwrap().len(),
        9,
        "{:?}",
        got.body
    );
    assert!(!got.body["events"].to_string().contains("sync"));
}

#[tokio::test]
async fn at_most_twenty_hooks_even_when_created_at_once() {
    let api = Api::from_env();
    let owner = api.new_user("hk20").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let base = format!("/api/v1/repos/{}/{repo}/hooks", owner.name);
    let auth = Auth::Token(&owner.token);
    let body = hook(&["issues"]);
    let answers = futures::future::join_all(
        (0..25).map(|_| api.call("POST", &base, auth, Some(body.clone()))),
    )
    .await;
    let statuses: Vec<u16> = answers.iter().map(|r| r.status).collect();
    let created = statuses.iter().filter(|s| **s == 201).count();
    assert_eq!(created, 20, "statuses {statuses:?}");
    for r in answers.iter().filter(|r| r.status != 201) {
        assert_eq!(r.status, 422, "{:?}", r.body);
        assert!(r.message().contains("at most 20"), "{:?}", r.body);
    }
    let hooks = list(&api, &format!("{base}?limit=50"), auth).await;
    assert_eq!(hooks.len(), 20);
    let ids: std::collections::BTreeSet<_> = hooks.iter().map(|h| h["id"].as_i64()).collect();
    assert_eq!(ids.len(), 20);
    // A delete makes room for one more.
    let first = format!("{base}/{}", hooks[0]["id"]);
    assert_eq!(api.call("DELETE", &first, auth, None).await.status, 204);
    assert_eq!(
        api.call("POST", &base, auth, Some(body.clone()))
            .await
            .status,
        201
    );
    assert_eq!(api.call("POST", &base, auth, Some(body)).await.status, 422);
}

#[tokio::test]
async fn organisation_user_and_site_hooks() {
    let api = Api::from_env();
    let owner = api.new_user("hko").await;
    let member = api.new_user("hkm").await;
    let org = api.new_org(&owner, "hkorg", "public").await;
    // A member of a non-owner team sees the organisation but is no owner.
    let team = json!({"name": "devs", "permission": "write", "units": ["repo.issues"]});
    let team = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/teams"),
            Auth::Token(&owner.token),
            Some(team),
        )
        .await;
    let team = team.body["id"].as_i64().unwrap();
    let add = format!("/api/v1/teams/{team}/members/{}", member.name);
    assert_eq!(
        api.call("PUT", &add, Auth::Token(&owner.token), None)
            .await
            .status,
        204
    );

    let org_base = format!("/api/v1/orgs/{org}/hooks");
    lifecycle(&api, &org_base, Auth::Token(&owner.token)).await;
    lifecycle(&api, &org_base, api.admin()).await;
    for (user, status) in [(&member, 403)] {
        let got = api
            .call("GET", &org_base, Auth::Token(&user.token), None)
            .await;
        assert_eq!(got.status, status, "{:?}", got.body);
        let got = api.call(
            "POST",
            &org_base,
            Auth::Token(&user.token),
            Some(hook(&["issues"])),
        );
        assert_eq!(got.await.status, status);
    }
    let private = api.new_org(&owner, "hkpriv", "private").await;
    let hidden = format!("/api/v1/orgs/{private}/hooks");
    let got = api
        .call("GET", &hidden, Auth::Token(&member.token), None)
        .await;
    assert_eq!(got.status, 404, "a private organisation: {:?}", got.body);
    let got = api
        .call("GET", "/api/v1/orgs/nosuchorgxyz/hooks", api.admin(), None)
        .await;
    assert_eq!(got.status, 404);

    // The user's own: each user sees only theirs.
    lifecycle(&api, "/api/v1/user/hooks", Auth::Token(&member.token)).await;
    let mine = api.call(
        "POST",
        "/api/v1/user/hooks",
        Auth::Token(&member.token),
        Some(hook(&["issues"])),
    );
    let mine = mine.await.body["id"].as_i64().unwrap();
    let theirs = format!("/api/v1/user/hooks/{mine}");
    assert_eq!(
        api.call("GET", &theirs, Auth::Token(&owner.token), None)
            .await
            .status,
        404
    );
    assert!(
        list(&api, "/api/v1/user/hooks", Auth::Token(&owner.token))
            .await
            .is_empty()
    );
    assert_eq!(
        api.call("GET", "/api/v1/user/hooks", Auth::None, None)
            .await
            .status,
        401
    );
    // An organisation's hook is not the user's, nor the other way round.
    let org_hook = format!("{org_base}/{mine}");
    assert_eq!(
        api.call("GET", &org_hook, Auth::Token(&owner.token), None)
            .await
            .status,
        404
    );

    // The site's: site admins only; system hooks only.
    lifecycle(&api, "/api/v1/admin/hooks", api.admin()).await;
    let got = api
        .call(
            "GET",
            "/api/v1/admin/hooks",
            Auth::Token(&owner.token),
            None,
        )
        .await;
    assert_eq!(got.status, 403, "{:?}", got.body);
    let got = api.call(
        "POST",
        "/api/v1/admin/hooks",
        Auth::Token(&owner.token),
        Some(hook(&["issues"])),
    );
    assert_eq!(got.await.status, 403);
    let mut default = hook(&["issues"]);
    default["is_system_webhook"] = json!(false);
    let got = api
        .call("POST", "/api/v1/admin/hooks", api.admin(), Some(default))
        .await;
    assert_eq!(got.status, 422, "{:?}", got.body);
    assert!(got.message().contains("default"), "{:?}", got.body);
    let mut system = hook(&["issues"]);
    system["is_system_webhook"] = json!(true);
    let made = api
        .call("POST", "/api/v1/admin/hooks", api.admin(), Some(system))
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let listed = list(
        &api,
        "/api/v1/admin/hooks?type=system&limit=50",
        api.admin(),
    )
    .await;
    assert!(listed.contains(&made.body));
    let all = list(&api, "/api/v1/admin/hooks?type=all&limit=50", api.admin()).await;
    assert!(all.contains(&made.body));
    assert!(
        list(&api, "/api/v1/admin/hooks?type=default", api.admin())
            .await
            .is_empty()
    );
    let got = api
        .call("GET", "/api/v1/admin/hooks?type=nope", api.admin(), None)
        .await;
    assert_eq!(got.status, 422);
    let one = format!("/api/v1/admin/hooks/{}", made.body["id"]);
    assert_eq!(
        api.call("DELETE", &one, api.admin(), None).await.status,
        204
    );
}

#[tokio::test]
async fn archived_repositories_keep_their_hooks_manageable_and_deletes_remove_them() {
    let r = issue_repo(false).await;
    let (api, base, auth) = (&r.api, repo_hooks(&r), Auth::Token(&r.owner.token));
    let archive = json!({"archived": true});
    let got = api.call("PATCH", &r.repo_path, auth, Some(archive)).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let made = api.call("POST", &base, auth, Some(hook(&["issues"]))).await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let one = format!("{base}/{}", made.body["id"]);
    let got = api
        .call("PATCH", &one, auth, Some(json!({"active": false})))
        .await;
    assert_eq!(got.status, 200);
    let id = api.call("GET", &r.repo_path, auth, None).await.body["id"]
        .as_i64()
        .unwrap();
    let stored = api_tests::items_under(&format!("REPO#{id}"), "HOOK#").await;
    assert_eq!(stored.len(), 2, "the hook and its counter");
    assert_eq!(
        api.call("DELETE", &r.repo_path, auth, None).await.status,
        204
    );
    let stored = api_tests::items_under(&format!("REPO#{id}"), "HOOK#").await;
    assert!(
        stored.is_empty(),
        "a deleted repository's hooks stay: {stored:?}"
    );
}
