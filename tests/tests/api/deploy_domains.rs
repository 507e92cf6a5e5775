//! Application domains: validation, normalisation, generated domains, the
//! 409 body, `force_domain_override`, the instance's own domain, PATCH
//! excluding the application itself, DELETE releasing claims, and claims
//! under concurrency.

use api_tests::{deploy::Team, unique};
use serde_json::{Value, json};

fn conflict_body(domain: &str, name: &str, uuid: &str) -> Value {
    json!({
        "message": "Domain conflicts detected. Use force_domain_override=true to proceed.",
        "warning": "Using the same domain for multiple resources can cause routing conflicts and unpredictable behavior.",
        "conflicts": [{
            "domain": domain,
            "resource_name": name,
            "resource_uuid": uuid,
            "resource_type": "application",
            "message": format!("Domain {domain} is already in use by application '{name}'"),
        }],
    })
}

#[tokio::test]
async fn validation_normalisation_and_conflicts() {
    let t = Team::new().await;
    let host = unique("d");
    // Bad URLs and schemes: 400 naming `domains`, nothing created.
    let before = t.get("/applications").await.body.as_array().unwrap().len();
    for (raw, expected) in [
        ("example.com", "Invalid URL: example.com"),
        (
            "ftp://x.io",
            "Invalid URL scheme: ftp for URL: ftp://x.io. Only http and https are supported.",
        ),
        ("https://a.io/$(id)", "Invalid URL: https://a.io/$(id)"),
    ] {
        let r = t
            .post("/applications/public", t.public(json!({"domains": raw})))
            .await;
        assert_eq!(r.status, 400, "{raw}: {:?}", r.body);
        assert_eq!(r.body["message"], "Validation failed.");
        assert_eq!(r.body["errors"]["domains"], json!([expected]), "{raw}");
    }
    assert_eq!(
        t.get("/applications").await.body.as_array().unwrap().len(),
        before
    );

    // Normalised: trimmed, lower-case scheme and host, one trailing slash off.
    let raw = format!(" HTTPS://{host}.Example.COM/ ,http://{host}.io/api/ ");
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "first", "domains": raw})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let first = r.body["uuid"].as_str().unwrap().to_string();
    let fqdn = format!("https://{host}.example.com,http://{host}.io/api");
    assert_eq!(r.body["domains"], json!(fqdn));
    assert_eq!(
        t.get(&format!("/applications/{first}")).await.body["fqdn"],
        json!(fqdn)
    );

    // The same domain in another spelling conflicts: 409 with the exact body.
    let taken = format!("https://{host}.example.com");
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "second", "domains": format!("https://{host}.EXAMPLE.com/")})),
        )
        .await;
    assert_eq!(r.status, 409, "{:?}", r.body);
    assert_eq!(r.body, conflict_body(&taken, "first", &first));
    // Another path is another domain (another scheme is not: see
    // `claims_are_by_host_port_and_path`).
    let other_domain = format!("https://{host}.example.com/shop");
    let other = t
        .app(json!({"name": "third", "domains": other_domain.clone()}))
        .await;

    // Forced: both hold it; a third, unforced, sees both holders.
    let forced = t
        .created(
            "/applications/public",
            t.public(
                json!({"name": "forced", "domains": taken.clone(), "force_domain_override": true}),
            ),
        )
        .await;
    let r = t.post("/applications/dockerimage", t.body(json!({
        "docker_registry_image_name": "nginx", "ports_exposes": "80", "domains": taken.clone(),
    }))).await;
    assert_eq!(r.status, 409);
    let holders: Vec<&str> = r.body["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["resource_uuid"].as_str().unwrap())
        .collect();
    assert_eq!(holders.len(), 2);
    assert!(holders.contains(&first.as_str()) && holders.contains(&forced.as_str()));

    // PATCH keeping its own domains is no conflict; taking another's is.
    let r = t
        .patch(
            &format!("/applications/{first}"),
            json!({"domains": format!("{taken},http://{host}.io/api")}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t
        .patch(
            &format!("/applications/{other}"),
            json!({"domains": format!("http://{host}.io/api")}),
        )
        .await;
    assert_eq!(r.status, 409);
    assert_eq!(r.body["conflicts"][0]["resource_uuid"], json!(first));
    assert_eq!(
        t.get(&format!("/applications/{other}")).await.body["fqdn"],
        json!(other_domain),
        "a refused PATCH changes nothing"
    );

    // PATCH dropping a domain frees it; DELETE frees all of them at once.
    let r = t
        .patch(
            &format!("/applications/{first}"),
            json!({"domains": taken.clone()}),
        )
        .await;
    assert_eq!(r.status, 200);
    t.app(json!({"domains": format!("http://{host}.io/api")}))
        .await;
    assert_eq!(
        t.delete(&format!("/applications/{first}")).await.status,
        200
    );
    assert_eq!(
        t.delete(&format!("/applications/{forced}")).await.status,
        200
    );
    t.app(json!({"name": "after", "domains": taken})).await;
}

#[tokio::test]
async fn teams_do_not_see_each_others_domains() {
    let (a, b) = (Team::new().await, Team::new().await);
    let d = format!("https://{}.example.org", unique("x"));
    a.app(json!({"domains": d.clone()})).await;
    b.app(json!({"domains": d})).await;
}

#[tokio::test]
async fn the_instance_domain_is_taken() {
    let t = Team::new().await;
    let api = std::env::var("ROOT_URL").unwrap_or_else(|_| t.api.base.clone());
    let origin = api.trim_end_matches('/').to_string();
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"domains": format!("{origin}/")})),
        )
        .await;
    assert_eq!(r.status, 409, "{:?}", r.body);
    assert_eq!(r.body["conflicts"][0]["resource_type"], "instance");
    assert_eq!(r.body["conflicts"][0]["resource_uuid"], Value::Null);
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"domains": origin, "force_domain_override": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}

