//! Servers: defaults, validation, PATCH, deletion while in use.

use api_tests::{
    Auth,
    deploy::{Team, infra::*},
};
use serde_json::{Value, json};

#[tokio::test]
async fn servers_get_defaults_and_a_default_destination() {
    let t = Team::new().await;
    let uuid = t
        .created(
            "/servers",
            json!({"name": "plain", "ip": "198.51.100.10", "private_key_uuid": t.key}),
        )
        .await;
    let s = t.get(&format!("/servers/{uuid}")).await;
    assert_eq!(s.status, 200);
    let b = &s.body;
    assert_eq!(
        (
            &b["uuid"],
            &b["name"],
            &b["ip"],
            &b["port"],
            &b["user"],
            &b["proxy_type"]
        ),
        (
            &json!(uuid),
            &json!("plain"),
            &json!("198.51.100.10"),
            &json!(22),
            &json!("root"),
            &json!("traefik")
        )
    );
    assert_eq!(
        (
            &b["private_key_uuid"],
            &b["wildcard_domain"],
            &b["is_build_server"]
        ),
        (&json!(t.key), &Value::Null, &json!(false))
    );
    let dests = b["destinations"].as_array().unwrap();
    assert_eq!(dests.len(), 1);
    assert_eq!(
        (
            &dests[0]["name"],
            &dests[0]["network"],
            &dests[0]["server_uuid"]
        ),
        (&json!("default"), &json!("default"), &json!(uuid))
    );
    assert_eq!(
        t.get(&format!("/servers/{uuid}/destinations")).await.body,
        json!(dests)
    );
    assert!(
        !s.body
            .to_string()
            .contains(&pem_body(&api_tests::deploy::pem())),
        "no key text"
    );

    // Every field set, in other spellings.
    let full = t
        .created(
            "/servers",
            json!({"name": "full", "description": "d", "ip": "2001:db8::1", "port": 2222, "user": "deploy",
                   "private_key_uuid": t.key, "proxy_type": "CADDY", "wildcard_domain": "https://apps.example.com",
                   "is_build_server": false}),
        )
        .await;
    let b = t.get(&format!("/servers/{full}")).await.body;
    assert_eq!(
        (
            &b["ip"],
            &b["port"],
            &b["user"],
            &b["proxy_type"],
            &b["wildcard_domain"],
            &b["description"]
        ),
        (
            &json!("2001:db8::1"),
            &json!(2222),
            &json!("deploy"),
            &json!("caddy"),
            &json!("https://apps.example.com"),
            &json!("d")
        )
    );
    let host = t
        .created("/servers", json!({"name": "by-name", "ip": "host-1.example.com", "private_key_uuid": t.key, "proxy_type": "none"}))
        .await;
    assert_eq!(
        t.get(&format!("/servers/{host}")).await.body["proxy_type"],
        "none"
    );

    // The list is sorted by name and shows all four.
    let names: Vec<Value> = t
        .get("/servers")
        .await
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![
            json!("by-name"),
            json!("full"),
            json!("plain"),
            json!("srv")
        ]
    );
}

