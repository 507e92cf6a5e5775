//! Helpers for the black-box tests: they call the API over HTTP the way a
//! client does. `make test` serves the real function binaries with
//! `cargo lambda watch` and sets `API_URL` and `BOOTSTRAP_ADMIN_TOKEN`, and
//! runs tools/stream-pump (the table's stream into the `stream` function)
//! with its status API at `PUMP_URL` ([`settle`]).

pub mod deploy;
pub mod raw;
pub mod receiver;

use base64::{Engine, engine::general_purpose::STANDARD};
use reqwest::{Method, header::HeaderMap};
use serde_json::{Value, json};

/// How a request authenticates.
#[derive(Clone, Copy, Debug)]
pub enum Auth<'a> {
    None,
    /// `Authorization: token X`
    Token(&'a str),
    /// `Authorization: Bearer X`
    Bearer(&'a str),
    /// `Authorization: Basic base64(user:password)`
    Basic(&'a str, &'a str),
    /// `?token=X`
    Query(&'a str),
}

/// A response: status, headers and the JSON body (`Null` when empty,
/// a JSON string holding the text when it is not JSON).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `X-Total-Count` header of a list.
    pub fn total(&self) -> Option<u64> {
        self.header("x-total-count").and_then(|v| v.parse().ok())
    }
}

/// The stream pump's status API (`PUMP_URL`, set by `make test`).
fn pump_url() -> String {
    std::env::var("PUMP_URL")
        .expect("PUMP_URL must name the stream pump's status API: run the tests with `make test`")
        .trim_end_matches('/')
        .to_string()
}

/// Waits until the stream consumer has handled every change made to the
/// table before this call (tools/stream-pump's `GET /settle`), for tests
/// that must see background work. Panics with the pump's answer (what is
/// pending, its last error) when that takes over 150 seconds: the wait
/// covers the background work of every test running alongside (a test
/// that files hundreds of issues leaves tens of thousands of index writes
/// behind it), which a 2-core CI machine can take a minute over.
pub async fn settle() {
    let url = format!("{}/settle?timeout_ms=150000", pump_url());
    let res = reqwest::Client::new()
        .get(&url)
        .timeout(std::time::Duration::from_secs(160))
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e} (is the stream pump running?)"));
    let status = res.status();
    let body = res.text().await.unwrap_or_default();
    assert!(
        status.is_success(),
        "the stream consumer did not catch up with the table ({status}): {body}"
    );
    // Long waits are where a run's time goes: a failing test's output
    // shows them.
    let waited: Option<u64> = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| v["waited_ms"].as_u64());
    if let Some(ms) = waited.filter(|ms| *ms > 10_000) {
        eprintln!("settle waited {ms} ms for the stream consumer");
    }
}

/// Holds the stream consumer back for `ms` milliseconds (the pump's
/// `GET /hold`): nothing derived from the table's stream moves meanwhile,
/// as on AWS when the consumer falls behind. For the tests of what must
/// not wait for it; `make test` lets go after each test executable.
pub async fn hold_stream(ms: u64) {
    let url = format!("{}/hold?ms={ms}", pump_url());
    let res = reqwest::get(&url)
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e} (is the stream pump running?)"));
    assert!(res.status().is_success(), "GET {url}: {}", res.status());
}

/// The stream pump's counters (`GET /stats`): invocations,
/// records_delivered, failures, retries, skipped_records, ...
pub async fn pump_stats() -> Value {
    let url = format!("{}/stats", pump_url());
    reqwest::get(&url)
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
        .json()
        .await
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
}

/// The table the API serves, for tests that check what is stored (read
/// directly, past the API).
pub async fn table() -> (aws_sdk_dynamodb::Client, String) {
    // The consumer's timeouts: tests read past the API, whole tables
    // even, while the emulator keeps DynamoDB Local busy.
    let config = shared::Config::from_env()
        .expect("config from the environment")
        .background();
    let client = shared::db::connect(&config).await.retrying;
    (client, config.table_name)
}

/// Every item of partition `pk` whose sort key starts with `prefix` (a
/// non-empty one), read strongly consistent, a page at a time.
pub async fn items_under(
    pk: &str,
    prefix: &str,
) -> Vec<std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>> {
    use aws_sdk_dynamodb::types::AttributeValue;
    let (client, table) = table().await;
    let (mut out, mut start) = (Vec::new(), None);
    loop {
        let page = client
            .query()
            .table_name(&table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", AttributeValue::S(pk.into()))
            .expression_attribute_values(":p", AttributeValue::S(prefix.into()))
            .consistent_read(true)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .expect("query the table");
        out.extend(page.items.unwrap_or_default());
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => return out,
        }
    }
}

/// A user made for one test, with a token carrying every scope.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub name: String,
    pub password: String,
    pub token: String,
}

pub struct Api {
    pub base: String,
    pub admin_token: String,
    http: reqwest::Client,
}

