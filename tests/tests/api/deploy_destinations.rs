//! Destinations and application placement, the counted limits of
//! environments and destinations under concurrency, and blank strings in
//! resource bodies.

use api_tests::{
    deploy::{Team, infra::*},
    unique,
};
use serde_json::{Value, json};

#[tokio::test]
async fn destinations_and_application_placement() {
    let t = Team::new().await;
    let dests = format!("/servers/{}/destinations", t.server);
    let network = unique("net");
    let r = t
        .post(&dests, json!({"name": "second", "network": network}))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let second = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": second}));
    let list = t.get(&dests).await.body;
    assert_eq!(
        uuids(&list),
        vec![t.destination.clone(), second.clone()],
        "oldest first"
    );
    assert_eq!(
        (
            &list[1]["name"],
            &list[1]["network"],
            &list[1]["server_uuid"]
        ),
        (&json!("second"), &json!(network), &json!(t.server))
    );
    assert_eq!(
        t.get(&format!("/servers/{}", t.server)).await.body["destinations"],
        list
    );

    for taken in [network.as_str(), "default"] {
        let r = t
            .post(&dests, json!({"name": "again", "network": taken}))
            .await;
        assert_eq!(r.status, 409, "{taken}: {:?}", r.body);
        assert_eq!(
            r.body,
            message(&format!(
                "A destination with network {taken} already exists on this server."
            ))
        );
    }
    let bad_network = "The network field format is invalid.";
    for (body, errors) in [
        (
            json!({}),
            json!({"name": ["This field is required."], "network": ["This field is required."]}),
        ),
        (
            json!({"name": "x"}),
            json!({"network": ["This field is required."]}),
        ),
        (
            json!({"name": "x", "network": "-lead"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "a b"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "n;rm"}),
            json!({"network": [bad_network]}),
        ),
        (
            json!({"name": "x", "network": "ok", "driver": "bridge"}),
            json!({"driver": ["This field is not allowed."]}),
        ),
    ] {
        let r = t.post(&dests, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(count(&t.get(&dests).await), 2);

    // Two destinations: the create must say which.
    let before = count(&t.get("/applications").await);
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body,
        invalid(
            json!({"destination_uuid": ["Server has multiple destinations and you do not set destination_uuid."]})
        )
    );
    // A destination of another server of the team does not do.
    let other = t
        .created(
            "/servers",
            json!({"name": "other", "ip": "198.51.100.30", "private_key_uuid": t.key}),
        )
        .await;
    let other_dest = uuids(&t.get(&format!("/servers/{other}/destinations")).await.body)[0].clone();
    for wrong in [other_dest.as_str(), &nobody()] {
        let r = t
            .post(
                "/applications/public",
                t.public(json!({"destination_uuid": wrong})),
            )
            .await;
        assert_eq!(r.status, 400, "{:?}", r.body);
        assert_eq!(
            r.body,
            invalid(
                json!({"destination_uuid": ["Provided destination_uuid does not belong to the specified server."]})
            )
        );
    }
    assert_eq!(
        count(&t.get("/applications").await),
        before,
        "nothing created"
    );
    let app = t.app(json!({"destination_uuid": second})).await;
    assert_eq!(
        t.get(&format!("/applications/{app}")).await.body["destination_uuid"],
        json!(second)
    );
}

#[tokio::test]
async fn environment_and_destination_limits_hold_under_concurrency() {
    let t = Team::new().await;
    // 45 concurrent environments on a project that has one: 39 fit.
    let project = t.created("/projects", json!({"name": "many"})).await;
    let path = format!("/projects/{project}/environments");
    let replies = futures::future::join_all(
        (0..45).map(|i| t.post(&path, json!({"name": format!("env-{i:02}")}))),
    )
    .await;
    let made = replies.iter().filter(|r| r.status == 201).count();
    assert_eq!(
        made,
        39,
        "{:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert!(replies.iter().all(|r| r.status == 201 || r.status == 400));
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 40);
    // Deleted in one transaction with all of them.
    assert_eq!(t.delete(&format!("/projects/{project}")).await.status, 200);
    assert_eq!(t.get(&format!("/projects/{project}")).await.status, 404);

    // Concurrent destinations with one network name: one wins.
    let path = format!("/servers/{}/destinations", t.server);
    let replies = futures::future::join_all((0..10).map(|i| {
        t.post(
            &path,
            json!({"name": format!("d{i}"), "network": "shared-net"}),
        )
    }))
    .await;
    let statuses: Vec<u16> = replies.iter().map(|r| r.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 201 || *s == 409),
        "{statuses:?}"
    );
    assert_eq!(t.get(&path).await.body.as_array().unwrap().len(), 2);
}