#[tokio::test]
async fn server_bodies_are_validated() {
    let t = Team::new().await;
    let base = json!({"name": "s", "ip": "198.51.100.20", "private_key_uuid": t.key});
    let proxy = "The selected proxy type is invalid. Allowed: traefik, caddy, none.";
    let wildcard = "The wildcard domain must be an http(s) URL, such as https://apps.example.com.";
    let ip = "The ip field must be an IP address or a host name.";
    let cases = [
        (
            json!({}),
            json!({"name": ["This field is required."], "ip": ["This field is required."], "private_key_uuid": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-name": null})),
            json!({"name": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-ip": null})),
            json!({"ip": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"-private_key_uuid": null})),
            json!({"private_key_uuid": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"ip": "not an ip"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "1.2.3.4;reboot"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "-bad.example.com"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "a..b"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": 1234})),
            json!({"ip": ["The ip field must be a string."]}),
        ),
        (
            with(base.clone(), json!({"proxy_type": "nginx"})),
            json!({"proxy_type": [proxy]}),
        ),
        (
            with(base.clone(), json!({"proxy_type": "traefik2"})),
            json!({"proxy_type": [proxy]}),
        ),
        (
            with(base.clone(), json!({"ip": "300.1.1.1"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "a-.example.com"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"ip": "10.0.0"})),
            json!({"ip": [ip]}),
        ),
        (
            with(base.clone(), json!({"name": "  "})),
            json!({"name": ["This field is required."]}),
        ),
        (
            with(base.clone(), json!({"wildcard_domain": "apps.example.com"})),
            json!({"wildcard_domain": [wildcard]}),
        ),
        (
            with(
                base.clone(),
                json!({"wildcard_domain": "ftp://apps.example.com"}),
            ),
            json!({"wildcard_domain": [wildcard]}),
        ),
        (
            with(base.clone(), json!({"port": 0})),
            json!({"port": ["The port field must be between 1 and 65535."]}),
        ),
        (
            with(base.clone(), json!({"port": 65536})),
            json!({"port": ["The port field must be between 1 and 65535."]}),
        ),
        (
            with(base.clone(), json!({"port": "22"})),
            json!({"port": ["The port field must be an integer."]}),
        ),
        (
            with(base.clone(), json!({"port": 22.5})),
            json!({"port": ["The port field must be an integer."]}),
        ),
        (
            with(base.clone(), json!({"user": "ro ot"})),
            json!({"user": ["The user field format is invalid."]}),
        ),
        (
            with(base.clone(), json!({"user": "$(id)"})),
            json!({"user": ["The user field format is invalid."]}),
        ),
        (
            with(base.clone(), json!({"is_build_server": "yes"})),
            json!({"is_build_server": ["The is build server field must be true or false."]}),
        ),
        (
            with(base.clone(), json!({"password": "hunter2"})),
            json!({"password": ["This field is not allowed."]}),
        ),
        (
            with(base.clone(), json!({"private_key_uuid": nobody()})),
            json!({"private_key_uuid": ["Private Key not found."]}),
        ),
        (
            with(base.clone(), json!({"private_key_uuid": "nope"})),
            json!({"private_key_uuid": ["Private Key not found."]}),
        ),
        (
            with(
                base.clone(),
                json!({"ip": "x y", "proxy_type": "nginx", "port": -1}),
            ),
            json!({"ip": [ip], "proxy_type": [proxy], "port": ["The port field must be between 1 and 65535."]}),
        ),
    ];
    for (body, errors) in cases {
        let r = t.post("/servers", body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(
        count(&t.get("/servers").await),
        1,
        "no refused create wrote a server"
    );
    // The refused creates took no reference on the key: once the team's own
    // server is gone, the key deletes.
    let r = t
        .api
        .raw(
            "POST",
            "/api/v1/servers",
            Auth::Bearer(&t.token),
            Some("application/json"),
            b"{\"name\":".to_vec(),
        )
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        t.delete(&format!("/servers/{}", t.server)).await.status,
        200
    );
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!((r.status, r.body), (200, message("Private Key deleted.")));
}

#[tokio::test]
async fn patching_a_server_changes_only_what_is_sent() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let before = t.get(&path).await.body;
    let r = t
        .patch(
            &path,
            json!({"name": "renamed", "description": "edge box", "port": 2200, "user": "admin",
                   "proxy_type": "Caddy", "wildcard_domain": "https://w.example.com"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let expect = |b: &Value| {
        assert_eq!(b["uuid"], json!(t.server));
        assert_eq!(b["name"], "renamed");
        assert_eq!(b["description"], "edge box");
        assert_eq!(b["port"], 2200);
        assert_eq!(b["user"], "admin");
        assert_eq!(b["proxy_type"], "caddy");
        assert_eq!(b["wildcard_domain"], "https://w.example.com");
        assert_eq!(b["ip"], "203.0.113.7", "not sent, kept");
        assert_eq!(b["private_key_uuid"], json!(t.key));
        assert_eq!(b["created_at"], before["created_at"]);
        assert_eq!(b["destinations"], before["destinations"]);
    };
    expect(&r.body);
    let stored = t.get(&path).await.body;
    expect(&stored);
    assert_eq!(stored, r.body, "the reply is the stored record");

    // Refused edits change nothing.
    for (body, field) in [
        (json!({"ip": "not an ip"}), "ip"),
        (json!({"port": 0}), "port"),
        (json!({"proxy_type": "nginx"}), "proxy_type"),
        (
            json!({"wildcard_domain": "w.example.com"}),
            "wildcard_domain",
        ),
        (json!({"uuid": "x"}), "uuid"),
        (json!({"private_key_uuid": nobody()}), "private_key_uuid"),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body["message"], INVALID);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
        assert_eq!(t.get(&path).await.body, stored, "{body} changed nothing");
    }

    // null clears the optional fields.
    let r = t
        .patch(&path, json!({"wildcard_domain": null, "description": null}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let b = t.get(&path).await.body;
    assert_eq!(
        (&b["wildcard_domain"], &b["description"], &b["name"]),
        (&Value::Null, &Value::Null, &json!("renamed"))
    );

    // Moving to another key moves the reference: the old key frees up.
    let k2 = t
        .created(
            "/security/keys",
            json!({"name": "second", "private_key": fresh_pem()}),
        )
        .await;
    let r = t.patch(&path, json!({"private_key_uuid": k2})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(t.get(&path).await.body["private_key_uuid"], json!(k2));
    assert_eq!(
        t.delete(&format!("/security/keys/{k2}")).await.status,
        400,
        "now in use"
    );
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200,
        "no longer in use"
    );
}

#[tokio::test]
async fn a_patched_server_with_an_application_still_cannot_be_deleted() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let app = t.app(json!({})).await;
    let r = t
        .patch(&path, json!({"name": "patched", "port": 2022}))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t.delete(&path).await;
    assert_eq!(
        r.status, 400,
        "the PATCH must not forget the server is in use: {:?}",
        r.body
    );
    assert_eq!(
        r.body,
        message("Server has resources, so you need to delete them before.")
    );
    assert_eq!(t.get(&path).await.status, 200);
    assert_eq!(t.get(&format!("/applications/{app}")).await.status, 200);
    // Same for a PATCH that moves the server to another key.
    let k2 = t
        .created(
            "/security/keys",
            json!({"name": "k2", "private_key": fresh_pem()}),
        )
        .await;
    assert_eq!(
        t.patch(&path, json!({"private_key_uuid": k2})).await.status,
        200
    );
    assert_eq!(t.delete(&path).await.status, 400);
    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    assert_eq!(t.delete(&path).await.status, 200);
}

#[tokio::test]
async fn a_server_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let path = format!("/servers/{}", t.server);
    let app = t.app(json!({})).await;
    let r = t.delete(&path).await;
    assert_eq!(
        (r.status, r.body),
        (
            400,
            message("Server has resources, so you need to delete them before.")
        )
    );
    assert_eq!(t.get(&path).await.status, 200);
    assert_eq!(count(&t.get(&format!("{path}/destinations")).await), 1);
    // Its key is in use too.
    let r = t.delete(&format!("/security/keys/{}", t.key)).await;
    assert_eq!(r.status, 400);

    assert_eq!(t.delete(&format!("/applications/{app}")).await.status, 200);
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (200, message("Server deleted.")));
    for p in [path.clone(), format!("{path}/destinations")] {
        let r = t.get(&p).await;
        assert_eq!((r.status, r.body), (404, not_found("Server")), "{p}");
    }
    assert_eq!(count(&t.get("/servers").await), 0);
    assert_eq!(t.delete(&path).await.status, 404);
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(
        r.body["errors"]["server_uuid"],
        json!(["Server not found."])
    );
    // Deleting the server released the key.
    assert_eq!(
        t.delete(&format!("/security/keys/{}", t.key)).await.status,
        200
    );
}
