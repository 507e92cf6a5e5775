//! Who may do what with comments and locks: every comment and lock route
//! against every kind of caller, on a public and a private repository of
//! an organisation, one table row per caller; the issue's `comments`
//! count must then equal what the table says was created and kept.

use api_tests::{Api, Auth, TestUser};
use serde_json::{Value, json};

/// The routes, in the order each row sends them.
const ROUTES: [&str; 8] = [
    "GET issue comments",
    "GET repository comments",
    "GET comment",
    "POST comment",
    "PATCH comment",
    "DELETE comment",
    "PUT lock",
    "DELETE lock",
];

/// Statuses for a caller who reads the repository but only comments.
const COMMENTER: [u16; 8] = [200, 200, 200, 201, 403, 403, 403, 403];
/// ... who also wrote the comment they edit and delete.
const AUTHOR: [u16; 8] = [200, 200, 200, 201, 200, 204, 403, 403];
/// ... who administers the repository.
const ADMIN: [u16; 8] = [200, 200, 200, 201, 200, 204, 204, 204];
const HIDDEN: [u16; 8] = [404; 8];

struct World {
    api: Api,
    owner: TestUser,
    author: TestUser,
    org: String,
}

impl World {
    fn base(&self, repo: &str) -> String {
        format!("/api/v1/repos/{}/{repo}/issues", self.org)
    }

    /// A comment by the table's author on issue 1 of `repo`.
    async fn target(&self, repo: &str, by: &TestUser) -> i64 {
        let path = format!("{}/1/comments", self.base(repo));
        let body = Some(json!({"body": "the target"}));
        let got = self
            .api
            .call("POST", &path, Auth::Token(&by.token), body)
            .await;
        assert_eq!(got.status, 201, "target comment: {:?}", got.body);
        got.body["id"].as_i64().unwrap()
    }

    /// Sends the eight routes as `who`; returns their statuses and
    /// whether the target comment still exists.
    async fn row(&self, repo: &str, who: Auth<'_>, target: i64) -> (Vec<u16>, Value) {
        let base = self.base(repo);
        let one = format!("{base}/comments/{target}");
        let calls: [(&str, String, Option<Value>); 8] = [
            ("GET", format!("{base}/1/comments"), None),
            ("GET", format!("{base}/comments"), None),
            ("GET", one.clone(), None),
            (
                "POST",
                format!("{base}/1/comments"),
                Some(json!({"body": "a reply"})),
            ),
            ("PATCH", one.clone(), Some(json!({"body": "edited"}))),
            ("DELETE", one.clone(), None),
            (
                "PUT",
                format!("{base}/1/lock"),
                Some(json!({"lock_reason": "Resolved"})),
            ),
            ("DELETE", format!("{base}/1/lock"), None),
        ];
        let mut statuses = Vec::new();
        let mut patch_body = Value::Null;
        for (method, path, body) in calls {
            let got = self.api.call(method, &path, who, body).await;
            if method == "PATCH" {
                patch_body = got.body.clone();
            }
            statuses.push(got.status);
        }
        (statuses, patch_body)
    }
}

