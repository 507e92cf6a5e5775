//! Reads the table behind the API directly: secrets must not be stored.

use api_tests::Api;
use aws_sdk_dynamodb::types::AttributeValue;
use shared::{auth::token, db};

fn contains(v: &AttributeValue, needle: &str) -> bool {
    match v {
        AttributeValue::S(s) => s.contains(needle),
        AttributeValue::L(l) => l.iter().any(|x| contains(x, needle)),
        AttributeValue::M(m) => m.values().any(|x| contains(x, needle)),
        AttributeValue::Ss(ss) => ss.iter().any(|s| s.contains(needle)),
        _ => false,
    }
}

#[tokio::test]
async fn no_stored_item_holds_a_token_secret_or_a_password() {
    let api = Api::from_env();
    let u = api.new_user("vault").await;
    let (client, table) = api_tests::table().await;

    // The lookup item is keyed by the hash and exists.
    let lookup = client
        .get_item()
        .table_name(&table)
        .set_key(Some(db::keys::token_hash(&token::hash(&u.token))))
        .send()
        .await
        .unwrap();
    let item = lookup.item.expect("token stored under its hash");
    assert_eq!(item["user"], AttributeValue::S(u.name.to_lowercase()));

    // Nothing anywhere holds the secret or the password in clear (a full
    // read of the test table; fine in a test, never on a request path).
    let mut start = None;
    let mut seen = 0;
    loop {
        let page = client
            .scan()
            .table_name(&table)
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .unwrap();
        for item in page.items() {
            seen += 1;
            for (k, v) in item {
                assert!(
                    !contains(v, &u.token),
                    "attribute {k} holds the token secret"
                );
                assert!(
                    !contains(v, &u.password),
                    "attribute {k} holds the password"
                );
            }
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() => start = Some(k),
            _ => break,
        }
    }
    assert!(seen > 3, "the scan read the table ({seen} items)");
}
