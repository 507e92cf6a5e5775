//! Issues over HTTP: every rule of the tracker seed's issue operations,
//! with the stored state read back after each write.

use api_tests::{Api, Auth, TestUser, unique};
use futures::future::join_all;
use serde_json::{Value, json};

struct Repo {
    api: Api,
    owner: TestUser,
    writer: TestUser,
    reader: TestUser,
    outsider: TestUser,
    base: String,
    repo_path: String,
}

async fn repo(private: bool) -> Repo {
    let api = Api::from_env();
    let owner = api.new_user("iown").await;
    let (writer, reader, outsider) = (
        api.new_user("iwri").await,
        api.new_user("irea").await,
        api.new_user("iout").await,
    );
    let name = api.new_repo(&owner, "/api/v1/user/repos", private).await;
    api.add_collaborator(&owner, &owner.name, &name, &writer.name, "write")
        .await;
    api.add_collaborator(&owner, &owner.name, &name, &reader.name, "read")
        .await;
    let repo_path = format!("/api/v1/repos/{}/{name}", owner.name);
    Repo {
        base: format!("{repo_path}/issues"),
        repo_path,
        api,
        owner,
        writer,
        reader,
        outsider,
    }
}

impl Repo {
    async fn create(&self, who: &TestUser, body: Value) -> Value {
        let r = self
            .api
            .call(
                "POST",
                &self.base,
                Auth::Token(&who.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, 201, "{body}: {:?}", r.body);
        r.body
    }

    async fn get(&self, n: i64) -> Value {
        let r = self
            .api
            .call(
                "GET",
                &format!("{}/{n}", self.base),
                Auth::Token(&self.owner.token),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body
    }

    async fn patch(&self, who: &TestUser, n: i64, body: Value) -> api_tests::Reply {
        self.api
            .call(
                "PATCH",
                &format!("{}/{n}", self.base),
                Auth::Token(&who.token),
                Some(body),
            )
            .await
    }

    async fn milestone(&self, title: &str) -> i64 {
        let r = self
            .api
            .call(
                "POST",
                &format!("{}/milestones", self.repo_path),
                Auth::Token(&self.owner.token),
                Some(json!({"title": title})),
            )
            .await;
        assert_eq!(r.status, 201);
        r.body["id"].as_i64().unwrap()
    }

    async fn counts(&self, milestone: i64) -> (i64, i64) {
        let r = self
            .api
            .call(
                "GET",
                &format!("{}/milestones/{milestone}", self.repo_path),
                Auth::Token(&self.owner.token),
                None,
            )
            .await;
        (
            r.body["open_issues"].as_i64().unwrap(),
            r.body["closed_issues"].as_i64().unwrap(),
        )
    }

    async fn open_count(&self) -> (i64, i64) {
        let r = self
            .api
            .call("GET", &self.repo_path, Auth::Token(&self.owner.token), None)
            .await;
        (
            r.body["open_issues_count"].as_i64().unwrap(),
            r.body["open_pr_counter"].as_i64().unwrap(),
        )
    }
}

#[tokio::test]
async fn create_as_writer_and_as_reader() {
    let r = repo(false).await;
    let ms = r.milestone("v1").await;
    let label = r
        .api
        .call(
            "POST",
            &format!("{}/labels", r.repo_path),
            Auth::Token(&r.owner.token),
            Some(json!({"name": "bug", "color": "#f00"})),
        )
        .await
        .body["id"]
        .as_i64()
        .unwrap();
    let full = json!({
        "title": "  Crash on start  ", "body": "steps, cc @someone", "ref": "main",
        "assignees": [r.writer.name], "milestone": ms, "labels": [label],
        "due_date": "2030-06-01T09:00:00+02:00"
    });
    let i = r.create(&r.writer, full.clone()).await;
    assert_eq!(i["number"], 1);
    assert_eq!(i["title"], "Crash on start");
    assert_eq!(i["user"]["login"], r.writer.name.as_str());
    assert_eq!(i["state"], "open");
    assert_eq!(i["ref"], "main");
    assert_eq!(i["assignees"][0]["login"], r.writer.name.as_str());
    assert_eq!(i["assignee"]["login"], r.writer.name.as_str());
    assert_eq!(i["milestone"]["id"], ms);
    assert_eq!(i["labels"][0]["name"], "bug");
    assert_eq!(
        i["due_date"], "2030-06-01T21:59:59Z",
        "end of the given day in the sender's offset"
    );
    assert_eq!(i["pull_request"], Value::Null);
    assert_eq!(i["assets"], json!([]));
    assert_eq!(
        i["repository"]["full_name"],
        r.repo_path.trim_start_matches("/api/v1/repos/")
    );
    assert!(i["url"].as_str().unwrap().ends_with("/issues/1"));

    // A reader's writer-only fields are dropped, labels emptied.
    let j = r.create(&r.reader, full).await;
    assert_eq!(j["number"], 2);
    assert_eq!(
        (
            j["assignees"].clone(),
            j["milestone"].clone(),
            j["due_date"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    assert_eq!(j["labels"], json!([]));
    assert_eq!(r.counts(ms).await, (1, 0));

    // closed: true closes right after creation.
    let c = r
        .create(
            &r.writer,
            json!({"title": "done already", "closed": true, "milestone": ms}),
        )
        .await;
    assert_eq!(c["state"], "closed");
    assert!(c["closed_at"].is_string());
    assert_eq!(r.counts(ms).await, (1, 1));
    assert_eq!(r.open_count().await, (2, 0));
}

#[tokio::test]
async fn create_refusals() {
    let r = repo(false).await;
    let ms_missing = 987_654_321;
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"title": "x", "assignees": ["no-such-user-q1"]}),
            422,
            "Assignee does not exist",
        ),
        (
            json!({"title": "x", "assignees": [r.outsider.name]}),
            201,
            "",
        ),
        (
            json!({"title": "x", "milestone": ms_missing}),
            422,
            "milestone does not exist",
        ),
        (
            json!({"title": "x", "labels": [424242]}),
            422,
            "label does not exist",
        ),
        (
            json!({"title": "x", "due_date": "someday"}),
            422,
            "due_date",
        ),
        (json!({"title": ""}), 422, "title"),
        (json!({"body": "no title"}), 422, "title"),
        (json!({"title": 5}), 422, "title: invalid type"),
        (
            json!({"title": "x", "labels": "bug"}),
            422,
            "labels: invalid type",
        ),
    ];
    for (body, status, text) in cases {
        let resp = r
            .api
            .call(
                "POST",
                &r.base,
                Auth::Token(&r.writer.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(resp.status, status, "{body}: {:?}", resp.body);
        assert!(resp.message().contains(text), "{body}: {:?}", resp.body);
    }
    // The public repository lets an outsider be assigned (they can read it);
    // only that one create succeeded, and it got number 1.
    assert_eq!(
        r.get(1).await["assignees"][0]["login"],
        r.outsider.name.as_str()
    );
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/2", r.base),
                Auth::Token(&r.owner.token),
                None
            )
            .await
            .status,
        404
    );
    let none = r
        .api
        .call("POST", &r.base, Auth::None, Some(json!({"title": "anon"})))
        .await;
    assert_eq!(none.status, 401);
}

#[tokio::test]
async fn private_repository_assignees_and_access() {
    let r = repo(true).await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": "x", "assignees": [r.outsider.name]})),
        )
        .await;
    assert_eq!(resp.status, 422, "{:?}", resp.body);
    assert!(resp.message().contains("doesn't have access"));
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.outsider.token),
            Some(json!({"title": "x"})),
        )
        .await;
    assert_eq!(
        resp.status, 404,
        "outsiders do not see a private repository"
    );
    let i = r
        .create(&r.reader, json!({"title": "reader may open issues"}))
        .await;
    assert_eq!(i["number"], 1);
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/1", r.base),
                Auth::Token(&r.outsider.token),
                None
            )
            .await
            .status,
        404
    );
    assert_eq!(
        r.api
            .call("GET", &format!("{}/1", r.base), Auth::None, None)
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn blocked_users_and_archived_repositories() {
    let r = repo(false).await;
    let blocked = r.api.new_user("iblk").await;
    r.api
        .call(
            "PUT",
            &format!("/api/v1/user/blocks/{}", blocked.name),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&blocked.token),
            Some(json!({"title": "let me in"})),
        )
        .await;
    assert_eq!((resp.status, resp.message()), (403, "user is blocked"));
    // An assignee who blocked the poster.
    r.api
        .call(
            "PUT",
            &format!("/api/v1/user/blocks/{}", r.writer.name),
            Auth::Token(&r.reader.token),
            None,
        )
        .await;
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": "x", "assignees": [r.reader.name]})),
        )
        .await;
    assert_eq!(resp.status, 403, "{:?}", resp.body);

    let archived = r
        .api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(json!({"archived": true})),
        )
        .await;
    assert_eq!(archived.status, 200);
    let resp = r
        .api
        .call(
            "POST",
            &r.base,
            Auth::Token(&r.owner.token),
            Some(json!({"title": "x"})),
        )
        .await;
    assert_eq!(resp.status, 423, "{:?}", resp.body);
    assert!(resp.message().ends_with("is archived"));
    assert_eq!(r.open_count().await, (0, 0), "nothing was created");
}