/// An empty string is `null`: optional fields take their default, and no
/// record is left without an attribute it needs (which would make it, and
/// every list holding it, unreadable).
#[tokio::test]
async fn empty_strings_never_break_a_record() {
    let t = Team::new().await;
    // Optional server fields sent empty take their defaults.
    let r = t
        .post(
            "/servers",
            json!({"name": "blanks", "ip": "198.51.100.50", "private_key_uuid": t.key,
                   "user": "", "proxy_type": "", "wildcard_domain": "", "description": ""}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let blanks = r.body["uuid"].as_str().unwrap().to_string();
    let b = t.get(&format!("/servers/{blanks}")).await;
    assert_eq!(b.status, 200, "{:?}", b.body);
    assert_eq!(
        (
            &b.body["user"],
            &b.body["proxy_type"],
            &b.body["wildcard_domain"],
            &b.body["description"]
        ),
        (
            &json!("root"),
            &json!("traefik"),
            &Value::Null,
            &Value::Null
        )
    );

    // A PATCH cannot take a server's name away; the server stays readable.
    let path = format!("/servers/{}", t.server);
    let r = t.patch(&path, json!({"description": "kept"})).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    for body in [
        json!({"name": ""}),
        json!({"name": "   "}),
        json!({"name": null}),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(
            r.body,
            invalid(json!({"name": ["This field is required."]})),
            "{body}"
        );
    }
    // Empty optional fields: user keeps its value, description and the
    // wildcard domain are cleared.
    let r = t
        .patch(
            &path,
            json!({"wildcard_domain": "https://w.example.com", "user": "deploy"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t
        .patch(
            &path,
            json!({"user": "", "description": "", "wildcard_domain": "", "proxy_type": ""}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let s = t.get(&path).await;
    assert_eq!(s.status, 200, "{:?}", s.body);
    assert_eq!(
        (
            &s.body["name"],
            &s.body["user"],
            &s.body["description"],
            &s.body["wildcard_domain"],
            &s.body["proxy_type"]
        ),
        (
            &json!("srv"),
            &json!("deploy"),
            &Value::Null,
            &Value::Null,
            &json!("traefik")
        )
    );
    let list = t.get("/servers").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert_eq!(uuids(&list.body).len(), 2);

    // A provider app's custom_user sent empty is the default `git`.
    let r = t
        .post(
            "/provider-apps",
            with(
                provider_app_body(&t, "s", "h"),
                json!({"custom_user": "", "organization": "", "webhook_secret": ""}),
            ),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(
        (&r.body["custom_user"], &r.body["organization"]),
        (&json!("git"), &Value::Null)
    );
    let list = t.get("/provider-apps").await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    assert_eq!(list.body[0]["custom_user"], "git");

    // Projects and keys with empty descriptions read back as null.
    let p = t
        .created("/projects", json!({"name": "p", "description": ""}))
        .await;
    assert_eq!(
        t.get(&format!("/projects/{p}")).await.body["description"],
        Value::Null
    );
    let k = t
        .created(
            "/security/keys",
            json!({"name": "k", "description": " ", "private_key": fresh_pem()}),
        )
        .await;
    assert_eq!(
        t.get(&format!("/security/keys/{k}")).await.body["description"],
        Value::Null
    );
    assert_eq!(t.get("/projects").await.status, 200);
    assert_eq!(t.get("/security/keys").await.status, 200);
}
