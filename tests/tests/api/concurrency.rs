//! Lambda runs many copies at once: uniqueness must hold under concurrent
//! requests (served by several function instances).

use api_tests::{Api, unique};
use futures::future::join_all;
use serde_json::json;

#[tokio::test]
async fn twenty_simultaneous_creations_of_one_username_make_one_user() {
    let api = Api::from_env();
    let name = unique("race");
    let calls = (0..20).map(|i| {
        let body = json!({"username": name, "email": format!("{name}-{i}@example.com")});
        api.call("POST", "/api/v1/admin/users", api.admin(), Some(body))
    });
    let replies = join_all(calls).await;
    let created: Vec<_> = replies.iter().filter(|r| r.status == 201).collect();
    let refused = replies
        .iter()
        .filter(|r| r.status == 422 && r.message().starts_with("user already exists"))
        .count();
    assert_eq!(
        created.len(),
        1,
        "statuses: {:?}",
        replies.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    assert_eq!(refused, 19);
    let winner = created[0].body["email"].as_str().unwrap().to_string();
    let r = api
        .call("GET", &format!("/api/v1/users/{name}"), api.admin(), None)
        .await;
    assert_eq!(
        r.body["email"], winner,
        "the stored user is the one that was answered 201"
    );
}

#[tokio::test]
async fn simultaneous_claims_of_one_email_make_one_user() {
    let api = Api::from_env();
    let email = format!("{}@example.com", unique("shared"));
    let calls = (0..10).map(|_| {
        let body = json!({"username": unique("claim"), "email": email});
        api.call("POST", "/api/v1/admin/users", api.admin(), Some(body))
    });
    let replies = join_all(calls).await;
    assert_eq!(replies.iter().filter(|r| r.status == 201).count(), 1);
    assert_eq!(replies.iter().filter(|r| r.status == 422).count(), 9);
}
