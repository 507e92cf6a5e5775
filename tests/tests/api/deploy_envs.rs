//! Environment variables of applications, in Coolify's shapes: create,
//! list, update by key and scope, bulk, delete; who sees values; values
//! sealed at rest; bounds, bad input and concurrent creates.

use api_tests::{Auth, deploy::Team, items_under};
use aws_sdk_dynamodb::types::AttributeValue;
use serde_json::{Value, json};
use shared::db::keys;

fn envs(app: &str) -> String {
    format!("/applications/{app}/envs")
}

/// The stored items of `app`'s variables and key guards.
async fn stored(t: &Team, app: &str) -> Vec<std::collections::HashMap<String, AttributeValue>> {
    let pk = keys::deploy_team_pk(&t.user.name);
    let mut all = items_under(&pk, &format!("ENV#{app}#")).await;
    all.extend(items_under(&pk, &format!("ENVKEY#{app}#")).await);
    all
}

fn holds(v: &AttributeValue, needle: &str) -> bool {
    match v {
        AttributeValue::S(s) => s.contains(needle),
        AttributeValue::M(m) => m.values().any(|x| holds(x, needle)),
        AttributeValue::L(l) => l.iter().any(|x| holds(x, needle)),
        _ => false,
    }
}

fn by_key<'a>(list: &'a Value, key: &str, preview: bool) -> &'a Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == key && e["is_preview"] == preview)
        .unwrap_or_else(|| panic!("{key} ({preview}) in {list}"))
}

#[tokio::test]
async fn variables_are_created_listed_updated_and_deleted_as_coolify_does() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let r = t
        .post(
            &envs(&app),
            json!({"key": "DATABASE_URL", "value": "postgres://u:pw@db/x"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body.as_object().unwrap().len(), 1, "{}", r.body);

    // The same key again in the same scope is Coolify's 409; in the
    // preview scope it is another variable.
    let again = t
        .post(&envs(&app), json!({"key": "DATABASE_URL", "value": "x"}))
        .await;
    assert_eq!(again.status, 409);
    assert_eq!(
        again.message(),
        "Environment variable already exists. Use PATCH request to update it."
    );
    let preview = t
        .post(&envs(&app), json!({"key": "DATABASE_URL", "value": "pr", "is_preview": true, "is_buildtime": false, "comment": "for previews"}))
        .await;
    assert_eq!(preview.status, 201, "{:?}", preview.body);

    let list = t.get(&envs(&app)).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body.as_array().unwrap().len(), 2);
    let regular = by_key(&list.body, "DATABASE_URL", false);
    assert_eq!(regular["uuid"], json!(uuid));
    assert_eq!(regular["value"], "postgres://u:pw@db/x");
    assert_eq!(regular["real_value"], "postgres://u:pw@db/x");
    for (flag, want) in [
        ("is_literal", false),
        ("is_multiline", false),
        ("is_shown_once", false),
        ("is_runtime", true),
        ("is_buildtime", true),
    ] {
        assert_eq!(regular[flag], want, "{flag}: {regular}");
    }
    let p = by_key(&list.body, "DATABASE_URL", true);
    assert_eq!(
        (p["value"].as_str(), p["is_buildtime"].as_bool()),
        (Some("pr"), Some(false))
    );
    assert_eq!(p["comment"], "for previews");

    // PATCH matches on key and scope, answers 201 with the variable.
    let up = t
        .patch(
            &envs(&app),
            json!({"key": "DATABASE_URL", "value": "postgres://new", "is_literal": true}),
        )
        .await;
    assert_eq!(up.status, 201, "{:?}", up.body);
    assert_eq!(
        (up.body["uuid"].as_str(), up.body["value"].as_str()),
        (Some(uuid.as_str()), Some("postgres://new"))
    );
    assert_eq!(up.body["is_literal"], true);
    let list = t.get(&envs(&app)).await;
    assert_eq!(by_key(&list.body, "DATABASE_URL", true)["value"], "pr");
    let missing = t
        .patch(&envs(&app), json!({"key": "NOPE", "value": "1"}))
        .await;
    assert_eq!(
        (missing.status, missing.message()),
        (404, "Environment variable not found.")
    );
    let wrong_scope = t
        .patch(
            &envs(&app),
            json!({"key": "OTHER", "value": "1", "is_preview": true}),
        )
        .await;
    assert_eq!(wrong_scope.status, 404);

    let gone = t.delete(&format!("{}/{uuid}", envs(&app))).await;
    assert_eq!(
        (gone.status, gone.message()),
        (200, "Environment variable deleted.")
    );
    for again in [
        uuid.as_str(),
        "not-a-uuid",
        "00000000-0000-4000-8000-000000000000",
    ] {
        let r = t.delete(&format!("{}/{again}", envs(&app))).await;
        assert_eq!(
            (r.status, r.message()),
            (404, "Environment variable not found."),
            "{again}"
        );
    }
    let list = t.get(&envs(&app)).await;
    assert_eq!(list.body.as_array().unwrap().len(), 1);
    // The key is free again.
    assert_eq!(
        t.post(&envs(&app), json!({"key": "DATABASE_URL", "value": "v2"}))
            .await
            .status,
        201
    );

    // Another team's application, or none, is a 404.
    let other = Team::new().await;
    for path in [envs(&app), envs("00000000-0000-4000-8000-000000000000")] {
        let r = other.get(&path).await;
        assert_eq!(
            (r.status, r.message()),
            (404, "Application not found."),
            "{path}"
        );
        let r = other.post(&path, json!({"key": "K", "value": "v"})).await;
        assert_eq!(r.status, 404);
    }
}