#[tokio::test]
async fn generated_domains() {
    // No wildcard domain: http://<uuid>.<ip>.sslip.io.
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"autogenerate_domain": true})),
        )
        .await;
    assert_eq!(r.status, 201);
    let uuid = r.body["uuid"].as_str().unwrap();
    assert_eq!(
        r.body["domains"],
        json!(format!("http://{uuid}.203.0.113.7.sslip.io"))
    );
    // Left out, autogenerate_domain defaults to true.
    let mut body = t.public(json!({}));
    body.as_object_mut().unwrap().remove("autogenerate_domain");
    let r = t.post("/applications/public", body).await;
    assert!(
        r.body["domains"]
            .as_str()
            .unwrap()
            .ends_with(".203.0.113.7.sslip.io")
    );
    // false: no domain.
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(r.body["domains"], Value::Null);

    // With the server's wildcard domain.
    let w = Team::with_server(json!({"wildcard_domain": "https://apps.example.com"})).await;
    let r = w
        .post(
            "/applications/dockerimage",
            w.body(json!({"docker_registry_image_name": "nginx", "ports_exposes": "80"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap();
    assert_eq!(
        r.body["domains"],
        json!(format!("https://{uuid}.apps.example.com"))
    );
}

#[tokio::test]
async fn fifty_concurrent_claims_of_one_domain_make_one_application() {
    let t = Team::new().await;
    let domain = format!("https://{}.example.net", unique("race"));
    let before = t.get("/applications").await.body.as_array().unwrap().len();
    let replies = futures::future::join_all((0..50).map(|i| {
        let body = t.public(json!({"name": format!("racer-{i:02}"), "domains": domain.clone()}));
        let t = &t;
        async move { t.post("/applications/public", body).await }
    }))
    .await;
    let mut created = Vec::new();
    for r in &replies {
        match r.status {
            201 => created.push(r.body["uuid"].as_str().unwrap().to_string()),
            409 => assert_eq!(r.body["conflicts"][0]["domain"], json!(domain)),
            other => panic!("unexpected {other}: {:?}", r.body),
        }
    }
    assert_eq!(created.len(), 1, "exactly one create wins");
    let apps = t.get("/applications").await.body;
    assert_eq!(
        apps.as_array().unwrap().len(),
        before + 1,
        "losers wrote nothing"
    );
    let holders: Vec<&Value> = apps
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["fqdn"] == json!(domain))
        .collect();
    assert_eq!(holders.len(), 1);
    assert_eq!(holders[0]["uuid"], json!(created[0]));
}

#[tokio::test]
async fn many_domains_fit_the_databases_transactions_or_get_a_clear_400() {
    let t = Team::new().await;
    let limit: usize = std::env::var("DYNAMODB_TRANSACTION_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let host = unique("m");
    let domains: Vec<String> = (0..12)
        .map(|i| format!("https://{host}-{i}.example.com"))
        .collect();
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"domains": domains.join(",")})),
        )
        .await;
    // The application, its project and server counts, and 12 claims.
    if limit < 15 {
        assert_eq!(r.status, 400, "{:?}", r.body);
        assert!(r.message().contains("at most"), "{:?}", r.body);
        assert_eq!(
            t.get("/applications").await.body.as_array().unwrap().len(),
            0
        );
    } else {
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    // 21 domains are too many anywhere.
    let domains: Vec<String> = (0..21)
        .map(|i| format!("https://{host}-{i}.example.org"))
        .collect();
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"domains": domains.join(",")})),
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body["errors"]["domains"].is_array(), "{:?}", r.body);
}

