//! Deploy keys and provider apps: checked, never shown, counted while in
//! use.

use api_tests::{
    deploy::{Team, infra::*},
    unique,
};
use serde_json::{Value, json};

#[tokio::test]
async fn deploy_keys_are_checked_and_never_shown() {
    let t = Team::new().await;
    let bad = "The private key must be a PEM-encoded private key (-----BEGIN … PRIVATE KEY-----).";
    let good = fresh_pem();
    let body = pem_body(&good);
    let cases = [
        (json!("not a key"), bad),
        (
            json!(format!(
                "-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----"
            )),
            bad,
        ),
        (
            json!(format!(
                "-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
            )),
            bad,
        ),
        (
            json!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n!!!not base64!!!\n-----END OPENSSH PRIVATE KEY-----"
            ),
            bad,
        ),
        (
            json!("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----"),
            bad,
        ),
        (
            json!(format!("-----BEGIN OPENSSH PRIVATE KEY-----\n{body}")),
            bad,
        ),
        (
            json!(format!(
                "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n{body}\n-----END RSA PRIVATE KEY-----"
            )),
            "The private key must not be protected by a passphrase.",
        ),
        (json!(""), "This field is required."),
        (json!(42), "The private key field must be a string."),
    ];
    for (pem, expected) in cases {
        let r = t
            .post("/security/keys", json!({"name": "k", "private_key": pem}))
            .await;
        assert_eq!(r.status, 400, "{pem}: {:?}", r.body);
        assert_eq!(r.body, invalid(json!({"private_key": [expected]})), "{pem}");
    }
    let r = t
        .post(
            "/security/keys",
            json!({"private_key": good, "passphrase": "x"}),
        )
        .await;
    assert_eq!(
        r.body,
        invalid(
            json!({"name": ["This field is required."], "passphrase": ["This field is not allowed."]})
        )
    );
    assert_eq!(count(&t.get("/security/keys").await), 1, "nothing stored");

    // A good key: the 201, the read and the list never carry its text.
    let r = t
        .post(
            "/security/keys",
            json!({"name": "good", "description": "ci", "private_key": good}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": uuid}));
    let one = t.get(&format!("/security/keys/{uuid}")).await;
    assert_eq!(one.status, 200);
    assert_eq!(
        (
            &one.body["uuid"],
            &one.body["name"],
            &one.body["description"]
        ),
        (&json!(uuid), &json!("good"), &json!("ci"))
    );
    let digest = one.body["digest"].as_str().expect("digest").to_string();
    assert!(
        digest.starts_with("SHA256:") && digest.len() > 40,
        "{digest}"
    );
    assert!(one.body.get("private_key").is_none(), "{:?}", one.body);
    let list = t.get("/security/keys").await;
    for text in [one.body.to_string(), list.body.to_string()] {
        assert!(!text.contains(&body), "key text leaked: {text}");
        assert!(!text.contains("PRIVATE KEY"), "key text leaked: {text}");
        assert!(!text.contains("\"private_key\""), "{text}");
    }
    let listed = list
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["uuid"] == json!(uuid))
        .unwrap()
        .clone();
    assert_eq!(listed, one.body);

    // The digest identifies the key text: same text, same digest.
    let again = t
        .created(
            "/security/keys",
            json!({"name": "again", "private_key": format!("  {good}  ")}),
        )
        .await;
    assert_eq!(
        t.get(&format!("/security/keys/{again}")).await.body["digest"],
        json!(digest)
    );
    let other = t
        .created(
            "/security/keys",
            json!({"name": "other", "private_key": fresh_pem()}),
        )
        .await;
    assert_ne!(
        t.get(&format!("/security/keys/{other}")).await.body["digest"],
        json!(digest)
    );

    // Listed by name.
    let names: Vec<Value> = t
        .get("/security/keys")
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![
            json!("again"),
            json!("deploy key"),
            json!("good"),
            json!("other")
        ]
    );
}