#[tokio::test]
async fn who_sees_values_follows_the_token_abilities() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    assert_eq!(
        t.post(
            &envs(&app),
            json!({"key": "API_KEY", "value": "s3cret-value"})
        )
        .await
        .status,
        201
    );
    assert_eq!(
        t.post(
            &envs(&app),
            json!({"key": "ONCE", "value": "once-value", "is_shown_once": true})
        )
        .await
        .status,
        201
    );
    // (abilities, GET status, sees values, may write)
    let table: [(&[&str], u16, bool, bool); 6] = [
        (&["root"], 200, true, true),
        (&["read", "read:sensitive"], 200, true, false),
        (&["read"], 200, false, false),
        (&["read:sensitive"], 403, false, false),
        (&["deploy"], 403, false, false),
        (&["write"], 403, false, true),
    ];
    for (abilities, get_status, sees, writes) in table {
        let token = t.token_with(abilities).await;
        let r = t.call_as(&token, "GET", &envs(&app), None).await;
        assert_eq!(r.status, get_status, "{abilities:?}: {:?}", r.body);
        if r.status == 200 {
            let api_key = by_key(&r.body, "API_KEY", false);
            assert_eq!(
                api_key.get("value").is_some(),
                sees,
                "{abilities:?}: {api_key}"
            );
            assert_eq!(api_key.get("real_value").is_some(), sees, "{abilities:?}");
            // Shown once: never, whoever asks.
            let once = by_key(&r.body, "ONCE", false);
            assert!(
                once.get("value").is_none() && once.get("real_value").is_none(),
                "{abilities:?}"
            );
        }
        let key = format!("K_{}", abilities.join("_").replace(':', "_"));
        let w = t
            .call_as(
                &token,
                "POST",
                &envs(&app),
                Some(json!({"key": key, "value": "v"})),
            )
            .await;
        assert_eq!(
            w.status == 201,
            writes,
            "{abilities:?}: {} {:?}",
            w.status,
            w.body
        );
        if !writes {
            assert_eq!(w.status, 403, "{abilities:?}");
        }
    }
    // An update answers the value only to who may see it, and a shown-once
    // variable stays hidden even when an update leaves the flag out.
    let write = t.token_with(&["write"]).await;
    let up = t
        .call_as(
            &write,
            "PATCH",
            &envs(&app),
            Some(json!({"key": "API_KEY", "value": "rotated"})),
        )
        .await;
    assert_eq!(up.status, 201, "{:?}", up.body);
    assert!(up.body.get("value").is_none(), "{}", up.body);
    let up = t
        .patch(&envs(&app), json!({"key": "ONCE", "value": "once-2"}))
        .await;
    assert_eq!(
        (up.status, up.body["is_shown_once"].as_bool()),
        (201, Some(true))
    );
    assert!(up.body.get("value").is_none(), "{}", up.body);
    // Without credentials, nothing.
    let anon = t
        .api
        .call("GET", &format!("/api/v1{}", envs(&app)), Auth::None, None)
        .await;
    assert_eq!(anon.status, 401);
}

