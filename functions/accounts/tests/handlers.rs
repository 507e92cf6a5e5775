//! In-process handler tests: each test gets its own table on DynamoDB
//! Local and calls the function's handler directly, as Lambda would.

use accounts::Api;
use serde_json::json;
use shared::{
    accounts::{blocks, teams, users},
    http::handle,
    testing::{self, parts, request},
};

#[tokio::test]
async fn admin_creates_users_and_others_may_not() {
    let app = testing::app().await;
    let (_, admin) = testing::seed_user(&app, "boss", true, &["all"]).await;
    let (_, plain) = testing::seed_user(&app, "pleb", false, &["all"]).await;

    let body = json!({"username": "Carol", "email": "carol@example.com", "full_name": "Carol C", "visibility": "limited"});
    let (status, user) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/admin/users",
        Some(&admin),
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 201, "{user}");
    assert_eq!(user["login"], "Carol");
    assert_eq!(user["username"], "Carol");
    assert_eq!(user["visibility"], "limited");
    assert_eq!(user["email"], "carol@example.com");
    let stored = users::get(&app.db, "carol").await.unwrap().expect("stored");
    assert_eq!(stored.full_name, "Carol C");
    assert!(stored.password_hash.is_none());

    let (status, err) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/admin/users",
        Some(&admin),
        Some(body),
    )
    .await;
    assert_eq!(
        (status, err["message"].as_str().unwrap()),
        (422, "user already exists [name: Carol]")
    );

    let other = json!({"username": "dave", "email": "CAROL@example.com"});
    let (status, err) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/admin/users",
        Some(&admin),
        Some(other),
    )
    .await;
    assert_eq!(status, 422, "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("e-mail already in use")
    );
    assert!(
        users::get(&app.db, "dave").await.unwrap().is_none(),
        "nothing half written"
    );

    let body = json!({"username": "eve", "email": "eve@example.com"});
    let (status, _) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/admin/users",
        Some(&plain),
        Some(body.clone()),
    )
    .await;
    assert_eq!(status, 403);
    let (status, err) =
        testing::call::<Api>(&app, "POST", "/api/v1/admin/users", None, Some(body)).await;
    assert_eq!(
        (status, err["message"].as_str().unwrap()),
        (401, "token is required")
    );
    assert!(users::get(&app.db, "eve").await.unwrap().is_none());
}

#[tokio::test]
async fn bad_user_input_is_a_422_naming_the_problem() {
    let app = testing::app().await;
    let (_, admin) = testing::seed_user(&app, "boss", true, &["all"]).await;
    let cases: &[(&str, &str)] = &[
        ("{\"username\": \"x\"", "malformed JSON"),
        ("[]", "must be a JSON object"),
        (
            "{\"username\": 5, \"email\": \"a@b.io\"}",
            "username: invalid type: integer `5`",
        ),
        ("{\"email\": \"a@b.io\"}", "missing field `username`"),
        (
            "{\"username\": \"ok\", \"email\": \"nope\"}",
            "email: is not a valid e-mail address",
        ),
        (
            "{\"username\": \"-bad\", \"email\": \"a@b.io\"}",
            "username: must start and end",
        ),
        (
            "{\"username\": \"ok\", \"email\": \"a@b.io\", \"visibility\": \"secret\"}",
            "visibility: must be public",
        ),
        (
            "{\"username\": \"ok\", \"email\": \"a@b.io\", \"restricted\": \"yes\"}",
            "restricted: invalid type",
        ),
        ("", "request body is required"),
    ];
    for (body, want) in cases {
        let res = handle::<Api>(
            &app,
            request("POST", "/api/v1/admin/users", Some(&admin), Some(body)),
        )
        .await;
        let (status, err) = parts(&res);
        assert_eq!(status, 422, "body {body:?} → {err}");
        let msg = err["message"].as_str().unwrap_or_default();
        assert!(
            msg.contains(want),
            "body {body:?}: message {msg:?} should contain {want:?}"
        );
    }
    assert!(
        users::get(&app.db, "ok").await.unwrap().is_none(),
        "no bad request wrote anything"
    );
}

