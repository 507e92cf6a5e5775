//! Read your writes: once a write answered, the next listing shows it,
//! under every filter and on every page, as Gitea's do (they read its
//! database). Every test here holds the stream consumer back while it
//! writes and reads (`api_tests::hold_stream`), as on AWS when the consumer
//! falls behind: nothing the stream derives moves, so what a listing shows
//! of the writes comes from the table alone. Reads follow writes at once,
//! with no wait and no retry.
//!
//! Its own test executable: holding the consumer would stall the other
//! black-box tests' waits for background work (`make test` lets go after
//! each executable).

use api_tests::{Api, Auth, Reply, TestUser, hold_stream, ids, numbers, unique};
use serde_json::{Value, json};

/// Long enough for any test here; each test holds again when it starts.
const HOLD_MS: u64 = 60_000;

struct Repo {
    api: Api,
    owner: TestUser,
    dev: TestUser,
    /// `/api/v1/repos/{owner}/{repo}`
    path: String,
}

impl Repo {
    async fn new() -> Repo {
        let api = Api::from_env();
        let owner = api.new_user("rown").await;
        let dev = api.new_user("rdev").await;
        let name = api.new_repo(&owner, "/api/v1/user/repos", false).await;
        api.add_collaborator(&owner, &owner.name, &name, &dev.name, "write")
            .await;
        let path = format!("/api/v1/repos/{}/{name}", owner.name);
        Repo {
            api,
            owner,
            dev,
            path,
        }
    }

    async fn call(&self, who: &TestUser, method: &str, path: &str, body: Option<Value>) -> Reply {
        self.api
            .call(method, path, Auth::Token(&who.token), body)
            .await
    }

    /// Creates under `{path}/{what}` as the owner; the answer's `field`.
    async fn make(&self, what: &str, body: Value, field: &str) -> Value {
        let r = self
            .call(
                &self.owner,
                "POST",
                &format!("{}/{what}", self.path),
                Some(body),
            )
            .await;
        assert_eq!(r.status, 201, "POST {what}: {:?}", r.body);
        r.body[field].clone()
    }

    async fn issue(&self, who: &TestUser, body: Value) -> i64 {
        let r = self
            .call(who, "POST", &format!("{}/issues", self.path), Some(body))
            .await;
        assert_eq!(r.status, 201, "create: {:?}", r.body);
        r.body["number"].as_i64().expect("number")
    }

    async fn pull(&self, who: &TestUser, head: &str, extra: Value) -> i64 {
        let mut body = json!({"title": format!("pull {head}"), "head": head, "base": "main"});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let r = self
            .call(who, "POST", &format!("{}/pulls", self.path), Some(body))
            .await;
        assert_eq!(r.status, 201, "open: {:?}", r.body);
        r.body["number"].as_i64().expect("number")
    }