#[tokio::test]
async fn comment_routes_by_caller() {
    let api = Api::from_env();
    let owner = api.new_user("cpown").await;
    let names = ["cpout", "cpblk", "cprea", "cpaut", "cpwri", "cpadm"];
    let mut users = Vec::new();
    for n in names {
        users.push(api.new_user(n).await);
    }
    let [outsider, blocked, reader, author, writer, radmin] = users.try_into().unwrap();
    let org = api.new_org(&owner, "cporg", "public").await;
    let mut repos = Vec::new();
    for private in [false, true] {
        let repo = api
            .new_repo(&owner, &format!("/api/v1/orgs/{org}/repos"), private)
            .await;
        for (who, mode) in [
            (&reader, "read"),
            (&author, "read"),
            (&writer, "write"),
            (&radmin, "admin"),
        ] {
            api.add_collaborator(&owner, &org, &repo, &who.name, mode)
                .await;
        }
        let path = format!("/api/v1/repos/{org}/{repo}");
        api.new_issue(&owner, &path, "the issue").await;
        repos.push(repo);
    }
    let block = format!("/api/v1/orgs/{org}/blocks/{}", blocked.name);
    assert_eq!(
        api.call("PUT", &block, Auth::Token(&owner.token), None)
            .await
            .status,
        204
    );
    let public_only = api
        .token(&owner.name, &owner.password, &["all", "public-only"])
        .await;
    let site_admin = api.admin_token.clone();
    let w = World {
        api: Api::from_env(),
        owner,
        author,
        org,
    };
    // (caller, token, public row, private row); every row acts on a
    // comment by the author.
    type Row<'a> = (&'a str, Auth<'a>, [u16; 8], [u16; 8]);
    let table: Vec<Row> = vec![
        (
            "anonymous",
            Auth::None,
            [200, 200, 200, 401, 401, 401, 401, 401],
            HIDDEN,
        ),
        ("outsider", Auth::Token(&outsider.token), COMMENTER, HIDDEN),
        (
            "blocked",
            Auth::Token(&blocked.token),
            [200, 200, 200, 403, 403, 403, 403, 403],
            HIDDEN,
        ),
        ("reader", Auth::Token(&reader.token), COMMENTER, COMMENTER),
        ("author", Auth::Token(&w.author.token), AUTHOR, AUTHOR),
        ("writer", Auth::Token(&writer.token), COMMENTER, COMMENTER),
        ("repo admin", Auth::Token(&radmin.token), ADMIN, ADMIN),
        ("site admin", Auth::Token(&site_admin), ADMIN, ADMIN),
        ("public-only", Auth::Bearer(&public_only), ADMIN, [403; 8]),
    ];
    let mut expected_count = [0i64; 2];
    for (name, who, public, private) in &table {
        for (at, (repo, want)) in repos.iter().zip([public, private]).enumerate() {
            let target = w.target(repo, &w.author).await;
            let (got, patch_body) = w.row(repo, *who, target).await;
            let routes: Vec<String> = ROUTES
                .iter()
                .zip(&got)
                .map(|(r, s)| format!("{r} {s}"))
                .collect();
            assert_eq!(
                &got[..],
                &want[..],
                "{name} on the {} repository: {routes:?}",
                ["public", "private"][at]
            );
            if got[4] == 403 && *name != "blocked" && *name != "public-only" {
                assert_eq!(patch_body, Value::Null, "{name}: Gitea's 403 has no body");
            }
            expected_count[at] += 1 + i64::from(got[3] == 201) - i64::from(got[5] == 204);
        }
    }
    // The count is what the table created and kept, on the issue and in
    // both lists.
    for (repo, want) in repos.iter().zip(expected_count) {
        let base = w.base(repo);
        let owner = Auth::Token(&w.owner.token);
        let issue = w.api.call("GET", &format!("{base}/1"), owner, None).await;
        assert_eq!(
            (
                issue.body["comments"].as_i64(),
                issue.body["is_locked"].as_bool()
            ),
            (Some(want), Some(false))
        );
        let list = w
            .api
            .call("GET", &format!("{base}/1/comments?limit=50"), owner, None)
            .await;
        assert_eq!(
            (list.total(), list.body.as_array().map(Vec::len)),
            (Some(want as u64), Some(want as usize))
        );
        let list = w
            .api
            .call("GET", &format!("{base}/comments"), owner, None)
            .await;
        assert_eq!(list.total(), Some(want as u64));
    }
}

#[tokio::test]
async fn token_scopes_apply_to_comments() {
    let api = Api::from_env();
    let u = api.new_user("cpsc").await;
    let repo = api.new_repo(&u, "/api/v1/user/repos", true).await;
    let base = format!("/api/v1/repos/{}/{repo}/issues", u.name);
    api.new_issue(&u, &format!("/api/v1/repos/{}/{repo}", u.name), "i")
        .await;
    let read = api.token(&u.name, &u.password, &["read:issue"]).await;
    let repo_only = api.token(&u.name, &u.password, &["write:repository"]).await;
    let path = format!("{base}/1/comments");
    assert_eq!(
        api.call("GET", &path, Auth::Token(&read), None)
            .await
            .status,
        200
    );
    let got = api
        .call(
            "POST",
            &path,
            Auth::Token(&read),
            Some(json!({"body": "x"})),
        )
        .await;
    assert_eq!(got.status, 403);
    assert!(
        got.message().contains("required=[write:issue]"),
        "{:?}",
        got.body
    );
    for (method, path) in [
        ("GET", format!("{base}/comments")),
        ("PUT", format!("{base}/1/lock")),
    ] {
        let got = api.call(method, &path, Auth::Token(&repo_only), None).await;
        assert_eq!(got.status, 403, "{method} {path}");
        assert!(got.message().contains("required=["), "{:?}", got.body);
    }
    let issue = api
        .call("GET", &format!("{base}/1"), Auth::Token(&u.token), None)
        .await;
    assert_eq!(issue.body["comments"], 0);
}