/// A name no other test uses (letters and digits only).
/// A number field of each entry of a listed page, in order (`number` of
/// issues and pulls, `id` of comments).
pub fn each(body: &Value, field: &str) -> Vec<i64> {
    body.as_array()
        .unwrap_or_else(|| panic!("a list: {body:?}"))
        .iter()
        .map(|i| {
            i[field]
                .as_i64()
                .unwrap_or_else(|| panic!("{field} in {i}"))
        })
        .collect()
}

/// The numbers of a listed page of issues or pulls, in order.
pub fn numbers(body: &Value) -> Vec<i64> {
    each(body, "number")
}

/// The ids of a listed page of comments, in order.
pub fn ids(body: &Value) -> Vec<i64> {
    each(body, "id")
}

pub fn unique(prefix: &str) -> String {
    format!("{prefix}{:012x}", rand_u64() & 0xffff_ffff_ffff)
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    h.finish()
}

impl Api {
    pub fn from_env() -> Self {
        let base = std::env::var("API_URL")
            .expect("API_URL must name the running API: run the tests with `make test`");
        let admin_token = std::env::var("BOOTSTRAP_ADMIN_TOKEN")
            .expect("BOOTSTRAP_ADMIN_TOKEN must be the bootstrap admin's token");
        Self {
            base: base.trim_end_matches('/').to_string(),
            admin_token,
            // A request that never ends fails its test instead of hanging CI.
            http: reqwest::Client::builder()
                .timeout(std::time::Duration::from_secs(120))
                .build()
                .expect("an HTTP client"),
        }
    }

    /// Sends raw bytes with the given content type.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        auth: Auth<'_>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Reply {
        let mut url = format!("{}{path}", self.base);
        let method = Method::from_bytes(method.as_bytes()).expect("valid method");
        let mut req = self.http.request(method.clone(), "http://placeholder");
        match auth {
            Auth::None => {}
            Auth::Token(t) => req = req.header("authorization", format!("token {t}")),
            Auth::Bearer(t) => req = req.header("authorization", format!("Bearer {t}")),
            Auth::Basic(u, p) => {
                req = req.header(
                    "authorization",
                    format!("Basic {}", STANDARD.encode(format!("{u}:{p}"))),
                )
            }
            Auth::Query(t) => url.push_str(&format!(
                "{}token={t}",
                if url.contains('?') { '&' } else { '?' }
            )),
        }
        let mut req = req.build().expect("valid request");
        *req.url_mut() = url.parse().expect("valid url");
        if let Some(ct) = content_type {
            req.headers_mut()
                .insert("content-type", ct.parse().expect("valid content type"));
        }
        if !body.is_empty() {
            *req.body_mut() = Some(body.into());
        }
        let res = self
            .http
            .execute(req)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.bytes().await.expect("response body");
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    /// Sends JSON (or nothing).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        auth: Auth<'_>,
        body: Option<Value>,
    ) -> Reply {
        match body {
            Some(b) => {
                self.raw(
                    method,
                    path,
                    auth,
                    Some("application/json"),
                    b.to_string().into_bytes(),
                )
                .await
            }
            None => self.raw(method, path, auth, None, Vec::new()).await,
        }
    }

    pub fn admin(&self) -> Auth<'_> {
        Auth::Token(&self.admin_token)
    }

    /// The bootstrap admin's name and password, for what only a password
    /// may do (managing tokens).
    pub fn admin_login() -> (String, String) {
        let name = std::env::var("BOOTSTRAP_ADMIN_USER").unwrap_or_else(|_| "root".into());
        let password = std::env::var("BOOTSTRAP_ADMIN_PASSWORD")
            .expect("BOOTSTRAP_ADMIN_PASSWORD must be the bootstrap admin's password");
        (name, password)
    }

    /// Creates a user (as the admin) and a token for them through Basic
    /// auth with their password.
    pub async fn new_user(&self, prefix: &str) -> TestUser {
        self.new_user_with(prefix, json!({})).await
    }

    /// Like [`Api::new_user`], with extra `CreateUserOption` fields.
    pub async fn new_user_with(&self, prefix: &str, extra: Value) -> TestUser {
        let name = unique(prefix);
        let password = format!("pw-{name}");
        let mut body =
            json!({"username": name, "email": format!("{name}@example.com"), "password": password});
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let r = self
            .call("POST", "/api/v1/admin/users", self.admin(), Some(body))
            .await;
        assert_eq!(r.status, 201, "create user {name}: {:?}", r.body);
        let token = self.token(&name, &password, &["all"]).await;
        TestUser {
            name,
            password,
            token,
        }
    }

    /// A new token for `user` with `scopes`, made with their password.
    pub async fn token(&self, user: &str, password: &str, scopes: &[&str]) -> String {
        let body = json!({"name": unique("t"), "scopes": scopes});
        let r = self
            .call(
                "POST",
                &format!("/api/v1/users/{user}/tokens"),
                Auth::Basic(user, password),
                Some(body),
            )
            .await;
        assert_eq!(r.status, 201, "create token for {user}: {:?}", r.body);
        r.body["sha1"]
            .as_str()
            .expect("sha1 holds the secret")
            .to_string()
    }
}