    /// `GET {path}/{list}?{query}` as the owner, at once: numbers and total.
    async fn listed(&self, list: &str, query: &str) -> (Vec<i64>, Option<u64>) {
        let r = self
            .call(
                &self.owner,
                "GET",
                &format!("{}/{list}?{query}", self.path),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{list}?{query}: {:?}", r.body);
        (numbers(&r.body), r.total())
    }
}

#[tokio::test]
async fn a_repositorys_issue_and_pull_lists_show_each_write_at_once_under_every_filter() {
    let r = Repo::new().await;
    let bug = r
        .make("labels", json!({"name": "bug", "color": "#aa0000"}), "id")
        .await;
    let ui = r
        .make("labels", json!({"name": "ui", "color": "#00aa00"}), "id")
        .await;
    let m1 = r.make("milestones", json!({"title": "m1"}), "id").await;
    hold_stream(HOLD_MS).await;
    let t0 = chrono_now_minus(2);

    let a = r
        .issue(
            &r.owner,
            json!({"title": "crash on start", "body": format!("@{} look", r.dev.name),
                   "labels": [bug], "milestone": m1, "assignees": [r.dev.name]}),
        )
        .await;
    let b = r.issue(&r.dev, json!({"title": "plain"})).await;
    let p = r.pull(&r.dev, "feat", json!({"labels": [ui]})).await;
    let dev = r.dev.name.clone();

    for (query, want) in [
        ("state=all".to_string(), vec![p, b, a]),
        ("labels=bug".into(), vec![a]),
        ("labels=ui".into(), vec![p]),
        ("labels=bug,ui".into(), vec![p, a]),
        ("milestones=m1".into(), vec![a]),
        (format!("created_by={dev}"), vec![p, b]),
        (format!("assigned_by={dev}"), vec![a]),
        (format!("mentioned_by={dev}"), vec![a]),
        ("type=issues".into(), vec![b, a]),
        ("type=pulls".into(), vec![p]),
        (format!("q={a}"), vec![a]),
        (format!("since={t0}"), vec![p, b, a]),
    ] {
        let (got, total) = r.listed("issues", &query).await;
        assert_eq!(got, want, "issues?{query}");
        assert_eq!(
            total,
            Some(want.len() as u64),
            "X-Total-Count of issues?{query}"
        );
    }
    // Every page, one issue a page.
    let mut paged = Vec::new();
    for page in 1..=3 {
        let (got, total) = r.listed("issues", &format!("limit=1&page={page}")).await;
        assert_eq!(total, Some(3), "page {page}");
        paged.extend(got);
    }
    assert_eq!(paged, [p, b, a]);

    // Edits: a state change, a label added, a title.
    let closed = r
        .call(
            &r.owner,
            "PATCH",
            &format!("{}/issues/{a}", r.path),
            Some(json!({"state": "closed"})),
        )
        .await;
    assert_eq!(closed.status, 201, "{:?}", closed.body);
    assert_eq!(
        r.listed("issues", "state=open").await,
        (vec![p, b], Some(2))
    );
    assert_eq!(r.listed("issues", "state=closed").await, (vec![a], Some(1)));
    assert_eq!(
        r.listed("issues", "labels=bug&state=closed").await,
        (vec![a], Some(1))
    );
    assert_eq!(r.listed("issues", "labels=bug").await, (vec![], Some(0)));
    let labelled = r
        .call(
            &r.owner,
            "POST",
            &format!("{}/issues/{b}/labels", r.path),
            Some(json!({"labels": [ui]})),
        )
        .await;
    assert_eq!(labelled.status, 200, "{:?}", labelled.body);
    assert_eq!(r.listed("issues", "labels=ui").await, (vec![p, b], Some(2)));
    let renamed = r
        .call(
            &r.dev,
            "PATCH",
            &format!("{}/issues/{b}", r.path),
            Some(json!({"title": "renamed"})),
        )
        .await;
    assert_eq!(renamed.status, 201);
    let page = r
        .call(
            &r.owner,
            "GET",
            &format!("{}/issues?labels=ui", r.path),
            None,
        )
        .await;
    assert_eq!(
        page.body[1]["title"], "renamed",
        "the page shows the issue as it is"
    );

    // The pull-request list, by every filter.
    let p2 = r.pull(&r.owner, "next", json!({"milestone": m1})).await;
    for (query, want) in [
        ("state=open".to_string(), vec![p2, p]),
        (format!("labels={ui}"), vec![p]),
        (format!("milestone={m1}"), vec![p2]),
        (format!("poster={dev}"), vec![p]),
        ("base_branch=main".into(), vec![p2, p]),
        ("sort=oldest".into(), vec![p, p2]),
        ("sort=recentupdate".into(), vec![p2, p]),
        ("sort=leastupdate".into(), vec![p, p2]),
    ] {
        let (got, total) = r.listed("pulls", &query).await;
        assert_eq!(got, want, "pulls?{query}");
        assert_eq!(
            total,
            Some(want.len() as u64),
            "X-Total-Count of pulls?{query}"
        );
    }
    // Times are seconds: the comment lands a second after `p2` was made,
    // so the update order cannot tie.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let comment = r
        .call(
            &r.owner,
            "POST",
            &format!("{}/issues/{p}/comments", r.path),
            Some(json!({"body": "first"})),
        )
        .await;
    assert_eq!(comment.status, 201);
    assert_eq!(r.listed("pulls", "sort=mostcomment").await.0, [p, p2]);
    assert_eq!(r.listed("pulls", "sort=recentupdate").await.0, [p, p2]);

    // A delete leaves every listing at once.
    let gone = r
        .call(&r.owner, "DELETE", &format!("{}/issues/{b}", r.path), None)
        .await;
    assert_eq!(gone.status, 204, "{:?}", gone.body);
    assert_eq!(
        r.listed("issues", "state=all").await,
        (vec![p2, p, a], Some(3))
    );
    assert_eq!(r.listed("issues", "labels=ui").await, (vec![p], Some(1)));
}

#[tokio::test]
async fn comments_show_on_every_page_at_once() {
    let r = Repo::new().await;
    hold_stream(HOLD_MS).await;
    let n = r.issue(&r.owner, json!({"title": "talk"})).await;
    let path = format!("{}/issues/{n}/comments", r.path);
    let mut made = Vec::new();
    for i in 0..30 {
        let c = r
            .call(
                &r.dev,
                "POST",
                &path,
                Some(json!({"body": format!("comment {i}")})),
            )
            .await;
        assert_eq!(c.status, 201, "{:?}", c.body);
        made.push(c.body["id"].as_i64().unwrap());
    }
    for list in [path.clone(), format!("{}/issues/comments", r.path)] {
        let mut seen = Vec::new();
        for page in 1..=3 {
            let got = r
                .call(
                    &r.owner,
                    "GET",
                    &format!("{list}?limit=10&page={page}"),
                    None,
                )
                .await;
            assert_eq!(got.status, 200, "{list} page {page}: {:?}", got.body);
            assert_eq!(got.total(), Some(30), "{list} page {page}");
            seen.extend(ids(&got.body));
        }
        assert_eq!(seen, made, "{list}: every comment, oldest first");
    }

    // An edit shows in the window it falls in; a delete leaves every page.
    let edited = r
        .call(
            &r.dev,
            "PATCH",
            &format!("{}/issues/comments/{}", r.path, made[4]),
            Some(json!({"body": "edited"})),
        )
        .await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    let updated = edited.body["updated_at"].as_str().unwrap().to_string();
    let window = r
        .call(&r.owner, "GET", &format!("{path}?since={updated}"), None)
        .await;
    assert!(
        window
            .body
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == made[4] && c["body"] == "edited"),
        "the edited comment in its window: {:?}",
        window.body
    );
    let deleted = r
        .call(
            &r.dev,
            "DELETE",
            &format!("{}/issues/comments/{}", r.path, made[6]),
            None,
        )
        .await;
    assert_eq!(deleted.status, 204);
    let mut seen = Vec::new();
    for page in 1..=3 {
        let got = r
            .call(
                &r.owner,
                "GET",
                &format!("{path}?limit=10&page={page}"),
                None,
            )
            .await;
        assert_eq!(got.total(), Some(29));
        seen.extend(ids(&got.body));
    }
    let mut want = made.clone();
    want.remove(6);
    assert_eq!(seen, want);
}