#[tokio::test]
async fn read_rules() {
    let r = repo(false).await;
    r.create(&r.owner, json!({"title": "one"})).await;
    for path in ["99", "abc", "-1", "0"] {
        let resp = r
            .api
            .call("GET", &format!("{}/{path}", r.base), Auth::None, None)
            .await;
        assert_eq!(resp.status, 404, "{path}: {:?}", resp.body);
    }
    // Disabling the issues unit hides issues, even from the owner.
    r.api
        .call(
            "PATCH",
            &r.repo_path,
            Auth::Token(&r.owner.token),
            Some(json!({"has_issues": false})),
        )
        .await;
    assert_eq!(
        r.api
            .call(
                "GET",
                &format!("{}/1", r.base),
                Auth::Token(&r.owner.token),
                None
            )
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn edit_permissions_and_fields() {
    let r = repo(false).await;
    let ms = r.milestone("m").await;
    r.create(&r.reader, json!({"title": "mine"})).await;
    // Neither poster nor writer: 403 with an empty body.
    let resp = r.patch(&r.outsider, 1, json!({"title": "hijack"})).await;
    assert_eq!((resp.status, resp.body.clone()), (403, Value::Null));
    // The poster may edit title, body, ref and state, but not writer fields.
    let resp = r.patch(&r.reader, 1, json!({"title": "", "body": "b", "ref": "dev", "milestone": ms, "assignees": [r.writer.name],
                                            "due_date": "2030-01-01T00:00:00Z"})).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(
        (
            resp.body["title"].as_str(),
            resp.body["body"].as_str(),
            resp.body["ref"].as_str()
        ),
        (Some("mine"), Some("b"), Some("dev"))
    );
    assert_eq!(
        (
            resp.body["milestone"].clone(),
            resp.body["assignees"].clone(),
            resp.body["due_date"].clone()
        ),
        (Value::Null, Value::Null, Value::Null)
    );
    // A writer sets them.
    let resp = r.patch(&r.writer, 1, json!({"milestone": ms, "assignees": [r.writer.name, r.reader.name], "due_date": "2030-01-01T10:00:00-03:00"})).await;
    assert_eq!(resp.status, 201, "{:?}", resp.body);
    assert_eq!(resp.body["milestone"]["id"], ms);
    assert_eq!(resp.body["assignees"].as_array().unwrap().len(), 2);
    assert_eq!(resp.body["due_date"], "2030-01-02T02:59:59Z");
    // Assignees replace the set; [] clears it.
    let resp = r
        .patch(&r.writer, 1, json!({"assignees": [r.reader.name]}))
        .await;
    assert_eq!(resp.body["assignees"].as_array().unwrap().len(), 1);
    let resp = r.patch(&r.writer, 1, json!({"assignees": []})).await;
    assert_eq!(resp.body["assignees"], Value::Null);
    // Unknown assignee or milestone: 422, nothing changed.
    assert_eq!(
        r.patch(&r.writer, 1, json!({"assignees": ["nobody-zz8"]}))
            .await
            .status,
        422
    );
    assert_eq!(
        r.patch(
            &r.writer,
            1,
            json!({"milestone": 123456789, "title": "changed?"})
        )
        .await
        .status,
        422
    );
    let back = r.get(1).await;
    assert_eq!(
        (back["title"].as_str(), back["milestone"]["id"].as_i64()),
        (Some("mine"), Some(ms))
    );
    // Deadline rules.
    let resp = r.patch(&r.writer, 1, json!({"due_date": null})).await;
    assert_eq!(
        (resp.status, resp.message()),
        (400, "The due_date cannot be empty")
    );
    assert_eq!(
        r.patch(&r.writer, 1, json!({"unset_due_date": false}))
            .await
            .status,
        400
    );
    let resp = r
        .patch(&r.writer, 1, json!({"due_date": "0001-01-01T00:00:00Z"}))
        .await;
    assert_eq!(resp.body["due_date"], Value::Null, "zero time clears");
    r.patch(&r.writer, 1, json!({"due_date": "2031-02-03T00:00:00Z"}))
        .await;
    let resp = r.patch(&r.writer, 1, json!({"unset_due_date": true})).await;
    assert_eq!(resp.body["due_date"], Value::Null);
    // Milestone 0 removes it.
    let resp = r.patch(&r.writer, 1, json!({"milestone": 0})).await;
    assert_eq!(resp.body["milestone"], Value::Null);
    assert_eq!(r.counts(ms).await, (0, 0));
}

#[tokio::test]
async fn state_table() {
    let r = repo(false).await;
    let ms = r.milestone("s").await;
    r.create(&r.writer, json!({"title": "a", "milestone": ms}))
        .await;
    r.create(&r.writer, json!({"title": "blocker"})).await;

    let resp = r.patch(&r.writer, 1, json!({"state": "done"})).await;
    assert_eq!((resp.status, resp.message()), (412, "unknown state: done"));
    let resp = r.patch(&r.writer, 1, json!({"state": "open"})).await;
    assert_eq!(
        (resp.status, resp.body["state"].as_str()),
        (201, Some("open")),
        "same state: no change"
    );
    // Close, reopen, with the milestone counters following.
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"})).await.body["state"],
        "closed"
    );
    assert_eq!(r.counts(ms).await, (0, 1));
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"}))
            .await
            .status,
        201
    );
    assert_eq!(r.counts(ms).await, (0, 1), "closing twice counts once");
    let reopened = r.patch(&r.writer, 1, json!({"state": "open"})).await;
    assert_eq!(
        (
            reopened.body["state"].as_str(),
            reopened.body["closed_at"].clone()
        ),
        (Some("open"), Value::Null)
    );
    assert_eq!(r.counts(ms).await, (1, 0));
    // Open dependencies block closing.
    let dep = r
        .api
        .call(
            "POST",
            &format!("{}/1/dependencies", r.base),
            Auth::Token(&r.writer.token),
            Some(json!({"owner": r.owner.name, "repo": r.repo_path.rsplit('/').next().unwrap(), "index": 2})),
        )
        .await;
    assert_eq!(dep.status, 201, "{:?}", dep.body);
    let resp = r.patch(&r.writer, 1, json!({"state": "closed"})).await;
    assert_eq!(resp.status, 412, "{:?}", resp.body);
    assert!(resp.message().contains("open dependencies"));
    assert_eq!(r.get(1).await["state"], "open");
    r.patch(&r.writer, 2, json!({"state": "closed"})).await;
    assert_eq!(
        r.patch(&r.writer, 1, json!({"state": "closed"}))
            .await
            .status,
        201,
        "closed blockers no longer block"
    );
    // The poster (a reader) may close and reopen their own issue.
    let own = r.create(&r.reader, json!({"title": "mine"})).await;
    let n = own["number"].as_i64().unwrap();
    assert_eq!(
        r.patch(&r.reader, n, json!({"state": "closed"})).await.body["state"],
        "closed"
    );
}

