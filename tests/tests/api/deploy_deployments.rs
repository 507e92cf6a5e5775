//! Deployment records queued by `instant_deploy`: reading, paging (as
//! Coolify's `{count, deployments}`), and the `deploy` ability.

use api_tests::deploy::{Team, infra::*};
use serde_json::{Value, json};

#[tokio::test]
async fn instant_deploy_queues_a_deployment() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"name": "deployed", "instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let d = r.body["deployment_uuid"]
        .as_str()
        .expect("deployment_uuid")
        .to_string();

    let got = t.get(&format!("/deployments/{d}")).await;
    assert_eq!(got.status, 200, "{:?}", got.body);
    let g = &got.body;
    assert_eq!(g["deployment_uuid"], json!(d));
    assert_eq!(g["status"], "queued");
    assert_eq!(g["application_uuid"], json!(app));
    assert_eq!(g["application_name"], "deployed");
    assert_eq!(g["server_uuid"], json!(t.server));
    assert_eq!(g["destination_uuid"], json!(t.destination));
    assert!(
        g["deployment_url"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/deployments/{d}")),
        "{g}"
    );
    // Upper case names the same deployment.
    assert_eq!(
        t.get(&format!("/deployments/{}", d.to_uppercase()))
            .await
            .body,
        got.body
    );

    // One deployment shows its log (none yet); lists leave it out.
    assert_eq!(g["logs"], Value::Null);
    let mut listed = got.body.clone();
    listed.as_object_mut().unwrap().remove("logs");
    let running = t.get("/deployments").await;
    assert_eq!(running.status, 200);
    assert_eq!(running.body, json!([listed]));
    let mine = t.get(&format!("/deployments/applications/{app}")).await;
    assert_eq!(
        (mine.status, &mine.body),
        (200, &json!({"count": 1, "deployments": [listed]}))
    );

    // Without instant_deploy nothing is queued.
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": false})),
        )
        .await;
    assert_eq!(r.status, 201);
    assert!(r.body.get("deployment_uuid").is_none(), "{:?}", r.body);
    let quiet = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(
        t.get(&format!("/deployments/applications/{quiet}"))
            .await
            .body,
        json!({"count": 0, "deployments": []})
    );
    assert_eq!(count(&t.get("/deployments").await), 1);

    let r = t.get(&format!("/deployments/{}", nobody())).await;
    assert_eq!((r.status, r.body), (404, not_found("Deployment")));
    let r = t.get(&format!("/deployments/{app}")).await;
    assert_eq!(
        (r.status, r.body),
        (404, not_found("Deployment")),
        "an application uuid is no deployment"
    );
}

#[tokio::test]
async fn deployments_of_an_application_page_newest_first() {
    let t = Team::new().await;
    let r = t
        .post(
            "/applications/public",
            t.public(json!({"instant_deploy": true})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let mut queued = vec![r.body["deployment_uuid"].as_str().unwrap().to_string()];
    for i in 0..4 {
        let r = t
            .patch(
                &format!("/applications/{app}"),
                json!({"description": format!("v{i}"), "instant_deploy": true}),
            )
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    // The PATCH reply is the application; find the new deployments by listing.
    let path = format!("/deployments/applications/{app}");
    let all = t.get(&path).await;
    assert_eq!(all.status, 200, "{:?}", all.body);
    assert_eq!(all.body["count"], 5, "{:?}", all.body);
    let listed = uuids(&all.body["deployments"]);
    assert_eq!(listed.len(), 5, "{:?}", all.body);
    assert_eq!(
        listed.last(),
        Some(&queued[0]),
        "the create's deployment is the oldest"
    );
    let times: Vec<&str> = all.body["deployments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["created_at"].as_str().unwrap())
        .collect();
    let mut newest_first = times.clone();
    newest_first.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, newest_first);
    assert!(
        all.body["deployments"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["application_uuid"] == json!(app) && d["status"] == "queued")
    );
    queued = listed;

    for (query, expected) in [
        ("?take=2", &queued[..2]),
        ("?skip=1&take=2", &queued[1..3]),
        ("?skip=3", &queued[3..]),
        ("?skip=5", &queued[5..]),
        ("?skip=100&take=100", &queued[5..]),
        ("?take=0", &queued[..0]),
        ("?take=100", &queued[..]),
    ] {
        let r = t.get(&format!("{path}{query}")).await;
        assert_eq!(r.status, 200, "{query}: {:?}", r.body);
        assert_eq!(r.body["count"], 5, "{query}");
        assert_eq!(uuids(&r.body["deployments"]), expected.to_vec(), "{query}");
    }
    for (query, field, max) in [
        ("?take=abc", "take", 100),
        ("?take=-1", "take", 100),
        ("?take=101", "take", 100),
        ("?take=1.5", "take", 100),
        ("?skip=abc", "skip", 10_000),
        ("?skip=-1", "skip", 10_000),
    ] {
        let r = t.get(&format!("{path}{query}")).await;
        assert_eq!(r.status, 400, "{query}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(
                json!({ field: [format!("The {field} field must be an integer between 0 and {max}.")] })
            ),
            "{query}"
        );
    }
    // Every queued deployment shows in the team's list.
    let running = uuids(&t.get("/deployments").await.body);
    for d in &queued {
        assert!(running.contains(d), "{d} not in {running:?}");
    }
    let r = t
        .get(&format!("/deployments/applications/{}", nobody()))
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Application")));
}

#[tokio::test]
async fn deploying_needs_the_deploy_ability() {
    let t = Team::new().await;
    let read_write = t.token_with(&["read", "write"]).await;
    let deploy_only = t.token_with(&["deploy"]).await;
    let apps_before = count(&t.get("/applications").await);
    let body = t.public(json!({"name": "nodeploy", "instant_deploy": true}));
    let r = t
        .call_as(
            &read_write,
            "POST",
            "/applications/public",
            Some(body.clone()),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: deploy"))
    );
    let r = t
        .call_as(
            &deploy_only,
            "POST",
            "/applications/public",
            Some(body.clone()),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: write"))
    );
    let r = t.call_as(&deploy_only, "GET", "/deployments", None).await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: read"))
    );
    assert_eq!(
        count(&t.get("/applications").await),
        apps_before,
        "nothing created"
    );
    assert_eq!(count(&t.get("/deployments").await), 0, "nothing queued");

    // The same token creates without deploying, but cannot deploy by PATCH.
    let r = t
        .call_as(
            &read_write,
            "POST",
            "/applications/public",
            Some(t.public(json!({"instant_deploy": false}))),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let app = r.body["uuid"].as_str().unwrap().to_string();
    let r = t
        .call_as(
            &read_write,
            "PATCH",
            &format!("/applications/{app}"),
            Some(json!({"description": "x", "instant_deploy": true})),
        )
        .await;
    assert_eq!(
        (r.status, &r.body),
        (403, &message("Missing required permissions: deploy"))
    );
    assert_eq!(
        t.get(&format!("/applications/{app}")).await.body["description"],
        Value::Null,
        "the refused PATCH wrote nothing"
    );
    assert_eq!(
        t.get(&format!("/deployments/applications/{app}"))
            .await
            .body["deployments"],
        json!([])
    );
    // With `deploy` added it works.
    let all = t.token_with(&["read", "write", "deploy"]).await;
    let r = t
        .call_as(&all, "POST", "/applications/public", Some(body))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let d = r.body["deployment_uuid"].as_str().unwrap().to_string();
    assert_eq!(uuids(&t.get("/deployments").await.body), vec![d]);
}
