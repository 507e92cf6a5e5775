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