#[tokio::test]
async fn the_writers_search_without_q_shows_their_writes_at_once() {
    let r = Repo::new().await;
    let label = unique("lbl");
    let title = unique("ms");
    let l = r
        .make("labels", json!({"name": label, "color": "#0000aa"}), "id")
        .await;
    let m = r.make("milestones", json!({"title": title}), "id").await;
    hold_stream(HOLD_MS).await;
    let me = &r.dev;
    let n = r
        .issue(
            me,
            json!({"title": "mine", "body": format!("cc @{}", me.name), "labels": [l],
                   "milestone": m, "assignees": [me.name]}),
        )
        .await;
    let owner = r.owner.name.clone();
    for query in [
        format!("labels={label}"),
        format!("milestones={title}"),
        format!("owner={owner}&state=open"),
        "created=true".into(),
        "assigned=true".into(),
        "mentioned=true".into(),
        format!("created=true&type=issues&labels={label}"),
        format!("owner={owner}&q={n}"),
    ] {
        assert_eq!(
            search(&r, me, &query).await,
            (vec![n], Some(1)),
            "search?{query}"
        );
    }

    let closed = r
        .call(
            me,
            "PATCH",
            &format!("{}/issues/{n}", r.path),
            Some(json!({"state": "closed"})),
        )
        .await;
    assert_eq!(closed.status, 201);
    assert_eq!(search(&r, me, "created=true").await, (vec![], Some(0)));
    assert_eq!(
        search(&r, me, "created=true&state=closed").await,
        (vec![n], Some(1))
    );
    assert_eq!(
        search(&r, me, &format!("labels={label}&state=closed")).await,
        (vec![n], Some(1))
    );

    let gone = r
        .call(&r.owner, "DELETE", &format!("{}/issues/{n}", r.path), None)
        .await;
    assert_eq!(gone.status, 204);
    let owners = r
        .call(
            &r.owner,
            "GET",
            &format!("/api/v1/repos/issues/search?owner={owner}&state=all"),
            None,
        )
        .await;
    assert_eq!(
        (numbers(&owners.body), owners.total()),
        (vec![], Some(0)),
        "the deleter's search"
    );
}

/// `GET /repos/issues/search?{query}` as `who`: numbers and total.
async fn search(r: &Repo, who: &TestUser, query: &str) -> (Vec<i64>, Option<u64>) {
    let got = r
        .call(
            who,
            "GET",
            &format!("/api/v1/repos/issues/search?{query}"),
            None,
        )
        .await;
    assert_eq!(got.status, 200, "search?{query}: {:?}", got.body);
    (numbers(&got.body), got.total())
}

/// An RFC 3339 instant `secs` seconds ago (a `since` every write here is
/// after).
fn chrono_now_minus(secs: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::seconds(secs))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
