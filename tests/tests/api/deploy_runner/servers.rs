//! A runner's server: it acts for its own alone, gets its clean-ups, and
//! finds what an older release queued once `check-data` repaired it.

use super::*;

#[tokio::test]
async fn a_runner_acts_for_its_own_server_alone() {
    let t = Team::new().await;
    let server_b = other_server(&t).await;
    let runner_a = Runner::new(&t, &t.server).await;
    let runner_b = Runner::new(&t, &server_b).await;
    let app_b = t.app(json!({"server_uuid": server_b})).await;
    let d = start(&t, &app_b).await;
    assert_eq!(runner_a.claim().await, None, "B's job is not A's");
    let refused = |label: &'static str| {
        let (runner_a, d) = (&runner_a, d.clone());
        async move {
            for r in [
                runner_a.heartbeat(&d).await,
                runner_a.log(&d, &["x"]).await,
                runner_a.end(&d, "finished").await,
            ] {
                assert_eq!(
                    (r.status, &r.body),
                    (404, &not_found("Deployment")),
                    "{label}"
                );
            }
        }
    };
    refused("queued").await;
    assert!(runner_b.claim().await.is_some(), "B's runner gets it");
    refused("running").await;
    // A runner of the same server that did not claim it may not report it.
    let runner_b2 = Runner::new(&t, &server_b).await;
    let r = runner_b2.heartbeat(&d).await;
    assert_eq!((r.status, &r.body["status"]), (409, &json!("in_progress")));
    // Another team's runner sees nothing of this team.
    let other = Team::new().await;
    let stranger = Runner::new(&other, &other.server).await;
    assert_eq!(stranger.heartbeat(&d).await.status, 404);
    assert_eq!(runner_b.end(&d, "finished").await.status, 200);
}

#[tokio::test]
async fn a_deleted_application_s_clean_up_goes_to_its_server_s_runner() {
    let t = Team::new().await;
    let server_b = other_server(&t).await;
    let runner = Runner::new(&t, &t.server).await;
    let elsewhere = Runner::new(&t, &server_b).await;
    let app = t.app(json!({"name": "doomed"})).await;
    let queued = start(&t, &app).await;
    let r = t
        .delete(&format!("/applications/{app}?delete_volumes=false"))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        t.get(&format!("/deployments/{queued}")).await.body["status"],
        "cancelled-by-user"
    );
    assert_eq!(
        runner.claim().await,
        None,
        "the cancelled run is not claimed"
    );

    assert_eq!(
        elsewhere.claim_cleanup().await.status,
        204,
        "another server's"
    );
    let mut job = runner.claim_cleanup().await;
    // The server's index of clean-ups is eventually consistent.
    for _ in 0..20 {
        if job.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        job = runner.claim_cleanup().await;
    }
    assert_eq!(job.status, 200, "{:?}", job.body);
    assert_eq!(
        job.body,
        json!({"id": app, "application_uuid": app, "application_name": "doomed",
               "delete_configurations": true, "delete_volumes": false,
               "docker_cleanup": true, "delete_connected_networks": true})
    );
    assert_eq!(
        runner.claim_cleanup().await.status,
        204,
        "leased to the runner"
    );
    assert_eq!(elsewhere.cleanup_done(&app).await.status, 404);
    let r = runner.cleanup_done(&app).await;
    assert_eq!((r.status, r.body), (200, message("Cleanup done.")));
    let r = runner.cleanup_done(&app).await;
    assert_eq!((r.status, r.body), (404, not_found("Cleanup")));
}

#[tokio::test]
async fn what_an_older_release_wrote_is_found_by_runners_after_the_repair() {
    use doctor::{Finding, Fix, Report};
    use shared::db;
    let t = Team::new().await;
    let runner = Runner::new(&t, &t.server).await;
    let (client, table) = api_tests::table().await;
    let pk = db::keys::deploy_team_pk(&t.user.name);
    // A queued deployment without its queue entry, as instant_deploy
    // wrote it before runners.
    let app = t.app(json!({})).await;
    let d = start(&t, &app).await;
    let entries = client
        .query()
        .table_name(&table)
        .key_condition_expression("pk = :pk")
        .expression_attribute_values(":pk", db::s(db::keys::server_queue_pk(&t.server)))
        .send()
        .await
        .unwrap();
    for e in entries.items.unwrap_or_default() {
        let key = db::keys::key(db::text(&e, "pk"), db::text(&e, "sk"));
        client
            .delete_item()
            .table_name(&table)
            .set_key(Some(key))
            .send()
            .await
            .unwrap();
    }
    assert_eq!(runner.claim().await, None, "no runner finds it");
    // A clean-up without its server's index entry.
    let gone = t.app(json!({})).await;
    assert_eq!(t.delete(&format!("/applications/{gone}")).await.status, 200);
    client
        .update_item()
        .table_name(&table)
        .set_key(Some(db::keys::key(&pk, &format!("CLEANUP#{gone}"))))
        .update_expression("REMOVE gsi1pk, gsi1sk")
        .send()
        .await
        .unwrap();
    assert_eq!(runner.claim_cleanup().await.status, 204);

    let config = shared::Config::from_env().unwrap();
    let store = db::Db::new(db::connect(&config).await, config.table_name.clone());
    let sealer = std::sync::Arc::new(shared::seal::Sealer::from_config(&config, None));
    let finding = |sk: String, fix| Finding {
        what: "older record",
        pk: pk.clone(),
        sk,
        fix,
    };
    let mut report = Report {
        drift: vec![
            finding(format!("DEPLOYMENT#{d}"), Fix::Enqueue),
            finding(format!("CLEANUP#{gone}"), Fix::IndexCleanup),
        ],
        ..Report::default()
    };
    doctor::repair(&store, &sealer, &mut report).await.unwrap();
    assert_eq!((report.repaired, report.skipped), (2, 0));
    let job = runner.claim().await.expect("found again");
    assert_eq!(job["deployment_uuid"], json!(d));
    let mut cleanup = runner.claim_cleanup().await;
    for _ in 0..20 {
        if cleanup.status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        cleanup = runner.claim_cleanup().await;
    }
    assert_eq!(cleanup.body["id"], json!(gone), "{:?}", cleanup.body);
    // Again: nothing left to do (the deployment is no longer queued, the
    // clean-up is indexed).
    doctor::repair(&store, &sealer, &mut report).await.unwrap();
    assert_eq!((report.repaired, report.skipped), (2, 2));
}

