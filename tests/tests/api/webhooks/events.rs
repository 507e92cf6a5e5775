//! Each kind of change arrives as Gitea sends it.

use super::*;

#[tokio::test]
async fn issue_and_comment_events_arrive_signed_in_gitea_s_shapes() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let writer = Auth::Token(&r.writer.token);
    repo_hook(&r, &receiver, &["issues", "issue_comment"], "json").await;

    let issue = r
        .api
        .call(
            "POST",
            &r.base,
            writer,
            Some(json!({"title": "Hook me", "body": "first"})),
        )
        .await;
    assert_eq!(issue.status, 201, "{:?}", issue.body);
    let n = issue.body["number"].as_i64().unwrap();
    let one = format!("{}/{n}", r.base);
    let edit = json!({"title": "Hooked"});
    assert_eq!(
        r.api.call("PATCH", &one, owner, Some(edit)).await.status,
        201
    );
    let comment = json!({"body": "a comment"});
    let c = r
        .api
        .call("POST", &format!("{one}/comments"), writer, Some(comment))
        .await;
    assert_eq!(c.status, 201, "{:?}", c.body);
    let close = json!({"state": "closed"});
    assert_eq!(
        r.api.call("PATCH", &one, owner, Some(close)).await.status,
        201
    );

    let got = receiver.wait_for(4, WAIT).await;
    assert_eq!(got.len(), 4, "one delivery per event, none twice");
    let mut seen: Vec<(String, String, String)> = got
        .iter()
        .map(|d| {
            let p = d.json();
            (
                d.header("x-gitea-event").to_string(),
                d.header("x-gitea-event-type").to_string(),
                p["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    let want = [
        ("issue_comment", "issue_comment", "created"),
        ("issues", "issues", "closed"),
        ("issues", "issues", "edited"),
        ("issues", "issues", "opened"),
    ];
    assert_eq!(
        seen,
        want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );

    let mut ids = std::collections::HashSet::new();
    for d in &got {
        let sig = hmac_hex(&d.body);
        assert_eq!(
            d.header("x-gitea-signature"),
            sig,
            "the HMAC of the raw body"
        );
        assert_eq!(d.header("x-gogs-signature"), sig);
        assert_eq!(d.header("x-hub-signature-256"), format!("sha256={sig}"));
        assert_eq!(d.header("authorization"), "Bearer receiver-token");
        assert_eq!(d.header("content-type"), "application/json");
        assert_eq!(d.path, "/hook");
        let id = d.header("x-gitea-delivery").to_string();
        assert_eq!(id.len(), 36, "a UUID: {id}");
        assert_eq!(d.header("x-github-delivery"), id);
        assert_eq!(d.header("x-gogs-event"), d.header("x-gitea-event"));
        assert!(ids.insert(id), "each delivery has its own id");
        let p = d.json();
        let full_name = format!(
            "{}/{}",
            r.owner.name,
            r.repo_path.rsplit('/').next().unwrap()
        );
        assert_eq!(p["repository"]["full_name"], full_name);
        assert_eq!(p["issue"]["number"], n);
        let sender = p["sender"]["login"].as_str().unwrap();
        match p["action"].as_str().unwrap() {
            "opened" => {
                assert_eq!(sender, r.writer.name, "the actor, not the owner");
                assert_eq!(p["number"], n);
                assert_eq!(p["issue"]["title"], "Hook me");
                assert!(p.get("changes").is_none(), "{p}");
            }
            "edited" => {
                assert_eq!(sender, r.owner.name);
                assert_eq!(p["changes"], json!({"title": {"from": "Hook me"}}));
                assert_eq!(p["issue"]["title"], "Hooked");
            }
            "created" => {
                assert_eq!(sender, r.writer.name);
                assert_eq!(p["comment"]["body"], "a comment");
                assert_eq!(p["comment"]["id"], c.body["id"]);
                assert_eq!(p["is_pull"], false);
            }
            "closed" => {
                assert_eq!(sender, r.owner.name);
                assert_eq!(p["issue"]["state"], "closed");
            }
            other => panic!("unexpected action {other}"),
        }
    }
}

#[tokio::test]
async fn pull_request_events_follow_the_branch_filter_and_forms_carry_the_payload() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let mut body = hook(&receiver.url, &["pull_request"], "form");
    body["branch_filter"] = json!("{main,release/*}");
    let made = r
        .api
        .call("POST", &format!("{}/hooks", r.repo_path), owner, Some(body))
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let pulls = format!("{}/pulls", r.repo_path);
    for (title, base) in [
        ("to dev", "dev"),
        ("to release", "release/2"),
        ("to main", "main"),
    ] {
        let pr = json!({"title": title, "head": format!("f-{base}"), "base": base});
        let made = r.api.call("POST", &pulls, owner, Some(pr)).await;
        assert_eq!(made.status, 201, "{:?}", made.body);
    }
    // An issue: no pull_request event.
    let issue = json!({"title": "not a pull"});
    assert_eq!(
        r.api.call("POST", &r.base, owner, Some(issue)).await.status,
        201
    );

    let got = receiver.wait_for(2, WAIT).await;
    // Whatever else was due has had the time to arrive by now.
    api_tests::settle().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let got_all = receiver.received();
    assert_eq!(got_all.len(), 2, "dev and the issue are filtered out");
    let mut titles: Vec<String> = got
        .iter()
        .map(|d| {
            assert_eq!(
                d.header("content-type"),
                "application/x-www-form-urlencoded"
            );
            assert_eq!(d.header("x-gitea-event"), "pull_request");
            let form: Vec<(String, String)> =
                url::form_urlencoded::parse(&d.body).into_owned().collect();
            assert_eq!(form.len(), 1, "payload= alone");
            let json = form[0].1.clone();
            assert_eq!(form[0].0, "payload");
            assert_eq!(
                d.header("x-gitea-signature"),
                hmac_hex(json.as_bytes()),
                "over the JSON, as Gitea signs forms"
            );
            let p: Value = serde_json::from_str(&json).unwrap();
            assert_eq!(p["action"], "opened");
            assert_eq!(p["sender"]["login"], r.owner.name);
            p["pull_request"]["title"].as_str().unwrap().to_string()
        })
        .collect();
    titles.sort();
    assert_eq!(titles, ["to main", "to release"]);
}

#[tokio::test]
async fn deletes_are_events_with_the_record_as_it_was_and_who_deleted_it() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let writer = Auth::Token(&r.writer.token);
    let made = r
        .api
        .call(
            "POST",
            &format!("{}/hooks", r.repo_path),
            owner,
            Some(hook(
                &receiver.url,
                &["issues_only", "issue_comment"],
                "json",
            )),
        )
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let issue = json!({"title": "short-lived", "body": "gone soon"});
    let issue = r.api.call("POST", &r.base, writer, Some(issue)).await;
    assert_eq!(issue.status, 201);
    let n = issue.body["number"].as_i64().unwrap();
    let one = format!("{}/{n}", r.base);
    let comment = json!({"body": "also gone soon"});
    let c = r
        .api
        .call("POST", &format!("{one}/comments"), writer, Some(comment))
        .await;
    assert_eq!(c.status, 201);
    let comment_path = format!("{}/comments/{}", r.base, c.body["id"]);
    assert_eq!(
        r.api
            .call("DELETE", &comment_path, writer, None)
            .await
            .status,
        204
    );
    assert_eq!(r.api.call("DELETE", &one, owner, None).await.status, 204);

    let got = receiver.wait_for(4, WAIT).await;
    let mut seen: Vec<(String, String, String)> = got
        .iter()
        .map(|d| {
            let p = d.json();
            (
                d.header("x-gitea-event-type").to_string(),
                p["action"].as_str().unwrap().to_string(),
                p["sender"]["login"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    let (w, o) = (r.writer.name.clone(), r.owner.name.clone());
    assert_eq!(
        seen,
        [
            ("issue_comment".into(), "created".into(), w.clone()),
            ("issue_comment".into(), "deleted".into(), w.clone()),
            ("issues".into(), "deleted".into(), o),
            ("issues".into(), "opened".into(), w),
        ]
    );
    for d in &got {
        let p = d.json();
        match (d.header("x-gitea-event-type"), p["action"].as_str()) {
            ("issues", Some("deleted")) => {
                assert_eq!(p["issue"]["title"], "short-lived");
                assert_eq!(p["issue"]["body"], "gone soon");
            }
            ("issue_comment", Some("deleted")) => {
                assert_eq!(p["comment"]["body"], "also gone soon");
                assert_eq!(p["issue"]["number"], n);
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn an_organisation_s_hook_hears_its_repositories_made_and_deleted() {
    let api = api_tests::Api::from_env();
    let receiver = Receiver::start().await;
    let owner = api.new_user("rhown").await;
    let t = Auth::Token(&owner.token);
    let org = api.new_org(&owner, "rhorg", "public").await;
    let made = api
        .call(
            "POST",
            &format!("/api/v1/orgs/{org}/hooks"),
            t,
            Some(hook(&receiver.url, &["repository"], "json")),
        )
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), false)
        .await;
    let path = format!("/api/v1/repos/{org}/{repo}");
    assert_eq!(api.call("DELETE", &path, t, None).await.status, 204);

    let got = receiver.wait_for(2, WAIT).await;
    let mut actions: Vec<String> = got
        .iter()
        .map(|d| {
            assert_eq!(d.header("x-gitea-event"), "repository");
            assert_eq!(d.header("x-gitea-event-type"), "repository");
            assert_eq!(d.header("x-gitea-signature"), hmac_hex(&d.body));
            let p = d.json();
            assert_eq!(p["repository"]["full_name"], format!("{org}/{repo}"));
            assert_eq!(p["organization"]["login"], org);
            assert_eq!(p["sender"]["login"], owner.name);
            p["action"].as_str().unwrap().to_string()
        })
        .collect();
    actions.sort();
    assert_eq!(actions, ["created", "deleted"]);
}

#[tokio::test]
async fn assignments_labels_milestones_review_requests_and_reviews_have_their_events() {
    let r = issue_repo(false).await;
    let receiver = Receiver::start().await;
    let owner = Auth::Token(&r.owner.token);
    let writer = Auth::Token(&r.writer.token);
    repo_hook(&r, &receiver, &["issues", "pull_request"], "json").await;
    let label = json!({"name": "bug", "color": "#ee0701"});
    let label = r
        .api
        .call(
            "POST",
            &format!("{}/labels", r.repo_path),
            owner,
            Some(label),
        )
        .await;
    assert_eq!(label.status, 201, "{:?}", label.body);
    let milestone = json!({"title": "v1"});
    let milestone = r
        .api
        .call(
            "POST",
            &format!("{}/milestones", r.repo_path),
            owner,
            Some(milestone),
        )
        .await;
    assert_eq!(milestone.status, 201, "{:?}", milestone.body);
    let issue = json!({"title": "triage me"});
    let issue = r.api.call("POST", &r.base, owner, Some(issue)).await;
    let one = format!("{}/{}", r.base, issue.body["number"]);
    let triage = json!({
        "assignees": [r.writer.name],
        "milestone": milestone.body["id"],
    });
    assert_eq!(
        r.api.call("PATCH", &one, owner, Some(triage)).await.status,
        201
    );
    let labels = json!({"labels": [label.body["id"]]});
    let labelled = r
        .api
        .call("POST", &format!("{one}/labels"), owner, Some(labels))
        .await;
    assert_eq!(labelled.status, 200, "{:?}", labelled.body);
    let pr = json!({"title": "review me", "head": "feature", "base": "main"});
    let pr = r
        .api
        .call("POST", &format!("{}/pulls", r.repo_path), owner, Some(pr))
        .await;
    assert_eq!(pr.status, 201, "{:?}", pr.body);
    let pull = format!("{}/pulls/{}", r.repo_path, pr.body["number"]);
    let ask = json!({"reviewers": [r.writer.name]});
    let asked = r
        .api
        .call(
            "POST",
            &format!("{pull}/requested_reviewers"),
            owner,
            Some(ask),
        )
        .await;
    assert_eq!(asked.status, 201, "{:?}", asked.body);
    let review = json!({"event": "APPROVED", "body": "lgtm"});
    let reviewed = r
        .api
        .call("POST", &format!("{pull}/reviews"), writer, Some(review))
        .await;
    assert_eq!(reviewed.status, 200, "{:?}", reviewed.body);

    let got = receiver.wait_for(7, WAIT).await;
    let mut seen: Vec<(String, String, String)> = got
        .iter()
        .map(|d| {
            assert_eq!(d.header("x-gitea-signature"), hmac_hex(&d.body));
            (
                d.header("x-gitea-event").to_string(),
                d.header("x-gitea-event-type").to_string(),
                d.json()["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    seen.sort();
    let want = [
        ("issues", "issue_assign", "assigned"),
        ("issues", "issue_label", "label_updated"),
        ("issues", "issue_milestone", "milestoned"),
        ("issues", "issues", "opened"),
        ("pull_request", "pull_request", "opened"),
        (
            "pull_request",
            "pull_request_review_request",
            "review_requested",
        ),
        (
            "pull_request_approved",
            "pull_request_review_approved",
            "reviewed",
        ),
    ];
    assert_eq!(
        seen,
        want.map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );
    for d in &got {
        let p = d.json();
        match d.header("x-gitea-event-type") {
            "issue_assign" => assert_eq!(p["issue"]["assignees"][0]["login"], r.writer.name),
            "issue_label" => assert_eq!(p["issue"]["labels"][0]["name"], "bug"),
            "issue_milestone" => assert_eq!(p["issue"]["milestone"]["title"], "v1"),
            "pull_request_review_request" => {
                assert_eq!(p["requested_reviewer"]["login"], r.writer.name);
                assert_eq!(p["sender"]["login"], r.owner.name);
            }
            "pull_request_review_approved" => {
                assert_eq!(
                    p["review"],
                    json!({"type": "pull_request_review_approved", "content": "lgtm"})
                );
                assert_eq!(p["sender"]["login"], r.writer.name);
                assert_eq!(p["pull_request"]["title"], "review me");
            }
            _ => {}
        }
    }
}