#[tokio::test]
async fn body_edits_race_against_the_loaded_version() {
    let r = repo(false).await;
    r.create(&r.writer, json!({"title": "race", "body": "v0"}))
        .await;
    let edits = (0..8).map(|i| {
        let who = if i % 2 == 0 { &r.writer } else { &r.owner };
        r.patch(who, 1, json!({"body": format!("body {i}")}))
    });
    let replies = join_all(edits).await;
    let statuses: Vec<u16> = replies.iter().map(|x| x.status).collect();
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 400),
        "{statuses:?}"
    );
    let winners: Vec<String> = replies
        .iter()
        .filter(|x| x.status == 201)
        .map(|x| x.body["body"].as_str().unwrap().to_string())
        .collect();
    assert!(!winners.is_empty());
    let stored = r.get(1).await["body"].as_str().unwrap().to_string();
    assert!(
        winners.contains(&stored),
        "stored {stored:?} must be a body some writer was told was saved: {winners:?}"
    );
}

#[tokio::test]
async fn delete_rules() {
    let r = repo(false).await;
    let ms = r.milestone("d").await;
    r.create(&r.writer, json!({"title": "a", "milestone": ms}))
        .await;
    r.create(&r.writer, json!({"title": "b"})).await;
    let repo_name = r.repo_path.rsplit('/').next().unwrap().to_string();
    let dep = json!({"owner": r.owner.name, "repo": repo_name, "index": 1});
    assert_eq!(
        r.api
            .call(
                "POST",
                &format!("{}/2/dependencies", r.base),
                Auth::Token(&r.writer.token),
                Some(dep)
            )
            .await
            .status,
        201
    );

    let one = format!("{}/1", r.base);
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.writer.token), None)
            .await
            .status,
        403,
        "writers are not admins"
    );
    assert_eq!(
        r.api.call("DELETE", &one, Auth::None, None).await.status,
        401
    );
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        204
    );
    assert_eq!(
        r.api
            .call("GET", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        404
    );
    assert_eq!(
        r.api
            .call("DELETE", &one, Auth::Token(&r.owner.token), None)
            .await
            .status,
        404
    );
    assert_eq!(r.counts(ms).await, (0, 0));
    assert_eq!(r.open_count().await, (1, 0));
    // Its dependency is gone, so issue 2 closes.
    let deps = r
        .api
        .call(
            "GET",
            &format!("{}/2/dependencies", r.base),
            Auth::Token(&r.owner.token),
            None,
        )
        .await;
    assert_eq!(
        (deps.status, deps.header("x-total-count")),
        (200, Some("0"))
    );
    assert_eq!(
        r.patch(&r.writer, 2, json!({"state": "closed"}))
            .await
            .status,
        201
    );
    // Numbers are never reused.
    assert_eq!(
        r.create(&r.writer, json!({"title": "c"})).await["number"],
        3
    );
    // Site admins may delete too.
    let admin = r.api.admin_token.clone();
    assert_eq!(
        r.api
            .call(
                "DELETE",
                &format!("{}/3", r.base),
                Auth::Token(&admin),
                None
            )
            .await
            .status,
        204
    );
}