#[tokio::test]
async fn values_are_sealed_at_rest() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let secret = "correct horse battery staple";
    let multi = "-----BEGIN KEY-----\nline two\n-----END KEY-----";
    t.post(&envs(&app), json!({"key": "PASSPHRASE", "value": secret}))
        .await;
    t.post(
        &envs(&app),
        json!({"key": "PEM", "value": multi, "is_multiline": true}),
    )
    .await;
    let items = stored(&t, &app).await;
    assert_eq!(items.len(), 4, "two variables and their key guards");
    let sealed: Vec<&str> = items
        .iter()
        .filter_map(|i| i.get("sealed_value").and_then(|v| v.as_s().ok()))
        .map(String::as_str)
        .collect();
    assert_eq!(sealed.len(), 2);
    assert!(sealed.iter().all(|s| s.starts_with("s1:")), "{sealed:?}");
    for i in &items {
        for v in i.values() {
            assert!(!holds(v, secret) && !holds(v, "line two"), "{i:?}");
        }
    }
    // The keys are not stored in the guards either: only their hashes.
    assert!(
        items
            .iter()
            .filter(|i| i["sk"].as_s().unwrap().starts_with("ENVKEY#"))
            .all(|i| !holds(&i["sk"], "PASSPHRASE"))
    );
    let list = t.get(&envs(&app)).await;
    assert_eq!(by_key(&list.body, "PEM", false)["value"], multi);
}