#[tokio::test]
async fn keys_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let in_use = message("Private Key is in use by a server, an application or a provider app.");
    // Used by the team's server.
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!((r.status, &r.body), (400, &in_use));
    assert_eq!(
        t.get(&format!("/security/keys/{}", t.key)).await.status,
        200
    );

    // Used by a deploy-key application until it is deleted.
    let k = t
        .created(
            "/security/keys",
            json!({"name": "repo key", "private_key": fresh_pem()}),
        )
        .await;
    let r = t
        .post(
            "/applications/private-deploy-key",
            t.body(json!({"private_key_uuid": k, "git_repository": "git@github.com:coollabsio/coolify-examples.git",
                          "git_branch": "main", "build_pack": "nixpacks", "ports_exposes": "3000", "autogenerate_domain": false})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let r = t.delete(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, &r.body), (400, &in_use));
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);

    // An unused key deletes, once.
    let r = t.delete(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, r.body), (200, message("Private Key deleted.")));
    let r = t.get(&format!("/security/keys/{k}")).await;
    assert_eq!((r.status, r.body), (404, not_found("Private Key")));
    assert_eq!(t.delete(&format!("/security/keys/{k}")).await.status, 404);
    assert_eq!(
        uuids(&t.get("/security/keys").await.body),
        vec![t.key.clone()]
    );
    // A deleted key cannot be used.
    let r = t
        .post(
            "/servers",
            json!({"name": "s", "ip": "198.51.100.40", "private_key_uuid": k}),
        )
        .await;
    assert_eq!(
        r.body,
        invalid(json!({"private_key_uuid": ["Private Key not found."]}))
    );
}

#[tokio::test]
async fn provider_apps_hide_their_secrets() {
    let t = Team::new().await;
    let (secret, hook) = (unique("clientsecret"), unique("webhooksecret"));
    let mut created = Vec::new();
    for path in ["/provider-apps", "/github-apps"] {
        let body = provider_app_body(&t, &secret, &hook);
        let r = t.post(path, body.clone()).await;
        assert_eq!(r.status, 201, "{path}: {:?}", r.body);
        let text = r.body.to_string();
        assert!(
            !text.contains(&secret) && !text.contains(&hook),
            "secret in {text}"
        );
        assert!(
            r.body.get("client_secret").is_none() && r.body.get("webhook_secret").is_none(),
            "{text}"
        );
        for field in [
            "name",
            "api_url",
            "html_url",
            "app_id",
            "installation_id",
            "client_id",
            "private_key_uuid",
        ] {
            assert_eq!(r.body[field], body[field], "{path} {field}");
        }
        assert_eq!(
            (&r.body["custom_user"], &r.body["custom_port"]),
            (&json!("git"), &json!(22))
        );
        created.push(r.body.clone());
    }
    let a = t.get("/provider-apps").await;
    let b = t.get("/github-apps").await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body, b.body, "one list, two names");
    let mut expected = created.clone();
    expected.sort_by(|x, y| x["name"].as_str().cmp(&y["name"].as_str()));
    assert_eq!(
        a.body,
        json!(expected),
        "the list shows what the creates returned"
    );
    let text = a.body.to_string();
    assert!(
        !text.contains(&secret) && !text.contains(&hook),
        "secret in {text}"
    );
    // Not even a token that may read secrets (`read:sensitive`) gets them.
    let sensitive = t.token_with(&["read", "read:sensitive"]).await;
    let text = t
        .call_as(&sensitive, "GET", "/provider-apps", None)
        .await
        .body
        .to_string();
    assert!(
        !text.contains(&secret) && !text.contains(&hook),
        "secret in {text}"
    );

    // The key is now in use by the provider apps.
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        400
    );
}

#[tokio::test]
async fn provider_app_bodies_are_validated() {
    let t = Team::new().await;
    let base = provider_app_body(&t, "s", "h");
    let url = "The value must be an http(s) URL.";
    let mut cases = Vec::new();
    for required in [
        "name",
        "api_url",
        "html_url",
        "app_id",
        "installation_id",
        "client_id",
        "client_secret",
        "private_key_uuid",
    ] {
        cases.push((
            with(base.clone(), json!({ format!("-{required}"): null })),
            json!({ required: ["This field is required."] }),
        ));
    }
    cases.extend([
        (with(base.clone(), json!({"api_url": "api.github.com"})), json!({"api_url": [url]})),
        (with(base.clone(), json!({"html_url": "javascript:alert(1)"})), json!({"html_url": [url]})),
        (with(base.clone(), json!({"app_id": "12"})), json!({"app_id": ["The app id field must be an integer."]})),
        (
            with(base.clone(), json!({"installation_id": 0})),
            json!({"installation_id": [format!("The installation id field must be between 1 and {}.", i64::MAX)]}),
        ),
        (with(base.clone(), json!({"custom_port": 70000})), json!({"custom_port": ["The custom port field must be between 1 and 65535."]})),
        (with(base.clone(), json!({"client_secret": 5})), json!({"client_secret": ["The client secret field must be a string."]})),
        (with(base.clone(), json!({"is_system_wide": true})), json!({"is_system_wide": ["This field is not allowed."]})),
        (with(base.clone(), json!({"private_key_uuid": nobody()})), json!({"private_key_uuid": ["Private Key not found."]})),
    ]);
    for (body, errors) in cases {
        for path in ["/provider-apps", "/github-apps"] {
            let r = t.post(path, body.clone()).await;
            assert_eq!(r.status, 400, "{path} {body}: {:?}", r.body);
            assert_eq!(r.body, invalid(errors.clone()), "{path} {body}");
        }
    }
    assert_eq!(count(&t.get("/provider-apps").await), 0, "nothing stored");
    // No refused create holds the key.
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200
    );
}

