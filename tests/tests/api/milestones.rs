//! The milestone operations of the tracker seed, rule by rule, with the
//! stored state read back after every write.

use api_tests::{Api, Auth, TestUser};
use serde_json::{Value, json};

struct Fixture {
    api: Api,
    owner: TestUser,
    base: String,
}

async fn fixture() -> Fixture {
    let api = Api::from_env();
    let owner = api.new_user("ms").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let base = format!("/api/v1/repos/{}/{repo}/milestones", owner.name);
    Fixture { api, owner, base }
}

impl Fixture {
    async fn create(&self, body: Value) -> Value {
        let r = self
            .api
            .call(
                "POST",
                &self.base,
                Auth::Token(&self.owner.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, 201, "{body}: {:?}", r.body);
        r.body
    }

    async fn get(&self, id: &str) -> (u16, Value) {
        let r = self
            .api
            .call("GET", &format!("{}/{id}", self.base), Auth::None, None)
            .await;
        (r.status, r.body)
    }

    async fn patch(&self, id: &str, body: Value) -> (u16, Value) {
        let r = self
            .api
            .call(
                "PATCH",
                &format!("{}/{id}", self.base),
                Auth::Token(&self.owner.token),
                Some(body),
            )
            .await;
        (r.status, r.body)
    }

    async fn list(&self, query: &str) -> (Vec<String>, String) {
        let r = self
            .api
            .call("GET", &format!("{}{query}", self.base), Auth::None, None)
            .await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        assert!(
            r.header("link").is_none(),
            "milestone lists carry no Link header"
        );
        let titles = r
            .body
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["title"].as_str().unwrap().to_string())
            .collect();
        (
            titles,
            r.header("x-total-count").unwrap_or_default().to_string(),
        )
    }
}

#[tokio::test]
async fn create_open_and_closed() {
    let f = fixture().await;
    let m = f.create(json!({"title": "  v1  ", "description": "first", "due_on": "2030-05-06T08:00:00+02:00"})).await;
    assert_eq!(m["title"], "v1", "titles are trimmed");
    assert_eq!(
        (
            m["state"].as_str(),
            m["open_issues"].as_i64(),
            m["closed_issues"].as_i64()
        ),
        (Some("open"), Some(0), Some(0))
    );
    assert_eq!(m["closed_at"], Value::Null);
    // End of the given day in the sender's offset, rendered in UTC.
    assert_eq!(m["due_on"], "2030-05-06T21:59:59Z");
    assert!(m["created_at"].as_str().unwrap().ends_with('Z'));

    let c = f.create(json!({"title": "old", "state": "closed"})).await;
    assert_eq!(c["state"], "closed");
    assert!(
        c["closed_at"].is_string(),
        "closing sets the closed date: {c}"
    );
    let odd = f.create(json!({"title": "odd", "state": "bogus"})).await;
    assert_eq!(odd["state"], "open", "any other state creates it open");

    let (status, back) = f.get(&m["id"].to_string()).await;
    assert_eq!((status, back["description"].as_str()), (200, Some("first")));
}

#[tokio::test]
async fn bad_input_is_refused_and_writes_nothing() {
    let f = fixture().await;
    let cases = [
        json!({"title": ""}),
        json!({"description": "no title"}),
        json!({"title": "t", "due_on": "next friday"}),
        json!({"title": "t", "due_on": "2030-02-30"}),
        json!({"title": 7}),
        json!({"title": "t", "state": 1}),
    ];
    for body in cases {
        let r = f
            .api
            .call(
                "POST",
                &f.base,
                Auth::Token(&f.owner.token),
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, 422, "{body}: {:?}", r.body);
    }
    let r = f
        .api
        .raw(
            "POST",
            &f.base,
            Auth::Token(&f.owner.token),
            Some("application/json"),
            b"{oops".to_vec(),
        )
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(f.list("?state=all").await.1, "0", "nothing was created");
    assert_eq!(f.get("0").await.0, 404);
    assert_eq!(f.get("99999999").await.0, 404);
    assert_eq!(f.get("nope").await.0, 404);
}