#[tokio::test]
async fn deadline_endpoint() {
    let r = repo(false).await;
    r.create(&r.reader, json!({"title": "t"})).await;
    let path = format!("{}/1/deadline", r.base);
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.reader.token),
            Some(json!({"due_date": "2030-01-01T00:00:00Z"})),
        )
        .await;
    assert_eq!(resp.status, 403, "writers only, even for the poster");
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": "2030-03-04T05:06:07+09:00"})),
        )
        .await;
    assert_eq!(
        (resp.status, resp.body.clone()),
        (201, json!({"due_date": "2030-03-04T14:59:59Z"}))
    );
    assert_eq!(r.get(1).await["due_date"], "2030-03-04T14:59:59Z");
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": null})),
        )
        .await;
    assert_eq!(
        (resp.status, resp.body.clone()),
        (201, json!({"due_date": null}))
    );
    assert_eq!(r.get(1).await["due_date"], Value::Null);
    let resp = r
        .api
        .call(
            "POST",
            &format!("{}/77/deadline", r.base),
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": null})),
        )
        .await;
    assert_eq!(resp.status, 404);
    let resp = r
        .api
        .call(
            "POST",
            &path,
            Auth::Token(&r.writer.token),
            Some(json!({"due_date": "never"})),
        )
        .await;
    assert_eq!(resp.status, 422);
}