/// A domain claims its host, port and path, whatever the scheme or a
/// trailing dot: one reverse proxy routes them all (Coolify compares whole
/// strings; this API does not). Another path or port is another claim, and
/// a query or fragment is refused. The instance's own domain likewise.
#[tokio::test]
async fn claims_are_by_host_port_and_path() {
    let t = Team::new().await;
    let host = format!("{}.test", unique("c"));
    let base = format!("http://{host}:9000");
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "base", "domains": base})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    for same in [
        format!("http://{host}.:9000"),
        format!("https://{host}:9000"),
        format!("HTTPS://{}:9000/", host.to_uppercase()),
    ] {
        let r = t
            .post(
                "/applications/public",
                t.public(json!({"name": "again", "domains": same})),
            )
            .await;
        assert_eq!(r.status, 409, "{same}: {:?}", r.body);
        let c = &r.body["conflicts"][0];
        assert_eq!(
            (&c["resource_uuid"], &c["resource_type"]),
            (&json!(uuid), &json!("application")),
            "{same}"
        );
    }
    for bad in [format!("{base}?x=1"), format!("{base}#f")] {
        let r = t
            .post("/applications/public", t.public(json!({"domains": bad})))
            .await;
        assert_eq!(r.status, 400, "{bad}: {:?}", r.body);
        let message = r.body["errors"]["domains"][0].as_str().unwrap_or_default();
        assert!(
            message.contains("query (?) or a fragment (#)"),
            "{bad}: {message}"
        );
    }
    for other in [format!("{base}/api"), format!("http://{host}:9001")] {
        let r = t
            .post("/applications/public", t.public(json!({"domains": other})))
            .await;
        assert_eq!(r.status, 201, "{other}: {:?}", r.body);
    }
    // Both schemes in one application claim once.
    let both = format!("http://both-{host},https://both-{host}");
    let r = t
        .post("/applications/public", t.public(json!({"domains": both})))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    // The instance's own domain, by another scheme or with a trailing dot.
    let api = std::env::var("ROOT_URL").unwrap_or_else(|_| t.api.base.clone());
    let own = reqwest::Url::parse(&api).expect("the API's URL");
    let host = own.host_str().unwrap_or_default();
    let port = own.port().map(|p| format!(":{p}")).unwrap_or_default();
    for same in [
        format!("https://{host}{port}"),
        format!("http://{host}.{port}"),
    ] {
        let r = t
            .post("/applications/public", t.public(json!({"domains": same})))
            .await;
        assert_eq!(r.status, 409, "{same}: {:?}", r.body);
        assert_eq!(
            r.body["conflicts"][0]["resource_type"], "instance",
            "{same}"
        );
    }
}