#[tokio::test]
async fn bad_input_is_named_and_changes_nothing() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    assert_eq!(
        t.post(&envs(&app), json!({"key": "KEEP", "value": "1"}))
            .await
            .status,
        201
    );
    let before = t.get(&envs(&app)).await.body;
    let cases = [
        (json!({"value": "v"}), "key"),
        (json!({"key": "1BAD", "value": "v"}), "key"),
        (json!({"key": "A-B", "value": "v"}), "key"),
        (json!({"key": "K".repeat(256), "value": "v"}), "key"),
        (json!({"key": "K", "value": 7}), "value"),
        (
            json!({"key": "K", "value": "v".repeat(32 * 1024 + 1)}),
            "value",
        ),
        (json!({"key": "K", "value": "nul\u{0}"}), "value"),
        (json!({"key": "K", "is_preview": "true"}), "is_preview"),
        (json!({"key": "K", "is_runtime": 1}), "is_runtime"),
        (json!({"key": "K", "comment": "c".repeat(257)}), "comment"),
        (json!({"key": "K", "resourceable_id": 3}), "resourceable_id"),
    ];
    for (body, field) in cases {
        for method in ["POST", "PATCH"] {
            let r = t.call(method, &envs(&app), Some(body.clone())).await;
            assert_eq!(r.status, 400, "{method} {body}: {:?}", r.body);
            assert!(
                r.body["errors"][field].is_array(),
                "{method} {field}: {}",
                r.body
            );
        }
    }
    let r = t
        .api
        .raw(
            "POST",
            &format!("/api/v1{}", envs(&app)),
            Auth::Bearer(&t.token),
            Some("application/json"),
            b"{\"key\":".to_vec(),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    let r = t.post(&envs(&app), json!(["KEY"])).await;
    assert_eq!(r.status, 400, "{:?}", r.body);

    // Bulk: the entries are checked before anything is written.
    let r = t.patch(&format!("{}/bulk", envs(&app)), json!({})).await;
    assert_eq!((r.status, r.message()), (400, "Bulk data is required."));
    let r = t
        .patch(&format!("{}/bulk", envs(&app)), json!({"data": []}))
        .await;
    assert_eq!(r.status, 400);
    let r = t
        .patch(
            &format!("{}/bulk", envs(&app)),
            json!({"data": [{"key": "NEW", "value": "1"}, {"key": "9"}, "x"], "extra": 1}),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    for field in ["data.1.key", "data.2", "extra"] {
        assert!(r.body["errors"][field].is_array(), "{field}: {}", r.body);
    }
    assert_eq!(t.get(&envs(&app)).await.body, before);
}

#[tokio::test]
async fn bulk_updates_existing_keys_and_creates_the_rest() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let first = t
        .post(
            &envs(&app),
            json!({"key": "A", "value": "1", "comment": "kept"}),
        )
        .await;
    let a_uuid = first.body["uuid"].as_str().unwrap().to_string();
    let r = t
        .patch(
            &format!("{}/bulk", envs(&app)),
            json!({"data": [
                {"key": "A", "value": "one"},
                {"key": "B", "value": "2", "is_runtime": false},
                {"key": "B", "value": "two"},
                {"key": "A", "value": "pr", "is_preview": true},
            ]}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(r.body.as_array().unwrap().len(), 3, "{}", r.body);
    let list = t.get(&envs(&app)).await.body;
    assert_eq!(list.as_array().unwrap().len(), 3);
    let a = by_key(&list, "A", false);
    assert_eq!(
        (
            a["uuid"].as_str(),
            a["value"].as_str(),
            a["comment"].as_str()
        ),
        (Some(a_uuid.as_str()), Some("one"), Some("kept"))
    );
    // Of two entries for one key, the last wins.
    let b = by_key(&list, "B", false);
    assert_eq!(
        (b["value"].as_str(), b["is_runtime"].as_bool()),
        (Some("two"), Some(true))
    );
    assert_eq!(by_key(&list, "A", true)["value"], "pr");
}

#[tokio::test]
async fn an_application_holds_a_bounded_number_and_size_of_values() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    // 200 in two bulk requests (each more than one transaction).
    for half in 0..2 {
        let data: Vec<Value> = (0..100)
            .map(|i| json!({"key": format!("K{}", half * 100 + i), "value": "v"}))
            .collect();
        let r = t
            .patch(&format!("{}/bulk", envs(&app)), json!({"data": data}))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    assert_eq!(t.get(&envs(&app)).await.body.as_array().unwrap().len(), 200);
    let over = t
        .post(&envs(&app), json!({"key": "ONE_MORE", "value": "v"}))
        .await;
    assert_eq!(over.status, 400, "{:?}", over.body);
    assert!(over.message().contains("at most 200"), "{}", over.message());
    // Updating one of them is still fine; deleting one frees a place.
    assert_eq!(
        t.patch(&envs(&app), json!({"key": "K7", "value": "w"}))
            .await
            .status,
        201
    );
    let k0 = by_key(&t.get(&envs(&app)).await.body, "K0", false)["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(t.delete(&format!("{}/{k0}", envs(&app))).await.status, 200);
    assert_eq!(
        t.post(&envs(&app), json!({"key": "ONE_MORE", "value": "v"}))
            .await
            .status,
        201
    );

    // Bytes: eight values of 32,000 bytes fit in 256 KiB; a ninth does not.
    let app = t.app(json!({})).await;
    let big = "x".repeat(32_000);
    for i in 0..8 {
        assert_eq!(
            t.post(&envs(&app), json!({"key": format!("BIG{i}"), "value": big}))
                .await
                .status,
            201
        );
    }
    let r = t
        .post(&envs(&app), json!({"key": "BIG8", "value": big}))
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    // A smaller value for an existing key makes room.
    assert_eq!(
        t.patch(&envs(&app), json!({"key": "BIG0", "value": "small"}))
            .await
            .status,
        201
    );
    assert_eq!(
        t.post(&envs(&app), json!({"key": "BIG8", "value": big}))
            .await
            .status,
        201
    );
    let list = t.get(&envs(&app)).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body.as_array().unwrap().len(), 9);
}

#[tokio::test]
async fn concurrent_creates_of_one_key_make_one_variable() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let path = envs(&app);
    let calls = (0..8).map(|i| {
        let (t, path) = (&t, path.clone());
        async move {
            t.post(&path, json!({"key": "RACE", "value": format!("v{i}")}))
                .await
                .status
        }
    });
    let mut statuses = futures::future::join_all(calls).await;
    statuses.sort();
    assert_eq!(statuses, [201, 409, 409, 409, 409, 409, 409, 409]);
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn deleting_an_application_removes_its_variables() {
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    t.post(&envs(&app), json!({"key": "A", "value": "1"})).await;
    t.post(&envs(&app), json!({"key": "B", "value": "2"})).await;
    assert_eq!(stored(&t, &app).await.len(), 4);
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    assert!(stored(&t, &app).await.is_empty());
    let pk = keys::deploy_team_pk(&t.user.name);
    assert!(items_under(&pk, &format!("ENVS#{app}")).await.is_empty());
    assert_eq!(t.get(&envs(&app)).await.status, 404);
}