#[tokio::test]
async fn applications_are_created_through_a_provider_app() {
    let t = Team::new().await;
    let pa = t
        .created("/provider-apps", provider_app_body(&t, "s", "h"))
        .await;
    let body = |provider: &str| {
        t.body(json!({
            "provider_app_uuid": provider,
            "git_repository": "coollabsio/coolify-examples",
            "git_branch": "main",
            "build_pack": "nixpacks",
            "ports_exposes": "3000",
            "autogenerate_domain": false,
        }))
    };
    let mut apps = Vec::new();
    for path in [
        "/applications/private-provider-app",
        "/applications/private-github-app",
    ] {
        let r = t.post(path, body(&pa)).await;
        assert_eq!(r.status, 201, "{path}: {:?}", r.body);
        let uuid = r.body["uuid"].as_str().unwrap().to_string();
        let got = t.get(&format!("/applications/{uuid}")).await;
        assert_eq!(got.status, 200);
        assert_eq!(got.body["provider_app_uuid"], json!(pa));
        apps.push(uuid);
    }
    let before = count(&t.get("/applications").await);
    for unknown in [nobody(), "nope".to_string()] {
        let r = t
            .post("/applications/private-provider-app", body(&unknown))
            .await;
        assert_eq!(r.status, 400, "{unknown}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(json!({"provider_app_uuid": ["Provider app not found."]}))
        );
    }
    // Another team's provider app is unknown here too.
    let other = Team::new().await;
    let theirs = other
        .created("/provider-apps", provider_app_body(&other, "s", "h"))
        .await;
    let r = t
        .post("/applications/private-provider-app", body(&theirs))
        .await;
    assert_eq!(
        r.body,
        invalid(json!({"provider_app_uuid": ["Provider app not found."]}))
    );
    assert_eq!(
        count(&t.get("/applications").await),
        before,
        "nothing created"
    );
}

#[tokio::test]
async fn a_key_patch_reseals_the_new_key() {
    let t = Team::new().await;
    let path = format!("/security/keys/{}", t.key);
    let before = t.get(&path).await.body;
    let pk = format!("DTEAM#{}", t.user.name.to_lowercase());
    let sk = format!("KEY#{}", t.key);
    let stored = || async { api_tests::items_under(&pk, &sk).await[0].clone() };
    let old = stored().await;
    let pem = fresh_pem();
    let r = t
        .patch(
            &path,
            json!({"name": "renamed", "description": "new key", "private_key": pem}),
        )
        .await;
    assert_eq!((r.status, r.body.clone()), (201, json!({"uuid": t.key})));
    let after = t.get(&path).await.body;
    assert_eq!(after["name"], "renamed");
    assert_eq!(after["description"], "new key");
    assert_ne!(
        after["digest"], before["digest"],
        "the digest is the new key's"
    );
    assert!(!after.to_string().contains(&pem_body(&pem)));
    let new = stored().await;
    let sealed = new["private_key"].as_s().unwrap();
    assert!(sealed.starts_with("s1:"), "stored sealed");
    assert_ne!(Some(sealed), old["private_key"].as_s().ok());
    assert!(!sealed.contains(&pem_body(&pem)));
    // The key alone keeps the name; it is still in use by the server.
    let r = t.patch(&path, json!({"private_key": fresh_pem()})).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let current = t.get(&path).await.body;
    assert_eq!(current["name"], "renamed");
    assert_ne!(current["digest"], after["digest"]);
    assert_eq!(
        t.delete(&path).await.status,
        400,
        "the server still uses it"
    );

    let bad = "The private key must be a PEM-encoded private key (-----BEGIN … PRIVATE KEY-----).";
    for (body, errors) in [
        (
            json!({"name": "x"}),
            json!({"private_key": ["This field is required."]}),
        ),
        (
            json!({"private_key": "nope"}),
            json!({"private_key": [bad]}),
        ),
        (
            json!({"private_key": fresh_pem(), "description": "d".repeat(256)}),
            json!({"description": ["The description field must not be greater than 255 characters."]}),
        ),
        (
            json!({"private_key": fresh_pem(), "is_git_related": true}),
            json!({"is_git_related": ["This field is not allowed."]}),
        ),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(
        t.get(&path).await.body,
        current,
        "refused edits change nothing"
    );
    let r = t
        .patch(
            &format!("/security/keys/{}", nobody()),
            json!({"private_key": fresh_pem()}),
        )
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Private Key")));
}