#[tokio::test]
async fn a_hundred_concurrent_creates_number_one_to_a_hundred() {
    let r = repo(false).await;
    let creates = (0..100).map(|i| {
        r.api.call(
            "POST",
            &r.base,
            Auth::Token(&r.writer.token),
            Some(json!({"title": format!("n{i}")})),
        )
    });
    let replies = join_all(creates).await;
    let mut numbers: Vec<i64> = replies
        .iter()
        .map(|x| {
            assert_eq!(x.status, 201, "{:?}", x.body);
            x.body["number"].as_i64().unwrap()
        })
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=100).collect::<Vec<_>>());
    assert_eq!(r.open_count().await, (100, 0));
}

#[tokio::test]
async fn counters_stay_exact_under_fifty_concurrent_state_changes() {
    let r = repo(false).await;
    let ms = r.milestone("busy").await;
    for i in 0..5 {
        r.create(
            &r.writer,
            json!({"title": format!("i{i}"), "milestone": ms}),
        )
        .await;
    }
    let changes = (0..50).map(|k| {
        let state = if k % 3 == 0 { "open" } else { "closed" };
        r.patch(&r.writer, (k % 5) + 1, json!({"state": state}))
    });
    let replies = join_all(changes).await;
    assert!(
        replies.iter().all(|x| x.status == 201),
        "{:?}",
        replies.iter().map(|x| x.status).collect::<Vec<_>>()
    );
    let mut closed = 0;
    for n in 1..=5 {
        if r.get(n).await["state"] == "closed" {
            closed += 1;
        }
    }
    assert_eq!(r.counts(ms).await, (5 - closed, closed));
    assert_eq!(r.open_count().await.0, 5 - closed);
}