#[tokio::test]
async fn users_are_shown_according_to_visibility() {
    let app = testing::app().await;
    let (_, viewer) = testing::seed_user(&app, "viewer", false, &["read:user"]).await;
    let (_, admin) = testing::seed_user(&app, "boss", true, &["all"]).await;
    for (name, vis) in [
        ("pub1", "public"),
        ("lim1", "limited"),
        ("priv1", "private"),
    ] {
        let body =
            json!({"username": name, "email": format!("{name}@example.com"), "visibility": vis});
        assert_eq!(
            testing::call::<Api>(
                &app,
                "POST",
                "/api/v1/admin/users",
                Some(&admin),
                Some(body)
            )
            .await
            .0,
            201
        );
    }
    let cases = [
        ("pub1", None, 200),
        ("lim1", None, 404),
        ("priv1", None, 404),
        ("pub1", Some(viewer.as_str()), 200),
        ("lim1", Some(viewer.as_str()), 200),
        ("priv1", Some(viewer.as_str()), 404),
        ("priv1", Some(admin.as_str()), 200),
        ("nobody", Some(admin.as_str()), 404),
    ];
    for (name, token, want) in cases {
        let (status, body) =
            testing::call::<Api>(&app, "GET", &format!("/api/v1/users/{name}"), token, None).await;
        assert_eq!(status, want, "GET {name} with {token:?}: {body}");
    }
    let (_, anon) = testing::call::<Api>(&app, "GET", "/api/v1/users/pub1", None, None).await;
    assert!(
        anon["email"]
            .as_str()
            .unwrap()
            .ends_with("+pub1@noreply.forge.test"),
        "{anon}"
    );
    assert_eq!(anon["is_admin"], false);
}

#[tokio::test]
async fn organisations_start_with_an_owners_team_holding_their_creator() {
    let app = testing::app().await;
    let (_, alice) = testing::seed_user(&app, "alice", false, &["write:organization"]).await;
    let (_, bob) = testing::seed_user(&app, "bob", false, &["write:organization"]).await;

    let (status, org) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&alice),
        Some(json!({"username": "acme", "visibility": "private"})),
    )
    .await;
    assert_eq!(status, 201, "{org}");
    assert_eq!(
        (org["name"].as_str(), org["visibility"].as_str()),
        (Some("acme"), Some("private"))
    );
    assert!(teams::is_owner(&app.db, "acme", "alice").await.unwrap());

    let (status, _) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&bob),
        Some(json!({"username": "ACME"})),
    )
    .await;
    assert_eq!(status, 422, "names are case-insensitive");
    let (status, _) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&bob),
        Some(json!({"username": "alice"})),
    )
    .await;
    assert_eq!(status, 422, "users and orgs share one namespace");

    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/orgs/acme", Some(&alice), None)
            .await
            .0,
        200
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/orgs/acme", Some(&bob), None)
            .await
            .0,
        404,
        "private org hidden"
    );
    assert_eq!(
        testing::call::<Api>(&app, "GET", "/api/v1/orgs/acme", None, None)
            .await
            .0,
        404
    );

    let (status, list) =
        testing::call::<Api>(&app, "GET", "/api/v1/orgs/acme/teams", Some(&alice), None).await;
    assert_eq!(status, 200);
    assert_eq!(list[0]["name"], "Owners");
    assert_eq!(list[0]["permission"], "owner");
    assert_eq!(list[0]["includes_all_repositories"], true);
}

