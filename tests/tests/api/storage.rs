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

/// Deploy-key PEMs and provider-app secrets are stored sealed; one an
/// older release stored in the clear still reads, and the repair of
/// `check-data` seals it in place.
#[tokio::test]
async fn deploy_secrets_are_sealed_and_clear_ones_are_sealed_by_the_repair() {
    use api_tests::deploy::{Team, infra::provider_app_body};
    use shared::deploy::{self, ssh_keys, store::secret};
    let t = Team::new().await;
    let (secret_text, hook) = (api_tests::unique("client"), api_tests::unique("hook"));
    let app = t
        .created("/provider-apps", provider_app_body(&t, &secret_text, &hook))
        .await;
    let (client, table) = api_tests::table().await;
    let pk = db::keys::deploy_team_pk(&t.user.name);
    let read = |sk: String| {
        let (client, table, pk) = (client.clone(), table.clone(), pk.clone());
        async move {
            client
                .get_item()
                .table_name(&table)
                .set_key(Some(db::keys::key(&pk, &sk)))
                .consistent_read(true)
                .send()
                .await
                .unwrap()
                .item
                .expect("stored")
        }
    };
    let key_sk = ssh_keys::sk(&t.key);
    let stored_key = read(key_sk.clone()).await;
    let pem_line = api_tests::deploy::pem().lines().nth(1).unwrap().to_string();
    let sealed = stored_key["private_key"].as_s().unwrap();
    assert!(sealed.starts_with("s1:") && !contains(&stored_key["private_key"], &pem_line));
    let stored_app = read(format!("{}{app}", db::keys::PROVIDER_APP_PREFIX)).await;
    for (name, clear) in [("client_secret", &secret_text), ("webhook_secret", &hook)] {
        assert!(
            stored_app[name].as_s().unwrap().starts_with("s1:"),
            "{name}"
        );
        assert!(!contains(&stored_app[name], clear), "{name}");
    }

    // A key as an older release wrote it: the PEM in the clear.
    let config = shared::Config::from_env().unwrap();
    let clients = db::connect(&config).await;
    let sealer = std::sync::Arc::new(shared::seal::Sealer::from_config(&config, None));
    let store = db::Db::new(clients, config.table_name.clone());
    let team = deploy::Team::of_runner(&t.user.name.to_lowercase(), sealer);
    let pem = api_tests::deploy::pem();
    let mut old = stored_key.clone();
    old.insert("private_key".into(), AttributeValue::S(pem.clone()));
    client
        .put_item()
        .table_name(&table)
        .set_item(Some(old.clone()))
        .send()
        .await
        .unwrap();
    let record = ssh_keys::get(&store, &team, &t.key).await.unwrap().unwrap();
    assert_eq!(ssh_keys::pem(&store, &team, &record).await.unwrap(), pem);
    assert_eq!(
        secret::seal_stored(&store, &team, vec![old.clone()], ssh_keys::SECRETS)
            .await
            .unwrap(),
        1
    );
    let resealed = read(key_sk).await;
    assert!(resealed["private_key"].as_s().unwrap().starts_with("s1:"));
    let record = ssh_keys::get(&store, &team, &t.key).await.unwrap().unwrap();
    assert_eq!(ssh_keys::pem(&store, &team, &record).await.unwrap(), pem);
    // Run again on what was read before: the condition sees the change.
    assert_eq!(
        secret::seal_stored(&store, &team, vec![old], ssh_keys::SECRETS)
            .await
            .unwrap(),
        0
    );
}
