//! Projects and their environments: create, read, list, validation,
//! deletion while in use. Every write is read back.

use api_tests::{
    Auth,
    deploy::{Team, infra::*},
    unique,
};
use serde_json::{Value, json};

#[tokio::test]
async fn projects_create_read_list_and_environments() {
    let t = Team::new().await;
    let name = unique("proj");
    let r = t
        .post(
            "/projects",
            json!({"name": format!("  {name}  "), "description": "first"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let uuid = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": uuid}), "201 carries only the uuid");

    let p = t.get(&format!("/projects/{uuid}")).await;
    assert_eq!(p.status, 200);
    assert_eq!(p.body["uuid"], json!(uuid));
    assert_eq!(p.body["name"], json!(name), "trimmed");
    assert_eq!(p.body["description"], "first");
    let envs = p.body["environments"]
        .as_array()
        .expect("environments")
        .clone();
    assert_eq!(envs.len(), 1);
    assert_eq!(envs[0]["name"], "production");
    assert_eq!(envs[0]["project_uuid"], json!(uuid));
    let production = envs[0]["uuid"].as_str().unwrap().to_string();
    let listed = t.get(&format!("/projects/{uuid}/environments")).await;
    assert_eq!(listed.body, json!(envs));

    // The list is sorted by name.
    for n in ["zeta", "alpha", "Mid", "beta"] {
        t.created("/projects", json!({"name": n})).await;
    }
    let all = t.get("/projects").await.body;
    let names: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 6);
    assert!(uuids(&all).contains(&uuid));
    assert!(
        all.as_array()
            .unwrap()
            .iter()
            .all(|p| p.get("environments").is_none()),
        "{all}"
    );

    // Environments: create, read by name and by uuid.
    let r = t
        .post(
            &format!("/projects/{uuid}/environments"),
            json!({"name": "staging"}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let staging = r.body["uuid"].as_str().unwrap().to_string();
    assert_eq!(r.body, json!({"uuid": staging}));
    for key in ["staging", staging.as_str()] {
        let r = t.get(&format!("/projects/{uuid}/{key}")).await;
        assert_eq!(r.status, 200, "{key}: {:?}", r.body);
        assert_eq!(r.body["uuid"], json!(staging));
        assert_eq!(r.body["name"], "staging");
        assert_eq!(r.body["project_uuid"], json!(uuid));
    }
    let r = t.get(&format!("/projects/{uuid}/{production}")).await;
    assert_eq!(r.body["name"], "production");
    let names: Vec<Value> = t.get(&format!("/projects/{uuid}")).await.body["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, vec![json!("production"), json!("staging")]);

    // Duplicates conflict, by exact name.
    for dup in ["staging", "production", " staging "] {
        let r = t
            .post(
                &format!("/projects/{uuid}/environments"),
                json!({"name": dup}),
            )
            .await;
        assert_eq!(r.status, 409, "{dup}: {:?}", r.body);
        assert_eq!(
            r.body,
            message("Environment with this name already exists.")
        );
    }
    // Invalid environment bodies.
    for (body, errors) in [
        (json!({}), json!({"name": ["This field is required."]})),
        (
            json!({"name": ""}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": 7}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": "a/b"}),
            json!({"name": ["The name may contain letters, digits, spaces, '-', '_' and '.' only."]}),
        ),
        (
            json!({"name": "qa", "color": "red"}),
            json!({"color": ["This field is not allowed."]}),
        ),
    ] {
        let r = t
            .post(&format!("/projects/{uuid}/environments"), body.clone())
            .await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(
        count(&t.get(&format!("/projects/{uuid}/environments")).await),
        2
    );

    // Unknown environments.
    for missing in ["nope", "Staging", &nobody()] {
        let r = t.get(&format!("/projects/{uuid}/{missing}")).await;
        assert_eq!(
            (r.status, r.body),
            (404, message("Environment not found.")),
            "{missing}"
        );
    }

    // An application can be placed in the new environment.
    let app = t
        .app(json!({"project_uuid": uuid, "environment_name": "staging"}))
        .await;
    let got = t.get(&format!("/applications/{app}")).await;
    assert_eq!(got.status, 200);
    assert_eq!(
        got.body["environment_uuid"],
        json!(staging),
        "{:?}",
        got.body
    );
    assert_eq!(got.body["environment_name"], "staging");
    assert_eq!(got.body["project_uuid"], json!(uuid));
}

#[tokio::test]
async fn project_bodies_are_validated() {
    let t = Team::new().await;
    let long = "a".repeat(256);
    let cases = [
        (json!({}), json!({"name": ["This field is required."]})),
        (
            json!({"name": null}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": "   "}),
            json!({"name": ["This field is required."]}),
        ),
        (
            json!({"name": "p", "color": "red"}),
            json!({"color": ["This field is not allowed."]}),
        ),
        (
            json!({"color": "red", "size": 1}),
            json!({"name": ["This field is required."], "color": ["This field is not allowed."], "size": ["This field is not allowed."]}),
        ),
        (
            json!({"name": 5}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": ["p"]}),
            json!({"name": ["The name field must be a string."]}),
        ),
        (
            json!({"name": "p", "description": true}),
            json!({"description": ["The description field must be a string."]}),
        ),
        (
            json!({"name": long}),
            json!({"name": ["The name field must not be greater than 255 characters."]}),
        ),
        (
            json!({"name": "a\u{0}b"}),
            json!({"name": ["The name field must not contain NUL characters."]}),
        ),
    ];
    for (body, errors) in cases {
        let r = t.post("/projects", body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    // 255 characters is fine.
    let ok = t
        .created("/projects", json!({"name": "b".repeat(255)}))
        .await;
    assert_eq!(
        t.get(&format!("/projects/{ok}")).await.body["name"],
        json!("b".repeat(255))
    );

    // Bodies that are not a JSON object.
    for (content_type, raw) in [
        (Some("application/json"), "{\"name\": "),
        (Some("application/json"), "{\"name\": \"p\",}"),
        (Some("application/json"), "[{\"name\": \"p\"}]"),
        (Some("application/json"), "\"p\""),
        (Some("application/json"), ""),
        (Some("text/plain"), "{\"name\": \"p\"}"),
    ] {
        let r = t
            .api
            .raw(
                "POST",
                "/api/v1/projects",
                Auth::Bearer(&t.token),
                content_type,
                raw.as_bytes().to_vec(),
            )
            .await;
        assert_eq!(r.status, 400, "{content_type:?} {raw:?}: {:?}", r.body);
        assert!(!r.message().is_empty(), "{raw:?}: {:?}", r.body);
    }
    // Only the team's first project and the 255-character one exist.
    assert_eq!(count(&t.get("/projects").await), 2);
}

#[tokio::test]
async fn a_project_in_use_cannot_be_deleted() {
    let t = Team::new().await;
    let staging = t
        .created(
            &format!("/projects/{}/environments", t.project),
            json!({"name": "staging"}),
        )
        .await;
    let app = t.app(json!({})).await;
    let second = t.app(json!({"environment_name": "staging"})).await;
    let path = format!("/projects/{}", t.project);
    for left in [2, 1] {
        let r = t.delete(&path).await;
        assert_eq!(r.status, 400, "{left} apps left: {:?}", r.body);
        assert_eq!(
            r.body,
            message("Project has resources, so it cannot be deleted.")
        );
        assert_eq!(t.get(&path).await.status, 200);
        assert_eq!(count(&t.get(&format!("{path}/environments")).await), 2);
        let gone = if left == 2 { &app } else { &second };
        let r = t.delete(&format!("/applications/{gone}")).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (200, message("Project deleted.")));
    assert_eq!(
        (t.get(&path).await.status, t.get(&path).await.body),
        (404, not_found("Project"))
    );
    for sub in ["environments", "production", "staging", staging.as_str()] {
        assert_eq!(t.get(&format!("{path}/{sub}")).await.status, 404, "{sub}");
    }
    assert!(!uuids(&t.get("/projects").await.body).contains(&t.project));
    let r = t.delete(&path).await;
    assert_eq!((r.status, r.body), (404, not_found("Project")));
    // Nothing can be placed in it any more.
    let r = t.post("/applications/public", t.public(json!({}))).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    assert_eq!(
        r.body["errors"]["project_uuid"],
        json!(["Project not found."])
    );
    // An unused project deletes straight away.
    let empty = t.created("/projects", json!({"name": "empty"})).await;
    assert_eq!(t.delete(&format!("/projects/{empty}")).await.status, 200);
    assert_eq!(t.get(&format!("/projects/{empty}")).await.status, 404);
}
