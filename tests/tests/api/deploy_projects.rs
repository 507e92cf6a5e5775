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

/// The numeric ids of one project's environments, by name.
async fn environment_ids(t: &Team, project: &str) -> Vec<(String, i64)> {
    let p = t.get(&format!("/projects/{project}")).await.body;
    p["environments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            assert_eq!(e["project_id"], p["id"], "{e}");
            (
                e["name"].as_str().unwrap().to_string(),
                e["id"].as_i64().expect("an environment's id"),
            )
        })
        .collect()
}

#[tokio::test]
async fn numeric_ids_link_applications_to_their_environments() {
    let t = Team::new().await;
    let first = t.get(&format!("/projects/{}", t.project)).await.body;
    let project_id = first["id"].as_i64().expect("a project's id");
    assert!(project_id >= 1);
    t.created(
        &format!("/projects/{}/environments", t.project),
        json!({"name": "staging"}),
    )
    .await;
    let other = t.created("/projects", json!({"name": "other"})).await;
    let other_id = t.get(&format!("/projects/{other}")).await.body["id"].clone();
    assert_ne!(other_id, json!(project_id), "projects have distinct ids");
    let envs = environment_ids(&t, &t.project).await;
    let mut all: Vec<i64> = envs.iter().map(|(_, id)| *id).collect();
    all.extend(environment_ids(&t, &other).await.iter().map(|(_, id)| *id));
    let mut distinct = all.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        3,
        "environment ids are unique in the team: {all:?}"
    );
    let id_of = |name: &str| envs.iter().find(|(n, _)| n == name).unwrap().1;
    // The environment read alone carries the same ids.
    let staging = t
        .get(&format!("/projects/{}/staging", t.project))
        .await
        .body;
    assert_eq!(staging["id"], json!(id_of("staging")));
    assert_eq!(staging["project_id"], json!(project_id));

    let a = t.app(json!({})).await;
    let b = t.app(json!({"environment_name": "staging"})).await;
    let got = t.get(&format!("/applications/{a}")).await.body;
    let a_id = got["id"].as_i64().expect("an application's id");
    assert_eq!(got["environment_id"], json!(id_of("production")));
    let listed = t.get("/applications").await.body;
    let row = |uuid: &str| {
        listed
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["uuid"] == json!(uuid))
            .unwrap()
            .clone()
    };
    assert_eq!(row(&a)["id"], json!(a_id));
    assert_eq!(row(&b)["environment_id"], json!(id_of("staging")));
    assert_ne!(row(&b)["id"], json!(a_id));
    // A move follows the environment; the application keeps its id.
    let r = t
        .patch(
            &format!("/applications/{b}"),
            json!({"project_uuid": other, "environment_name": "production"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let moved = t.get(&format!("/applications/{b}")).await.body;
    assert_eq!(moved["id"], row(&b)["id"]);
    let other_production = environment_ids(&t, &other).await[0].1;
    assert_eq!(moved["environment_id"], json!(other_production));
    // The ids are stored with the records.
    let pk = format!("DTEAM#{}", t.user.name.to_lowercase());
    let stored = api_tests::items_under(&pk, &format!("APP#{a}")).await;
    assert_eq!(stored[0]["id"].as_n().unwrap(), &a_id.to_string());
}

#[tokio::test]
async fn concurrent_creates_get_distinct_ids() {
    let t = Team::new().await;
    let projects = futures::future::join_all(
        (0..6).map(|i| t.created("/projects", json!({"name": format!("p{i}")}))),
    )
    .await;
    let mut ids = Vec::new();
    let mut envs = Vec::new();
    for p in &projects {
        ids.push(
            t.get(&format!("/projects/{p}")).await.body["id"]
                .as_i64()
                .unwrap(),
        );
        envs.extend(environment_ids(&t, p).await.into_iter().map(|(_, id)| id));
    }
    let apps =
        futures::future::join_all((0..6).map(|i| t.app(json!({"name": format!("a{i}")})))).await;
    let mut app_ids = Vec::new();
    for a in &apps {
        app_ids.push(
            t.get(&format!("/applications/{a}")).await.body["id"]
                .as_i64()
                .unwrap(),
        );
    }
    for (what, mut list) in [("projects", ids), ("environments", envs), ("apps", app_ids)] {
        let n = list.len();
        list.sort();
        list.dedup();
        assert_eq!(list.len(), n, "{what} got distinct ids: {list:?}");
    }
}

#[tokio::test]
async fn a_project_patch_follows_coolifys_rules() {
    let t = Team::new().await;
    let path = format!("/projects/{}", t.project);
    let before = t.get(&path).await.body;
    let r = t
        .patch(
            &path,
            json!({"name": "Shop (EU)", "description": "The shop."}),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    assert_eq!(
        r.body,
        json!({"uuid": t.project, "name": "Shop (EU)", "description": "The shop."})
    );
    let after = t.get(&path).await.body;
    assert_eq!(after["name"], "Shop (EU)");
    assert_eq!(after["description"], "The shop.");
    assert_eq!(after["id"], before["id"], "the id stays");
    assert_eq!(after["environments"], before["environments"]);
    assert_ne!(after["updated_at"], before["updated_at"]);
    // The name alone; then null clears the description.
    let r = t.patch(&path, json!({"name": "shop"})).await;
    assert_eq!(r.body["description"], "The shop.", "{:?}", r.body);
    let r = t.patch(&path, json!({"description": null})).await;
    assert_eq!((r.status, r.body["name"].clone()), (201, json!("shop")));
    assert_eq!(t.get(&path).await.body["description"], Value::Null);

    let long = "a".repeat(256);
    for (body, errors) in [
        (
            json!({"name": "ab"}),
            json!({"name": ["The name must be at least 3 characters."]}),
        ),
        (
            json!({"name": "a;b<c>"}),
            json!({"name": ["The name may only contain letters (including Unicode), numbers, spaces, and these characters: - _ . / @ & ( ) # , : +"]}),
        ),
        (
            json!({"name": long}),
            json!({"name": ["The name field must not be greater than 255 characters."]}),
        ),
        (
            json!({"description": "a$b"}),
            json!({"description": ["The description may only contain letters (including Unicode), numbers, spaces, and common punctuation: - _ . , ! ? ( ) ' \" + = * / @ &"]}),
        ),
        (
            json!({"name": 7, "environments": []}),
            json!({"name": ["The name field must be a string."], "environments": ["This field is not allowed."]}),
        ),
    ] {
        let r = t.patch(&path, body.clone()).await;
        assert_eq!(r.status, 400, "{body}: {:?}", r.body);
        assert_eq!(r.body, invalid(errors), "{body}");
    }
    assert_eq!(t.get(&path).await.body["name"], "shop", "nothing changed");
    let r = t
        .call("PATCH", &path, Some(json!(["not", "an", "object"])))
        .await;
    assert_eq!(r.status, 400, "{:?}", r.body);
    let r = t
        .patch(&format!("/projects/{}", nobody()), json!({"name": "abc"}))
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Project")));
    // The write leaves the project's counts alone: still in use.
    t.app(json!({})).await;
    t.patch(&path, json!({"name": "still used"})).await;
    assert_eq!(t.delete(&path).await.status, 400);
    // A read-only token may not.
    let read = t.token_with(&["read"]).await;
    let r = t
        .call_as(&read, "PATCH", &path, Some(json!({"name": "abc"})))
        .await;
    assert_eq!(r.status, 403, "{:?}", r.body);
}

#[tokio::test]
async fn an_environment_holding_resources_cannot_be_deleted() {
    let t = Team::new().await;
    let envs = format!("/projects/{}/environments", t.project);
    let staging = t.created(&envs, json!({"name": "staging"})).await;
    let qa = t.created(&envs, json!({"name": "qa"})).await;
    let app = t.app(json!({"environment_name": "staging"})).await;
    for key in ["staging", staging.as_str()] {
        let r = t.delete(&format!("{envs}/{key}")).await;
        assert_eq!(
            (r.status, r.body),
            (
                400,
                message("Environment has resources, so it cannot be deleted.")
            ),
            "{key}"
        );
    }
    assert_eq!(count(&t.get(&envs).await), 3);
    // An empty one goes, by uuid; its name is free again.
    let r = t.delete(&format!("{envs}/{qa}")).await;
    assert_eq!((r.status, r.body), (200, message("Environment deleted.")));
    assert_eq!(
        t.get(&format!("/projects/{}/qa", t.project)).await.status,
        404
    );
    t.created(&envs, json!({"name": "qa"})).await;
    for missing in ["nope", nobody().as_str(), qa.as_str()] {
        let r = t.delete(&format!("{envs}/{missing}")).await;
        assert_eq!(
            (r.status, r.body),
            (404, not_found("Environment")),
            "{missing}"
        );
    }
    let r = t
        .delete(&format!("/projects/{}/environments/qa", nobody()))
        .await;
    assert_eq!((r.status, r.body), (404, not_found("Project")));
    // Once its application leaves, staging goes, and the project counts
    // one environment less (production and qa are left).
    let r = t
        .patch(
            &format!("/applications/{app}"),
            json!({"environment_name": "production"}),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let r = t.delete(&format!("{envs}/staging")).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let pk = format!("DTEAM#{}", t.user.name.to_lowercase());
    let project = api_tests::items_under(&pk, &format!("PROJECT#{}", t.project)).await;
    let item = project
        .iter()
        .find(|i| i["kind"].as_s().ok().map(String::as_str) == Some("project"))
        .unwrap();
    assert_eq!(item["envs"].as_n().unwrap(), "2");
    assert_eq!(
        project.len(),
        1 + 2 * 2,
        "the project, two environments and their name guards"
    );
    // production holds the application now.
    let r = t.delete(&format!("{envs}/production")).await;
    assert_eq!(r.status, 400, "{:?}", r.body);
}

#[tokio::test]
async fn an_environment_delete_and_a_create_into_it_never_both_win() {
    let t = Team::new().await;
    let envs = format!("/projects/{}/environments", t.project);
    // Another application keeps the project in use, so the delete looks.
    t.app(json!({})).await;
    for round in 0..4 {
        let name = format!("race{round}");
        t.created(&envs, json!({"name": name})).await;
        let create = t.post(
            "/applications/public",
            t.public(json!({"environment_name": name})),
        );
        let env_path = format!("{envs}/{name}");
        let delete = t.delete(&env_path);
        let (created, deleted) = tokio::join!(create, delete);
        let env_left = t
            .get(&format!("/projects/{}/{name}", t.project))
            .await
            .status
            == 200;
        match (created.status, deleted.status) {
            (201, 400) => assert!(env_left, "round {round}"),
            (400 | 503, 200) => assert!(!env_left, "round {round}: {:?}", created.body),
            other => panic!(
                "round {round}: {other:?} {:?} {:?}",
                created.body, deleted.body
            ),
        }
        if created.status == 201 {
            let app = created.body["uuid"].as_str().unwrap();
            let got = t.get(&format!("/applications/{app}")).await.body;
            assert_eq!(got["environment_name"], json!(name));
        }
    }
}

/// Records an older release wrote have no numeric ids: they render
/// without them (never 0 or null, which clients would match), and the
/// repair of `check-data` numbers them, parents first.
#[tokio::test]
async fn records_from_before_ids_render_without_them_until_the_repair() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use shared::db::keys;
    let t = Team::new().await;
    let app = t.app(json!({})).await;
    let pk = keys::deploy_team_pk(&t.user.name);
    let project_sk = keys::project_sk(&t.project);
    let env_sk = keys::environment_sk(&t.project, &t.environment);
    let app_sk = format!("APP#{app}");
    let (client, table) = api_tests::table().await;
    // As an older release wrote them.
    for (sk, attributes) in [
        (&project_sk, "id"),
        (&env_sk, "id, project_id"),
        (&app_sk, "id, environment_id"),
    ] {
        client
            .update_item()
            .table_name(&table)
            .set_key(Some(keys::key(&pk, sk)))
            .update_expression(format!("REMOVE {attributes}"))
            .send()
            .await
            .unwrap();
    }
    let project = t.get(&format!("/projects/{}", t.project)).await.body;
    assert!(project.get("id").is_none(), "{project}");
    let env = &project["environments"][0];
    assert!(
        env.get("id").is_none() && env.get("project_id").is_none(),
        "{env}"
    );
    let got = t.get(&format!("/applications/{app}")).await.body;
    assert!(got.get("id").is_none() && got.get("environment_id").is_none());
    let version = |item: &std::collections::HashMap<String, AttributeValue>| {
        item["version"].as_n().unwrap().parse::<i64>().unwrap()
    };
    let before = version(&api_tests::items_under(&pk, &app_sk).await[0]);

    // The repair, on the application alone: its environment is numbered
    // first; then the environment's own finding links it to its project.
    let config = shared::Config::from_env().unwrap();
    let store = shared::db::Db::new(
        shared::db::connect(&config).await,
        config.table_name.clone(),
    );
    let sealer = std::sync::Arc::new(shared::seal::Sealer::from_config(&config, None));
    let finding = |sk: &str| doctor::Finding {
        what: "deploy record without its numeric ids",
        pk: pk.clone(),
        sk: sk.to_string(),
        fix: doctor::Fix::AssignIds,
    };
    let mut report = doctor::Report {
        drift: vec![finding(&app_sk), finding(&env_sk), finding(&project_sk)],
        ..Default::default()
    };
    doctor::repair(&store, &sealer, &mut report).await.unwrap();
    assert_eq!((report.repaired, report.skipped), (3, 0));
    let project = t.get(&format!("/projects/{}", t.project)).await.body;
    let env = &project["environments"][0];
    let got = t.get(&format!("/applications/{app}")).await.body;
    assert!(project["id"].as_i64().is_some_and(|n| n >= 1), "{project}");
    assert_eq!(env["project_id"], project["id"]);
    assert!(env["id"].as_i64().is_some(), "{env}");
    assert_eq!(got["environment_id"], env["id"]);
    assert!(got["id"].as_i64().is_some());
    // The application's version moved: an edit read before is refused.
    assert!(version(&api_tests::items_under(&pk, &app_sk).await[0]) > before);
    // Running it again changes nothing.
    let ids = (project["id"].clone(), env["id"].clone(), got["id"].clone());
    doctor::repair(&store, &sealer, &mut report).await.unwrap();
    let again = t.get(&format!("/applications/{app}")).await.body;
    assert_eq!(again["id"], ids.2);
    assert_eq!(
        t.get(&format!("/projects/{}", t.project)).await.body["id"],
        ids.0
    );
}
