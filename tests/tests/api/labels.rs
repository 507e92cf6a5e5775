//! Repository and organisation labels, and the labels of one issue, over
//! HTTP.

use api_tests::{Api, Auth};
use serde_json::json;

#[tokio::test]
async fn repository_label_lifecycle() {
    let api = Api::from_env();
    let owner = api.new_user("lbl").await;
    let repo = api.new_repo(&owner, "/api/v1/user/repos", false).await;
    let base = format!("/api/v1/repos/{}/{repo}/labels", owner.name);
    let auth = Auth::Token(&owner.token);

    for (color, want) in [
        ("#abc", "aabbcc"),
        ("00FF00", "00ff00"),
        ("#123456", "123456"),
    ] {
        let r = api
            .call(
                "POST",
                &base,
                auth,
                Some(json!({"name": format!("c{want}"), "color": color})),
            )
            .await;
        assert_eq!(
            (r.status, r.body["color"].as_str()),
            (201, Some(want)),
            "{color}: {:?}",
            r.body
        );
    }
    for bad in [
        json!({"name": "x", "color": "red"}),
        json!({"name": "x", "color": "#12345"}),
        json!({"name": "", "color": "#fff"}),
        json!({"name": "x"}),
    ] {
        let r = api.call("POST", &base, auth, Some(bad.clone())).await;
        assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
    }
    let r = api
        .call("GET", &format!("{base}?limit=2"), Auth::None, None)
        .await;
    assert_eq!(
        (
            r.status,
            r.body.as_array().unwrap().len(),
            r.header("x-total-count")
        ),
        (200, 2, Some("3"))
    );
    let first = r.body[0].clone();
    let one = format!("{base}/{}", first["id"]);
    let r = api
        .call(
            "PATCH",
            &one,
            auth,
            Some(json!({"name": "renamed", "color": "fff", "exclusive": true})),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        (
            r.body["name"].as_str(),
            r.body["color"].as_str(),
            r.body["exclusive"].as_bool()
        ),
        (Some("renamed"), Some("ffffff"), Some(true))
    );
    assert_eq!(
        api.call("PATCH", &one, auth, Some(json!({"color": "nope"})))
            .await
            .status,
        422
    );
    assert_eq!(
        api.call("GET", &one, Auth::None, None).await.body["color"],
        "ffffff",
        "the bad edit changed nothing"
    );
    assert_eq!(api.call("DELETE", &one, auth, None).await.status, 204);
    assert_eq!(api.call("GET", &one, Auth::None, None).await.status, 404);
    assert_eq!(
        api.call("GET", &format!("{base}/abc"), Auth::None, None)
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn organisation_labels() {
    let api = Api::from_env();
    let owner = api.new_user("olbl").await;
    let other = api.new_user("olbx").await;
    let org = api.new_org(&owner, "lorg", "public").await;
    let base = format!("/api/v1/orgs/{org}/labels");
    let body = json!({"name": "triage", "color": "#0e8a16"});
    assert_eq!(
        api.call("POST", &base, Auth::Token(&other.token), Some(body.clone()))
            .await
            .status,
        403
    );
    let r = api
        .call("POST", &base, Auth::Token(&owner.token), Some(body))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert!(
        r.body["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/orgs/{org}/labels/{}", r.body["id"]))
    );
    let r = api.call("GET", &base, Auth::None, None).await;
    assert_eq!((r.status, r.header("x-total-count")), (200, Some("1")));
}

/// An organisation's repository with two repository labels, an
/// organisation label, a writer, issue 1 and pull request 2.
struct Labelled {
    api: Api,
    owner: api_tests::TestUser,
    writer: api_tests::TestUser,
    path: String,
    org: String,
    bug: i64,
    ui: i64,
    triage: i64,
}

async fn labelled(private: bool) -> Labelled {
    let api = Api::from_env();
    let owner = api.new_user("ilown").await;
    let writer = api.new_user("ilwri").await;
    let org = api.new_org(&owner, "ilorg", "public").await;
    let repo = api
        .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), private)
        .await;
    api.add_collaborator(&owner, &org, &repo, &writer.name, "write")
        .await;
    let path = format!("/api/v1/repos/{org}/{repo}");
    let t = Auth::Token(&owner.token);
    let mk = async |base: &str, name: &str| {
        let body = json!({"name": name, "color": "#00aabb"});
        let r = api.call("POST", base, t, Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        r.body["id"].as_i64().unwrap()
    };
    let (repo_labels, org_labels) = (
        format!("{path}/labels"),
        format!("/api/v1/orgs/{org}/labels"),
    );
    let (ui, bug) = (mk(&repo_labels, "ui").await, mk(&repo_labels, "bug").await);
    let triage = mk(&org_labels, "triage").await;
    let issue = json!({"title": "an issue"});
    let pull = json!({"title": "a pull", "head": "feat", "base": "main"});
    for (kind, body) in [("issues", issue), ("pulls", pull)] {
        let r = api
            .call("POST", &format!("{path}/{kind}"), t, Some(body))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    Labelled {
        api,
        owner,
        writer,
        path,
        org,
        bug,
        ui,
        triage,
    }
}

impl Labelled {
    async fn labels_of(&self, n: i64) -> Vec<String> {
        let r = self
            .api
            .call(
                "GET",
                &format!("{}/issues/{n}/labels", self.path),
                Auth::Token(&self.owner.token),
                None,
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap().to_string())
            .collect()
    }

    async fn remove(&self, who: Auth<'_>, n: i64, label: &str) -> api_tests::Reply {
        let path = format!("{}/issues/{n}/labels/{label}", self.path);
        self.api.call("DELETE", &path, who, None).await
    }
}

#[tokio::test]
async fn issue_labels_are_listed_and_removed_one_at_a_time() {
    let w = labelled(false).await;
    let writer = Auth::Token(&w.writer.token);
    assert_eq!(w.labels_of(1).await, Vec::<String>::new());
    let add = w
        .api
        .call(
            "POST",
            &format!("{}/issues/1/labels", w.path),
            writer,
            Some(json!({"labels": [w.ui, "triage", w.bug]})),
        )
        .await;
    assert_eq!(add.status, 200, "{:?}", add.body);
    // By name, as Gitea lists them; the same Label objects everywhere.
    let list = w
        .api
        .call(
            "GET",
            &format!("{}/issues/1/labels", w.path),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(list.status, 200);
    let names: Vec<&str> = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bug", "triage", "ui"]);
    assert_eq!(list.body, add.body, "the add answers the same list");
    let issue = w
        .api
        .call("GET", &format!("{}/issues/1", w.path), Auth::None, None)
        .await;
    assert_eq!(issue.body["labels"], list.body);
    assert!(
        list.body[1]["url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/orgs/{}/labels/{}", w.org, w.triage))
    );

    // By id, by name, an organisation's label: 204 with no body.
    let got = w.remove(writer, 1, &w.bug.to_string()).await;
    assert_eq!(
        (got.status, got.body.clone()),
        (204, serde_json::Value::Null)
    );
    assert_eq!(w.labels_of(1).await, ["triage", "ui"]);
    assert_eq!(w.remove(writer, 1, "ui").await.status, 204);
    assert_eq!(w.remove(writer, 1, &w.triage.to_string()).await.status, 204);
    assert_eq!(w.labels_of(1).await, Vec::<String>::new());
    // A label the issue does not carry: 204, nothing changes.
    let before = w
        .api
        .call(
            "GET",
            &format!("{}/issues/1", w.path),
            Auth::Token(&w.owner.token),
            None,
        )
        .await
        .body;
    assert_eq!(w.remove(writer, 1, "bug").await.status, 204);
    let after = w
        .api
        .call(
            "GET",
            &format!("{}/issues/1", w.path),
            Auth::Token(&w.owner.token),
            None,
        )
        .await
        .body;
    assert_eq!(after, before, "not even updated_at moved");
    // Labels that do not exist here: Gitea's 422.
    let other = api_tests::issue_repo(false).await;
    let foreign = other
        .api
        .call(
            "POST",
            &format!("{}/labels", other.repo_path),
            Auth::Token(&other.owner.token),
            Some(json!({"name": "bug", "color": "#000000"})),
        )
        .await
        .body["id"]
        .as_i64()
        .unwrap();
    for (raw, message) in [
        (
            "999999999".to_string(),
            "label does not exist [id: 999999999]".to_string(),
        ),
        ("nope".into(), "label does not exist [name: nope]".into()),
        (
            foreign.to_string(),
            format!("label does not exist [id: {foreign}]"),
        ),
    ] {
        let got = w.remove(writer, 1, &raw).await;
        assert_eq!(
            (got.status, got.message()),
            (422, message.as_str()),
            "{raw}"
        );
    }
    // No such issue: 404.
    for n in ["99", "abc"] {
        let path = format!("{}/issues/{n}/labels", w.path);
        assert_eq!(
            w.api.call("GET", &path, Auth::None, None).await.status,
            404,
            "{n}"
        );
        let path = format!("{path}/{}", w.bug);
        assert_eq!(
            w.api.call("DELETE", &path, writer, None).await.status,
            404,
            "{n}"
        );
    }

    // Pull requests share the numbers, and the routes.
    let labels = format!("{}/issues/2/labels", w.path);
    let body = Some(json!({"labels": ["ui", "bug"]}));
    assert_eq!(w.api.call("PUT", &labels, writer, body).await.status, 200);
    assert_eq!(w.labels_of(2).await, ["bug", "ui"]);
    assert_eq!(w.remove(writer, 2, "ui").await.status, 204);
    let pr = w
        .api
        .call("GET", &format!("{}/pulls/2", w.path), Auth::None, None)
        .await;
    assert_eq!(pr.body["labels"][0]["name"], "bug");
    assert_eq!(pr.body["labels"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn who_may_list_and_remove_issue_labels() {
    let w = labelled(false).await;
    let (reader, outsider) = (w.api.new_user("ilrea").await, w.api.new_user("ilout").await);
    let repo = w.path.rsplit('/').next().unwrap();
    w.api
        .add_collaborator(&w.owner, &w.org, repo, &reader.name, "read")
        .await;
    let put = async |n: i64| {
        let path = format!("{}/issues/{n}/labels", w.path);
        let body = Some(json!({"labels": ["bug"]}));
        w.api
            .call("PUT", &path, Auth::Token(&w.owner.token), body)
            .await
    };
    assert_eq!(put(1).await.status, 200);
    assert_eq!(put(2).await.status, 200);
    let bug = w.bug.to_string();
    // Anyone reads a public repository's issue labels.
    let path = format!("{}/issues/1/labels", w.path);
    assert_eq!(w.api.call("GET", &path, Auth::None, None).await.status, 200);
    // Removing needs a signed-in writer of the kind.
    let got = w.remove(Auth::None, 1, &bug).await;
    assert_eq!((got.status, got.message()), (401, "token is required"));
    for who in [&reader, &outsider] {
        let got = w.remove(Auth::Token(&who.token), 1, &bug).await;
        assert_eq!(got.status, 403, "{}: {:?}", who.name, got.body);
    }
    let read_only = w
        .api
        .token(&w.writer.name, &w.writer.password, &["read:issue"])
        .await;
    assert_eq!(w.remove(Auth::Token(&read_only), 1, &bug).await.status, 403);
    assert_eq!(w.labels_of(1).await, ["bug"], "nothing changed");
    // A team that writes issues but only reads pull requests.
    let team = w
        .api
        .call(
            "POST",
            &format!("/api/v1/orgs/{}/teams", w.org),
            Auth::Token(&w.owner.token),
            Some(
                json!({"name": "triagers", "includes_all_repositories": true,
                "units_map": {"repo.issues": "write", "repo.pulls": "read"}}),
            ),
        )
        .await;
    assert_eq!(team.status, 201, "{:?}", team.body);
    let member = w.api.new_user("iltri").await;
    let add = format!("/api/v1/teams/{}/members/{}", team.body["id"], member.name);
    w.api
        .call("PUT", &add, Auth::Token(&w.owner.token), None)
        .await;
    let t = Auth::Token(&member.token);
    assert_eq!(w.remove(t, 1, &bug).await.status, 204);
    assert_eq!(
        w.remove(t, 2, &bug).await.status,
        403,
        "pull requests need their unit"
    );
    assert_eq!(
        (w.labels_of(1).await, w.labels_of(2).await),
        (vec![], vec!["bug".to_string()])
    );

    // Private: outsiders are told it does not exist; readers list.
    let p = labelled(true).await;
    p.api
        .add_collaborator(
            &p.owner,
            &p.org,
            p.path.rsplit('/').next().unwrap(),
            &reader.name,
            "read",
        )
        .await;
    let path = format!("{}/issues/1/labels", p.path);
    for (who, status) in [
        (Auth::None, 404),
        (Auth::Token(&outsider.token), 404),
        (Auth::Token(&reader.token), 200),
    ] {
        assert_eq!(
            p.api.call("GET", &path, who, None).await.status,
            status,
            "{who:?}"
        );
    }
    assert_eq!(
        p.remove(Auth::Token(&outsider.token), 1, "bug")
            .await
            .status,
        404
    );
    let po = p
        .api
        .token(
            &p.writer.name,
            &p.writer.password,
            &["write:issue", "public-only"],
        )
        .await;
    let got = p.remove(Auth::Token(&po), 1, "bug").await;
    assert_eq!(
        (got.status, got.message()),
        (403, "token scope is limited to public issues")
    );
}

#[tokio::test]
async fn a_deleted_label_lingering_on_an_issue_can_still_be_taken_off() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let w = labelled(false).await;
    let owner = Auth::Token(&w.owner.token);
    let labels = format!("{}/issues/1/labels", w.path);
    let body = Some(json!({"labels": [w.ui, w.bug]}));
    assert_eq!(w.api.call("POST", &labels, owner, body).await.status, 200);
    let gone = w
        .api
        .call(
            "DELETE",
            &format!("{}/labels/{}", w.path, w.ui),
            owner,
            None,
        )
        .await;
    assert_eq!(gone.status, 204);
    assert_eq!(
        w.labels_of(1).await,
        ["bug"],
        "a deleted label is not shown"
    );
    // What the table holds for issue 1.
    let repo_id = w.api.call("GET", &w.path, owner, None).await.body["id"]
        .as_i64()
        .unwrap();
    let stored = async || {
        let (client, table) = api_tests::table().await;
        let item = client
            .get_item()
            .table_name(&table)
            .set_key(Some(shared::db::keys::issue(repo_id, 1)))
            .send()
            .await
            .unwrap()
            .item
            .expect("issue 1 is stored");
        let Some(AttributeValue::L(ids)) = item.get("labels") else {
            panic!("{item:?}")
        };
        ids.iter()
            .map(|v| v.as_n().unwrap().parse::<i64>().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(stored().await, [w.ui, w.bug]);
    assert_eq!(w.remove(owner, 1, &w.ui.to_string()).await.status, 204);
    assert_eq!(stored().await, [w.bug]);
    // Gone from the issue as well: now it does not exist at all.
    assert_eq!(w.remove(owner, 1, &w.ui.to_string()).await.status, 422);
}