#[tokio::test]
async fn bad_input_writes_nothing() {
    let r = repo(false).await;
    r.create(&r.writer, json!({"title": "keep"})).await;
    let one = format!("{}/1", r.base);
    let auth = Auth::Token(&r.writer.token);
    let cases: Vec<(Vec<u8>, u16)> = vec![
        (b"{\"title\": ".to_vec(), 422),
        (b"[1,2]".to_vec(), 422),
        (b"{\"title\": [1]}".to_vec(), 422),
        (b"{\"milestone\": \"x\"}".to_vec(), 422),
        (
            format!("{{\"body\": \"{}\"}}", "x".repeat(1_100_000)).into_bytes(),
            413,
        ),
    ];
    for (body, status) in cases {
        let resp = r
            .api
            .raw("PATCH", &one, auth, Some("application/json"), body)
            .await;
        assert_eq!(resp.status, status, "{:?}", resp.body);
    }
    assert_eq!(
        r.api
            .call(
                "PATCH",
                &format!("{}/xyz", r.base),
                auth,
                Some(json!({"title": "x"}))
            )
            .await
            .status,
        404
    );
    let labels = r
        .api
        .call(
            "POST",
            &format!("{one}/labels"),
            auth,
            Some(json!({"labels": [99999999]})),
        )
        .await;
    assert_eq!(labels.status, 422);
    let back = r.get(1).await;
    assert_eq!(
        (
            back["title"].as_str(),
            back["body"].as_str(),
            back["labels"].clone()
        ),
        (Some("keep"), Some(""), json!([]))
    );
    let _ = unique("x");
}
