//! Test support (feature `testing`): a fresh table on DynamoDB Local per
//! test, so tests run in parallel without seeing each other, plus request
//! builders for calling a function's handler in-process.

use lambda_http::{Body, Request, http};
use serde_json::{Value, json};

use crate::{
    Config,
    accounts::{
        names::{Email, OwnerName, Visibility},
        tokens::{self, NewToken},
        users::{self, NewUser, UserRecord},
    },
    auth::scope::Scopes,
    db::table,
    deploy::{Team, projects, servers, ssh_keys},
    http::{App, Response},
};

/// The DynamoDB Local endpoint the tests use (`make test` sets it).
pub fn endpoint() -> String {
    std::env::var("DYNAMODB_ENDPOINT")
        .expect("DYNAMODB_ENDPOINT must point at DynamoDB Local: run the tests with `make test`")
}

/// An app on a table of its own.
pub async fn app() -> App {
    app_with(|_| None).await
}

/// An app on a table of its own, with settings of the test's own.
pub async fn app_with(setting: impl Fn(&str) -> Option<String>) -> App {
    let table = format!("t-{:016x}", rand::random::<u64>());
    let endpoint = endpoint();
    // A test's own setting wins; an empty one leaves the key unset.
    let config = Config::from_lookup(|k| match k {
        _ if setting(k).is_some() => setting(k).filter(|v| !v.is_empty()),
        "TABLE_NAME" => Some(table.clone()),
        "DYNAMODB_ENDPOINT" => Some(endpoint.clone()),
        "ROOT_URL" => Some("http://forge.test/".into()),
        "DYNAMODB_TRANSACTION_LIMIT" | "TOKEN_CACHE_TTL_SECONDS" | "SECRETS_KEY_FILE" => {
            std::env::var(k).ok()
        }
        // DynamoDB Local is shared with the black-box run, whose stream
        // consumer may still be busy: patience, not a stall, is tested here.
        "DB_ATTEMPT_TIMEOUT_MS" => Some("10000".into()),
        "DB_OPERATION_TIMEOUT_MS" => Some("30000".into()),
        _ => None,
    })
    .expect("test configuration is valid");
    let app = App::new(config).await;
    table::create_if_missing(app.db.client(), app.db.table())
        .await
        .expect("create test table");
    app
}

/// Creates a user straight in the table and a token with `scopes`.
pub async fn seed_user(
    app: &App,
    name: &str,
    admin: bool,
    scopes: &[&str],
) -> (UserRecord, String) {
    let user = users::create(
        &app.db,
        NewUser {
            name: OwnerName::parse("username", name).expect("valid test user name"),
            email: Email::parse("email", &format!("{name}@example.com")).expect("valid e-mail"),
            full_name: String::new(),
            password: Some(format!("{name}-password")),
            visibility: Visibility::Public,
            is_admin: admin,
            restricted: false,
        },
    )
    .await
    .expect("seed user");
    let new = NewToken {
        name: "seed".into(),
        scopes: Scopes::parse(scopes).expect("valid scopes"),
        team: user.name.clone(),
    };
    let (_, secret) = tokens::create(&app.db, &user, new)
        .await
        .expect("seed token");
    (user, secret)
}

/// A request as API Gateway would hand it over.
pub fn request(method: &str, uri: &str, token: Option<&str>, body: Option<&str>) -> Request {
    let mut b = http::Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        b = b.header("authorization", format!("token {t}"));
    }
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    let body = body.map_or(Body::Empty, |s| Body::Text(s.to_string()));
    b.body(body).expect("valid test request")
}

/// A request decoded from an API Gateway (HTTP API, payload 2.0) event
/// whose body arrives base64-encoded, as binary bodies do: what
/// `cargo lambda watch` cannot send (it refuses bodies that are not UTF-8).
pub fn base64_event(method: &str, path: &str, token: &str, body: &[u8]) -> Request {
    let headers = json!({
        "authorization": format!("token {token}"),
        "content-type": "application/json",
        "host": "forge.test",
    });
    gateway_event(method, path, headers, "forge.test", body)
}

/// A request decoded from an API Gateway (HTTP API, payload 2.0) event:
/// `headers` as the client sent them, `domain` as API Gateway's request
/// context names the API (`$default` stage).
pub fn gateway_event(
    method: &str,
    path: &str,
    headers: Value,
    domain: &str,
    body: &[u8],
) -> Request {
    use base64::Engine;
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let event = json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": headers,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": domain,
            "domainPrefix": domain.split('.').next().unwrap_or_default(),
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.1",
                "userAgent": "test",
            },
            "requestId": "req",
            "routeKey": "$default",
            "stage": "$default",
            "time": "26/Nov/2026:00:00:00 +0000",
            "timeEpoch": 0,
        },
        "body": base64::engine::general_purpose::STANDARD.encode(body),
        "isBase64Encoded": true,
    });
    lambda_http::request::from_str(&event.to_string()).expect("a valid API Gateway event")
}

/// Status and JSON body (`Value::Null` when empty).
pub fn parts(res: &Response) -> (u16, Value) {
    let bytes: &[u8] = match res.body() {
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    let value = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into()))
    };
    (res.status().as_u16(), value)
}

/// Calls service `S` in-process with an optional token and JSON body.
pub async fn call<S: crate::http::Service>(
    app: &App,
    method: &str,
    uri: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let body = body.map(|b| b.to_string());
    parts(&crate::http::handle::<S>(app, request(method, uri, token, body.as_deref())).await)
}

/// A deploy team named after a new user `name` (who gets a token with
/// `scopes`), with a deploy key, a server (203.0.113.7, one destination)
/// and a project (with `production`). Returns the token, the team and the
/// placement every application create needs.
pub async fn deploy_team(app: &App, name: &str, scopes: &[&str]) -> (String, Team, Value) {
    let (_, token) = seed_user(app, name, false, scopes).await;
    let team = Team {
        name: name.into(),
        sensitive: true,
        can_deploy: true,
        sealer: app.sealer.clone(),
    };
    let der = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 64]);
    let pem =
        format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{der}\n-----END OPENSSH PRIVATE KEY-----\n");
    let key =
        ssh_keys::parse_new(object(json!({"name": "k", "private_key": pem}))).expect("valid key");
    ssh_keys::create(&app.db, &team, &key).await.expect("key");
    let server = servers::parse(
        object(json!({"name": "s", "ip": "203.0.113.7", "private_key_uuid": key.uuid})),
        None,
    )
    .expect("valid server");
    let server = servers::create(&app.db, &team, server)
        .await
        .expect("server");
    let project = projects::create(&app.db, &team, "p".into(), None)
        .await
        .expect("project");
    let placement = json!({
        "project_uuid": project.uuid,
        "server_uuid": server.uuid,
        "environment_name": "production",
    });
    (token, team, placement)
}

fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}