/// Coolify's server views: what runs on it, the hosts it answers on, and
/// a validation told from what its runners reported.
#[tokio::test]
async fn a_server_lists_its_resources_and_domains_and_is_validated_by_its_runners() {
    let t = Team::new().await;
    let elsewhere = other_server(&t).await;
    let a = t
        .app(json!({"name": "alpha", "domains": "https://alpha.example.com,https://www.alpha.example.com/app"}))
        .await;
    let b = t
        .app(json!({"name": "beta", "domains": "http://beta.example.com:8080"}))
        .await;
    let placed = t
        .app(json!({"name": "gamma", "server_uuid": elsewhere, "domains": "https://gamma.example.com"}))
        .await;

    let r = t.get(&format!("/servers/{}/resources", t.server)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let listed = r.body.as_array().expect("a list").clone();
    let uuids: Vec<&str> = listed.iter().filter_map(|x| x["uuid"].as_str()).collect();
    assert_eq!(
        uuids,
        [a.as_str(), b.as_str()],
        "by name, this server's only"
    );
    for x in &listed {
        assert_eq!(x["type"], "application");
        assert!(x["id"].as_i64().is_some_and(|i| i > 0), "{x}");
        for k in ["name", "created_at", "updated_at", "status"] {
            assert!(x[k].is_string(), "{k} in {x}");
        }
    }
    // coolify-cli's `server get --resources` asks the server with them.
    let r = t
        .get(&format!("/servers/{}?resources=true", t.server))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(r.body["resources"], json!(listed));
    let r = t.get(&format!("/servers/{}", t.server)).await;
    assert!(r.body.get("resources").is_none(), "{:?}", r.body);
    let r = t
        .get(&format!("/servers/{}?resources=maybe", t.server))
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert!(r.body["errors"]["resources"].is_array(), "{:?}", r.body);
    let r = t.get(&format!("/servers/{elsewhere}/resources")).await;
    assert_eq!(r.body.as_array().map(|l| l.len()), Some(1), "{:?}", r.body);
    assert_eq!(r.body[0]["uuid"], json!(placed));

    let r = t.get(&format!("/servers/{}/domains", t.server)).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    assert_eq!(
        r.body,
        json!([{"ip": "203.0.113.7", "domains": ["alpha.example.com", "beta.example.com", "www.alpha.example.com"]}])
    );

    // Validation: no runner yet, then one that just called.
    for method in ["GET", "POST"] {
        let r = t
            .call(method, &format!("/servers/{}/validate", t.server), None)
            .await;
        assert_eq!(r.status, 201, "{method}: {:?}", r.body);
        assert_eq!(r.body["is_reachable"], false);
        assert_eq!(r.body["runner_last_seen_at"], Value::Null);
        assert!(
            r.message()
                .starts_with("No runner of this server has been heard from"),
            "{:?}",
            r.body
        );
    }
    // coolify-cli's body is accepted; anything else is refused.
    let path = format!("/servers/{}/validate", t.server);
    let r = t.call("POST", &path, Some(json!({"install": true}))).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    for (body, field) in [
        (json!({"install": "yes"}), "install"),
        (json!({"force": true}), "force"),
    ] {
        let r = t.call("POST", &path, Some(body.clone())).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert!(r.body["errors"][field].is_array(), "{body}: {:?}", r.body);
    }
    let runner = Runner::new(&t, &t.server).await;
    assert_eq!(runner.claim().await, None);
    let r = t.get(&format!("/servers/{}/validate", t.server)).await;
    assert_eq!(r.body["is_reachable"], true, "{:?}", r.body);
    assert!(r.body["runner_last_seen_at"].is_string(), "{:?}", r.body);
    assert!(
        r.message().starts_with("Server is reachable"),
        "{:?}",
        r.body
    );
    // The other server's runners are not this one's.
    let r = t.get(&format!("/servers/{elsewhere}/validate")).await;
    assert_eq!(r.body["is_reachable"], false, "{:?}", r.body);

    // Another team's server, or none, is not found; `read` is needed.
    let other = Team::new().await;
    for path in ["resources", "domains", "validate"] {
        let r = other.get(&format!("/servers/{}/{path}", t.server)).await;
        assert_eq!((r.status, &r.body), (404, &not_found("Server")), "{path}");
        let r = t.get(&format!("/servers/{}/{path}", nobody())).await;
        assert_eq!(r.status, 404, "{path}: {:?}", r.body);
    }
    let write = t.token_with(&["write"]).await;
    let r = t
        .call_as(
            &write,
            "GET",
            &format!("/servers/{}/domains", t.server),
            None,
        )
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
}
