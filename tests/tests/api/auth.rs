//! Credentials end to end: every accepted form, revocation, wrong tokens,
//! scopes, and who may create users and tokens.

use api_tests::{Api, Auth, unique};
use serde_json::json;

#[tokio::test]
async fn every_credential_form_signs_in() {
    let api = Api::from_env();
    let u = api.new_user("forms").await;
    let forms = [
        Auth::Token(&u.token),
        Auth::Bearer(&u.token),
        Auth::Basic(&u.token, ""),
        Auth::Basic(&u.name, &u.token),
        Auth::Basic(&u.name, &u.password),
        Auth::Query(&u.token),
    ];
    for auth in forms {
        let r = api.call("GET", "/api/v1/user", auth, None).await;
        assert_eq!(r.status, 200, "{auth:?}: {:?}", r.body);
        assert_eq!(r.body["login"], u.name.as_str(), "{auth:?}");
        assert_eq!(
            r.body["email"],
            format!("{}@example.com", u.name),
            "{auth:?}"
        );
        assert_eq!(
            r.header("content-type"),
            Some("application/json;charset=utf-8")
        );
    }
}

#[tokio::test]
async fn wrong_or_revoked_tokens_get_401_on_every_route() {
    let api = Api::from_env();
    let u = api.new_user("revoke").await;
    let r = api
        .call(
            "GET",
            "/api/v1/user",
            Auth::Token("0000000000000000000000000000000000000000"),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    assert_eq!(r.message(), "invalid username, password or token");
    assert_eq!(r.body["url"], format!("{}/api/swagger", api.base));
    // Even on a route that anonymous callers may use.
    let r = api
        .call(
            "GET",
            &format!("/api/v1/users/{}", u.name),
            Auth::Token("nope"),
            None,
        )
        .await;
    assert_eq!(r.status, 401);
    let r = api
        .call(
            "GET",
            "/api/v1/user",
            Auth::Basic(&u.name, "wrong-password"),
            None,
        )
        .await;
    assert_eq!(r.status, 401);

    // Revoke by id, then the token is dead.
    let secret = api.token(&u.name, &u.password, &["read:user"]).await;
    assert_eq!(
        api.call("GET", "/api/v1/user", Auth::Token(&secret), None)
            .await
            .status,
        200
    );
    let list = api
        .call(
            "GET",
            &format!("/api/v1/users/{}/tokens", u.name),
            Auth::Basic(&u.name, &u.password),
            None,
        )
        .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.header("x-total-count"), Some("2"));
    let listed = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|t| secret.ends_with(t["token_last_eight"].as_str().unwrap()))
        .unwrap();
    assert_eq!(listed["sha1"], "", "listings never show secrets");
    let path = format!("/api/v1/users/{}/tokens/{}", u.name, listed["id"]);
    assert_eq!(
        api.call("DELETE", &path, Auth::Basic(&u.name, &u.password), None)
            .await
            .status,
        204
    );
    let r = api
        .call("GET", "/api/v1/user", Auth::Token(&secret), None)
        .await;
    assert_eq!(
        (r.status, r.message()),
        (401, "invalid username, password or token")
    );
    assert_eq!(
        api.call("DELETE", &path, Auth::Basic(&u.name, &u.password), None)
            .await
            .status,
        404
    );
    // The other token still works.
    assert_eq!(
        api.call("GET", "/api/v1/user", Auth::Token(&u.token), None)
            .await
            .status,
        200
    );
}