impl Api {
    /// Creates an organisation owned by `owner`.
    pub async fn new_org(&self, owner: &TestUser, prefix: &str, visibility: &str) -> String {
        let name = unique(prefix);
        let r = self
            .call(
                "POST",
                "/api/v1/orgs",
                Auth::Token(&owner.token),
                Some(json!({"username": name, "visibility": visibility})),
            )
            .await;
        assert_eq!(r.status, 201, "create org {name}: {:?}", r.body);
        name
    }

    /// Creates a repository under `owner_path` (`/user/repos` or
    /// `/orgs/{org}/repos`) as `who`; returns its name.
    pub async fn new_repo(&self, who: &TestUser, create_path: &str, private: bool) -> String {
        let name = unique("repo");
        let r = self
            .call(
                "POST",
                create_path,
                Auth::Token(&who.token),
                Some(json!({"name": name, "private": private})),
            )
            .await;
        assert_eq!(
            r.status, 201,
            "create repo {name} at {create_path}: {:?}",
            r.body
        );
        name
    }

    /// A new user (named from `prefix`) and a repository of theirs;
    /// returns the user and `/api/v1/repos/{user}/{repo}`.
    pub async fn user_repo(&self, prefix: &str, private: bool) -> (TestUser, String) {
        let u = self.new_user(prefix).await;
        let repo = self.new_repo(&u, "/api/v1/user/repos", private).await;
        let path = format!("/api/v1/repos/{}/{repo}", u.name);
        (u, path)
    }

    /// The id of the repository at `repo_path`
    /// (`/api/v1/repos/{owner}/{repo}`), as `who` reads it.
    pub async fn repo_id(&self, who: &TestUser, repo_path: &str) -> i64 {
        let r = self
            .call("GET", repo_path, Auth::Token(&who.token), None)
            .await;
        assert_eq!(r.status, 200, "GET {repo_path}: {:?}", r.body);
        r.body["id"].as_i64().expect("repository id")
    }

    /// Creates an issue titled `title` in `repo_path`
    /// (`/api/v1/repos/{owner}/{repo}`) as `who`; returns its number.
    pub async fn new_issue(&self, who: &TestUser, repo_path: &str, title: &str) -> i64 {
        let r = self
            .call(
                "POST",
                &format!("{repo_path}/issues"),
                Auth::Token(&who.token),
                Some(json!({ "title": title })),
            )
            .await;
        assert_eq!(r.status, 201, "create issue {title}: {:?}", r.body);
        r.body["number"].as_i64().expect("issue number")
    }

    /// Makes `user` a collaborator of `owner/repo` with `permission`.
    pub async fn add_collaborator(
        &self,
        admin: &TestUser,
        owner: &str,
        repo: &str,
        user: &str,
        permission: &str,
    ) {
        let r = self
            .call(
                "PUT",
                &format!("/api/v1/repos/{owner}/{repo}/collaborators/{user}"),
                Auth::Token(&admin.token),
                Some(json!({"permission": permission})),
            )
            .await;
        assert_eq!(r.status, 204, "add collaborator {user}: {:?}", r.body);
    }
}

/// A repository with an owner, a writer and a reader collaborator, and an
/// outsider, for the issue tests.
pub struct IssueRepo {
    pub api: Api,
    pub owner: TestUser,
    pub writer: TestUser,
    pub reader: TestUser,
    pub outsider: TestUser,
    /// `/api/v1/repos/{owner}/{repo}/issues`
    pub base: String,
    /// `/api/v1/repos/{owner}/{repo}`
    pub repo_path: String,
}

pub async fn issue_repo(private: bool) -> IssueRepo {
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
    IssueRepo {
        base: format!("{repo_path}/issues"),
        repo_path,
        api,
        owner,
        writer,
        reader,
        outsider,
    }
}

impl IssueRepo {
    /// The repository's id, as its owner reads it.
    pub async fn repo_id(&self) -> i64 {
        self.api.repo_id(&self.owner, &self.repo_path).await
    }

    pub async fn create(&self, who: &TestUser, body: Value) -> Value {
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

    pub async fn get(&self, n: i64) -> Value {
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

    pub async fn patch(&self, who: &TestUser, n: i64, body: Value) -> Reply {
        self.api
            .call(
                "PATCH",
                &format!("{}/{n}", self.base),
                Auth::Token(&who.token),
                Some(body),
            )
            .await
    }

    pub async fn milestone(&self, title: &str) -> i64 {
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

    pub async fn counts(&self, milestone: i64) -> (i64, i64) {
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

    pub async fn open_count(&self) -> (i64, i64) {
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