#[tokio::test]
async fn teams_membership_and_the_last_owner() {
    let app = testing::app().await;
    let (_, alice) = testing::seed_user(&app, "alice", false, &["write:organization"]).await;
    let (_, bob) = testing::seed_user(&app, "bob", false, &["write:organization"]).await;
    testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&alice),
        Some(json!({"username": "acme"})),
    )
    .await;

    let team =
        json!({"name": "devs", "permission": "write", "units": ["repo.issues", "repo.pulls"]});
    let (status, devs) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs/acme/teams",
        Some(&alice),
        Some(team.clone()),
    )
    .await;
    assert_eq!(status, 201, "{devs}");
    assert_eq!(devs["units"], json!(["repo.issues", "repo.pulls"]));
    assert_eq!(devs["units_map"]["repo.issues"], "write");
    assert_eq!(devs["organization"]["name"], "acme");
    let id = devs["id"].as_i64().unwrap();

    assert_eq!(
        testing::call::<Api>(
            &app,
            "POST",
            "/api/v1/orgs/acme/teams",
            Some(&alice),
            Some(team)
        )
        .await
        .0,
        422,
        "duplicate name"
    );
    let bad = [
        json!({"name": "x", "permission": "owner"}),
        json!({"name": "x", "units": ["repo.nope"]}),
        json!({"name": "bad name"}),
    ];
    for body in bad {
        assert_eq!(
            testing::call::<Api>(
                &app,
                "POST",
                "/api/v1/orgs/acme/teams",
                Some(&alice),
                Some(body.clone())
            )
            .await
            .0,
            422,
            "{body}"
        );
    }
    assert_eq!(
        testing::call::<Api>(
            &app,
            "POST",
            "/api/v1/orgs/acme/teams",
            Some(&bob),
            Some(json!({"name": "y"}))
        )
        .await
        .0,
        403
    );

    let member = format!("/api/v1/teams/{id}/members/bob");
    assert_eq!(
        testing::call::<Api>(&app, "PUT", &member, Some(&bob), None)
            .await
            .0,
        404,
        "a team of an organisation bob is not in does not exist for him"
    );
    assert_eq!(
        testing::call::<Api>(&app, "PUT", &member, Some(&alice), None)
            .await
            .0,
        204
    );
    assert_eq!(
        testing::call::<Api>(&app, "PUT", &member, Some(&alice), None)
            .await
            .0,
        204,
        "idempotent"
    );
    assert!(teams::is_member(&app.db, "acme", "bob").await.unwrap());
    assert_eq!(teams::get(&app.db, id).await.unwrap().unwrap().members, 1);
    assert_eq!(
        testing::call::<Api>(
            &app,
            "GET",
            &format!("/api/v1/teams/{id}"),
            Some(&bob),
            None
        )
        .await
        .0,
        200
    );
    assert_eq!(
        testing::call::<Api>(&app, "PUT", &member, Some(&bob), None)
            .await
            .0,
        403,
        "a member sees the team; only owners add members"
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            &format!("/api/v1/teams/{id}/members/ghost9"),
            Some(&alice),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            "/api/v1/teams/999999/members/bob",
            Some(&alice),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            "/api/v1/teams/abc/members/bob",
            Some(&alice),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", &member, Some(&alice), None)
            .await
            .0,
        204
    );
    assert_eq!(
        testing::call::<Api>(&app, "DELETE", &member, Some(&alice), None)
            .await
            .0,
        404
    );
    assert!(!teams::is_member(&app.db, "acme", "bob").await.unwrap());

    let org = users::get(&app.db, "acme").await.unwrap().unwrap();
    let owners = org.owners_team.unwrap();
    let (status, err) = testing::call::<Api>(
        &app,
        "DELETE",
        &format!("/api/v1/teams/{owners}/members/alice"),
        Some(&alice),
        None,
    )
    .await;
    assert_eq!(status, 422, "{err}");
    assert!(teams::is_owner(&app.db, "acme", "alice").await.unwrap());
}

#[tokio::test]
async fn blocks_by_users_and_orgs() {
    let app = testing::app().await;
    let (_, alice) =
        testing::seed_user(&app, "alice", false, &["write:user", "write:organization"]).await;
    let (_, _bob) = testing::seed_user(&app, "bob", false, &["write:user"]).await;
    testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&alice),
        Some(json!({"username": "acme"})),
    )
    .await;

    assert_eq!(
        testing::call::<Api>(&app, "PUT", "/api/v1/user/blocks/bob", Some(&alice), None)
            .await
            .0,
        204
    );
    assert!(blocks::is_blocked(&app.db, "alice", "bob").await.unwrap());
    assert_eq!(
        testing::call::<Api>(&app, "PUT", "/api/v1/user/blocks/alice", Some(&alice), None)
            .await
            .0,
        400,
        "not yourself"
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            "/api/v1/user/blocks/nobody1",
            Some(&alice),
            None
        )
        .await
        .0,
        404
    );
    assert_eq!(
        testing::call::<Api>(&app, "PUT", "/api/v1/user/blocks/bob", None, None)
            .await
            .0,
        401
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "DELETE",
            "/api/v1/user/blocks/bob",
            Some(&alice),
            None
        )
        .await
        .0,
        204
    );
    assert_eq!(
        testing::call::<Api>(
            &app,
            "DELETE",
            "/api/v1/user/blocks/bob",
            Some(&alice),
            None
        )
        .await
        .0,
        400,
        "not blocked"
    );
    assert!(!blocks::is_blocked(&app.db, "alice", "bob").await.unwrap());

    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            "/api/v1/orgs/acme/blocks/bob",
            Some(&alice),
            None
        )
        .await
        .0,
        204
    );
    assert!(blocks::is_blocked(&app.db, "acme", "bob").await.unwrap());
    assert_eq!(
        testing::call::<Api>(
            &app,
            "PUT",
            "/api/v1/orgs/acme/blocks/alice",
            Some(&alice),
            None
        )
        .await
        .0,
        400,
        "members cannot be blocked"
    );
}