#[tokio::test]
async fn tokens_are_made_with_a_password_by_the_user_or_a_site_admin() {
    let api = Api::from_env();
    let u = api.new_user("mint").await;
    let other = api.new_user("other").await;
    let path = format!("/api/v1/users/{}/tokens", u.name);
    let body = json!({"name": "ci", "scopes": ["read:issue"]});

    let r = api
        .call("POST", &path, Auth::Token(&u.token), Some(body.clone()))
        .await;
    assert_eq!(r.status, 401, "a token cannot mint tokens: {:?}", r.body);
    let r = api
        .call(
            "POST",
            &path,
            Auth::Basic(&other.name, &other.password),
            Some(body.clone()),
        )
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = api
        .call("POST", &path, Auth::None, Some(body.clone()))
        .await;
    assert_eq!(r.status, 401);

    let r = api
        .call("POST", &path, api.admin(), Some(body.clone()))
        .await;
    assert_eq!(r.status, 401, "not even a site admin's token: {:?}", r.body);
    let (admin, password) = Api::admin_login();
    let r = api
        .call(
            "POST",
            &path,
            Auth::Basic(&admin, &password),
            Some(body.clone()),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body["name"], "ci");
    assert_eq!(r.body["scopes"], json!(["read:issue"]));
    let secret = r.body["sha1"].as_str().unwrap();
    assert_eq!(secret.len(), 40);
    assert_eq!(r.body["token_last_eight"], &secret[32..]);
    assert_eq!(r.body["team"], u.name.to_lowercase());

    let r = api
        .call("POST", &path, Auth::Basic(&u.name, &u.password), Some(body))
        .await;
    assert_eq!(
        (r.status, r.message()),
        (400, "access token name has been used already")
    );
    let cases = [
        (
            json!({"name": "a", "scopes": []}),
            400,
            "access token must have a scope",
        ),
        (
            json!({"name": "b", "scopes": ["read:everything"]}),
            400,
            "invalid access token scope",
        ),
        (json!({"name": "", "scopes": ["all"]}), 422, "name"),
        (
            json!({"name": "c", "scopes": "all"}),
            422,
            "scopes: invalid type",
        ),
        (
            json!({"name": "d", "scopes": ["all"], "team": "no-such-org-1"}),
            422,
            "team",
        ),
    ];
    for (body, status, text) in cases {
        let r = api
            .call(
                "POST",
                &path,
                Auth::Basic(&u.name, &u.password),
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, status, "{body}: {:?}", r.body);
        assert!(r.message().contains(text), "{body}: {:?}", r.body);
    }
}

#[tokio::test]
async fn scopes_are_checked_before_anything_else() {
    let api = Api::from_env();
    let u = api.new_user("scoped").await;
    let read_user = api.token(&u.name, &u.password, &["read:user"]).await;
    let issues_only = api.token(&u.name, &u.password, &["write:issue"]).await;

    assert_eq!(
        api.call("GET", "/api/v1/user", Auth::Token(&read_user), None)
            .await
            .status,
        200
    );
    let r = api
        .call("GET", "/api/v1/user", Auth::Token(&issues_only), None)
        .await;
    assert_eq!(r.status, 403);
    assert_eq!(
        r.message(),
        "token does not have at least one of required scope(s), required=[read:user], token scope=write:issue"
    );
    // Write needs write: read:user may not block anyone; the target not
    // existing does not matter, the scope is checked first.
    let r = api
        .call(
            "PUT",
            "/api/v1/user/blocks/nobody-at-all",
            Auth::Token(&read_user),
            None,
        )
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = api
        .call(
            "POST",
            "/api/v1/orgs",
            Auth::Token(&read_user),
            Some(json!({"username": unique("org")})),
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(
        r.message().contains("required=[write:organization]"),
        "{:?}",
        r.body
    );
    // Passwords are not scope-limited.
    let r = api
        .call(
            "POST",
            "/api/v1/orgs",
            Auth::Basic(&u.name, &u.password),
            Some(json!({"username": unique("org")})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}

#[tokio::test]
async fn only_site_admins_create_users() {
    let api = Api::from_env();
    let u = api.new_user("plain").await;
    let name = unique("x");
    let body = json!({"username": name, "email": format!("{name}@example.com")});
    let r = api
        .call(
            "POST",
            "/api/v1/admin/users",
            Auth::Token(&u.token),
            Some(body.clone()),
        )
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
    let r = api
        .call("POST", "/api/v1/admin/users", Auth::None, Some(body))
        .await;
    assert_eq!((r.status, r.message()), (401, "token is required"));
    let r = api
        .call("GET", &format!("/api/v1/users/{name}"), api.admin(), None)
        .await;
    assert_eq!(r.status, 404, "nothing was created");
    assert_eq!(r.body["errors"], serde_json::Value::Null);
}