#[tokio::test]
async fn lookup_by_id_then_exact_name() {
    let f = fixture().await;
    let a = f.create(json!({"title": "Alpha"})).await;
    // A milestone titled like another's id: the id wins.
    let id = a["id"].to_string();
    let tricky = f.create(json!({"title": id.clone()})).await;
    assert_eq!(f.get(&id).await.1["title"], "Alpha");
    assert_eq!(f.get("Alpha").await.1["id"], a["id"]);
    assert_eq!(f.get("alpha").await.0, 404, "names match exactly");
    // PATCH and DELETE resolve the same way.
    let (status, body) = f.patch("Alpha", json!({"description": "by name"})).await;
    assert_eq!((status, body["id"].clone()), (200, a["id"].clone()));
    let r = f
        .api
        .call(
            "DELETE",
            &format!("{}/{}", f.base, tricky["id"]),
            Auth::Token(&f.owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    assert_eq!(f.get(&tricky["id"].to_string()).await.0, 404);
    assert_eq!(r.body, Value::Null, "204 has no body");
}

#[tokio::test]
async fn edit_rules() {
    let f = fixture().await;
    let m = f
        .create(json!({"title": "t1", "description": "d1", "due_on": "2031-01-01T00:00:00Z"}))
        .await;
    let id = m["id"].to_string();

    // Empty title: no change; description applied when present.
    let (s, b) = f.patch(&id, json!({"title": "", "description": ""})).await;
    assert_eq!(
        (s, b["title"].as_str(), b["description"].as_str()),
        (200, Some("t1"), Some(""))
    );
    // Absent due_on keeps the deadline.
    let (_, b) = f.patch(&id, json!({"title": "t2"})).await;
    assert_eq!(
        (b["title"].as_str(), b["due_on"].as_str()),
        (Some("t2"), Some("2031-01-01T23:59:59Z"))
    );
    // A new deadline is normalised to the end of its day in its offset.
    let (_, b) = f
        .patch(&id, json!({"due_on": "2031-07-04T01:00:00-05:00"}))
        .await;
    assert_eq!(b["due_on"], "2031-07-05T04:59:59Z");
    // null clears it.
    let (_, b) = f.patch(&id, json!({"due_on": null})).await;
    assert_eq!(b["due_on"], Value::Null);
    // closed closes (and sets the closed date), any other value opens.
    let (_, b) = f.patch(&id, json!({"state": "closed"})).await;
    assert_eq!(b["state"], "closed");
    assert!(b["closed_at"].is_string());
    let (_, b) = f.patch(&id, json!({"state": "whatever"})).await;
    assert_eq!(
        (b["state"].as_str(), b["closed_at"].clone()),
        (Some("open"), Value::Null)
    );
    // Without state nothing changes.
    let (_, b) = f.patch(&id, json!({"description": "x"})).await;
    assert_eq!(b["state"], "open");
    // Bad deadline: 422 and no change.
    let (s, _) = f.patch(&id, json!({"due_on": "soon"})).await;
    assert_eq!(s, 422);
    let (_, back) = f.get(&id).await;
    assert_eq!(
        (
            back["title"].as_str(),
            back["description"].as_str(),
            back["due_on"].clone()
        ),
        (Some("t2"), Some("x"), Value::Null)
    );
    assert_eq!(f.patch("987654321", json!({"title": "x"})).await.0, 404);
}

#[tokio::test]
async fn list_filters_order_and_paging() {
    let f = fixture().await;
    f.create(json!({"title": "beta", "due_on": "2030-01-02T00:00:00Z"}))
        .await;
    f.create(json!({"title": "alpha", "due_on": "2030-01-02T00:00:00Z"}))
        .await;
    f.create(json!({"title": "gamma"})).await;
    f.create(json!({"title": "Delta release", "due_on": "2029-01-01T00:00:00Z"}))
        .await;
    f.create(json!({"title": "omega", "state": "closed"})).await;

    // Open by default; no deadline first, then by deadline, then by name.
    let (titles, total) = f.list("").await;
    assert_eq!(titles, ["gamma", "Delta release", "alpha", "beta"]);
    assert_eq!(total, "4");
    assert_eq!(f.list("?state=open").await.0.len(), 4);
    assert_eq!(
        f.list("?state=nonsense").await.0.len(),
        4,
        "unknown state means open"
    );
    assert_eq!(f.list("?state=closed").await.0, ["omega"]);
    assert_eq!(f.list("?state=all").await.1, "5");
    assert_eq!(
        f.list("?state=all&name=ELT").await.0,
        ["Delta release"],
        "case-insensitive substring"
    );
    let (page, total) = f.list("?limit=2&page=2").await;
    assert_eq!(
        (page, total),
        (
            vec!["alpha".to_string(), "beta".to_string()],
            "4".to_string()
        )
    );
    assert_eq!(f.list("?limit=2&page=9").await, (vec![], "4".to_string()));
}

#[tokio::test]
async fn deleting_a_milestone_removes_it_from_its_issues() {
    let f = fixture().await;
    let m = f.create(json!({"title": "doomed"})).await;
    let issues = f.base.replace("/milestones", "/issues");
    for t in ["a", "b"] {
        let r = f
            .api
            .call(
                "POST",
                &issues,
                Auth::Token(&f.owner.token),
                Some(json!({"title": t, "milestone": m["id"]})),
            )
            .await;
        assert_eq!(r.status, 201);
    }
    let r = f
        .api
        .call(
            "DELETE",
            &format!("{}/{}", f.base, m["id"]),
            Auth::Token(&f.owner.token),
            None,
        )
        .await;
    assert_eq!(r.status, 204);
    for n in [1, 2] {
        let i = f
            .api
            .call("GET", &format!("{issues}/{n}"), Auth::None, None)
            .await;
        assert_eq!(i.body["milestone"], Value::Null, "issue {n}");
    }
    // A new milestone starts from zero, and the issues can join it.
    let fresh = f.create(json!({"title": "fresh"})).await;
    let r = f
        .api
        .call(
            "PATCH",
            &format!("{issues}/1"),
            Auth::Token(&f.owner.token),
            Some(json!({"milestone": fresh["id"]})),
        )
        .await;
    assert_eq!(r.body["milestone"]["open_issues"], 1);
}