/// The token cache: a warm instance trusts what a token resolved to for
/// the TTL (a revocation elsewhere shows after it), and forgets at once
/// what it revokes itself.
#[tokio::test]
async fn token_cache_trades_a_short_delay_for_no_lookups() {
    use base64::Engine;
    // Long enough that a loaded machine (the black-box run's stream
    // consumer shares DynamoDB Local) still answers within it.
    let ttl = std::time::Duration::from_secs(4);
    let here = testing::app_with(|k| (k == "TOKEN_CACHE_TTL_SECONDS").then(|| "4".into())).await;
    let elsewhere = shared::http::App::new((*here.config).clone()).await;
    let (_, token) = testing::seed_user(&here, "cached", false, &["all"]).await;
    let me = |app: &shared::http::App| {
        let app = app.clone();
        let token = token.clone();
        async move {
            testing::call::<Api>(&app, "GET", "/api/v1/user", Some(&token), None)
                .await
                .0
        }
    };
    assert_eq!(me(&here).await, 200);

    // Revoked through another instance: still trusted here until the TTL.
    shared::accounts::tokens::delete(&elsewhere.db, "cached", "seed")
        .await
        .unwrap();
    assert_eq!(me(&elsewhere).await, 401, "the revoking instance at once");
    assert_eq!(me(&here).await, 200, "a warm instance within the TTL");
    tokio::time::sleep(ttl + std::time::Duration::from_millis(100)).await;
    assert_eq!(me(&here).await, 401, "after the TTL");

    // Revoked through this instance: forgotten at once.
    let (_, second) = testing::seed_user(&here, "cached2", false, &["all"]).await;
    let (status, _) = testing::call::<Api>(&here, "GET", "/api/v1/user", Some(&second), None).await;
    assert_eq!(status, 200);
    let mut revoke = request("DELETE", "/api/v1/users/cached2/tokens/seed", None, None);
    let basic = base64::engine::general_purpose::STANDARD.encode("cached2:cached2-password");
    revoke
        .headers_mut()
        .insert("authorization", format!("Basic {basic}").parse().unwrap());
    assert_eq!(parts(&handle::<Api>(&here, revoke).await).0, 204);
    let (status, _) = testing::call::<Api>(&here, "GET", "/api/v1/user", Some(&second), None).await;
    assert_eq!(status, 401, "the same instance at once");
}

/// A team the caller may not see costs the same DynamoDB calls as a
/// missing one, and fails the same way: the work behind an answer tells
/// no more than the answer.
#[tokio::test]
async fn hidden_teams_cost_what_missing_ones_cost() {
    use shared::accounts::principal::{Caller, Principal, Via};
    let app = testing::app().await;
    let (_, owner) = testing::seed_user(&app, "hushowner", false, &["all"]).await;
    let (stranger, _) = testing::seed_user(&app, "hushstranger", false, &["all"]).await;
    let (status, org) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs",
        Some(&owner),
        Some(json!({"username": "hushorg", "visibility": "private"})),
    )
    .await;
    assert_eq!(status, 201, "{org}");
    let (status, team) = testing::call::<Api>(
        &app,
        "POST",
        "/api/v1/orgs/hushorg/teams",
        Some(&owner),
        Some(json!({"name": "core", "permission": "read"})),
    )
    .await;
    assert_eq!(status, 201, "{team}");
    let id = team["id"].as_i64().expect("team id");
    let caller = Caller::User(Box::new(Principal {
        user: stranger,
        via: Via::Password,
    }));
    let mut seen = Vec::new();
    for asked in [id, id + 1_000] {
        let db = app.db.for_request();
        let err = teams::find(&db, &caller, asked)
            .await
            .err()
            .map(|e| e.to_string().replace(&asked.to_string(), "N"));
        seen.push((err, db.metrics().calls));
    }
    assert_eq!(seen[0], seen[1], "hidden, then missing");
    assert_eq!(seen[0].0.as_deref(), Some("no team N"), "{seen:?}");
}

/// With no `ROOT_URL`, links come from the domain API Gateway's request
/// context names, never from the `Host` or `X-Forwarded-Proto` a client
/// sends (every route's configuration is made in one place,
/// `http::request::config_for`: `url` fields and `Link` headers alike).
#[tokio::test]
async fn urls_ignore_forged_host_headers() {
    let app = testing::app_with(|k| (k == "ROOT_URL").then(String::new)).await;
    let (user, token) = testing::seed_user(&app, "linker", false, &["all"]).await;
    let forged = json!({
        "authorization": format!("token {token}"),
        "host": "evil.example",
        "x-forwarded-proto": "http",
        "x-forwarded-host": "evil.example",
    });
    let ask =
        |path: &str| testing::gateway_event("GET", path, forged.clone(), "api.forge.test", b"");
    let res = handle::<Api>(&app, ask("/api/v1/user")).await;
    let (status, me) = parts(&res);
    assert_eq!(status, 200, "{me}");
    assert_eq!(
        me["html_url"],
        json!(format!("https://api.forge.test/{}", user.name))
    );
    let res = handle::<Api>(&app, ask(&format!("/api/v1/users/{}", user.name))).await;
    let (status, seen) = parts(&res);
    assert_eq!(status, 200, "{seen}");
    for text in [me.to_string(), seen.to_string()] {
        assert!(!text.contains("evil.example"), "{text}");
    }
}
