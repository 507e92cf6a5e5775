//! The consumer in-process, on a table of its own: what it answers Lambda
//! for the sample event (events/stream-change-batch.json) and for a batch
//! whose handler fails, with DynamoDB Local's zero-padded sequence numbers.

use aws_lambda_events::dynamodb::Event;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use shared::{
    db::Db,
    stream::{Change, Handler, run::Batch},
};

fn sample() -> Event {
    let text = include_str!("../../../events/stream-change-batch.json");
    serde_json::from_str(text).expect("the sample event parses as Lambda's DynamoDB event")
}

fn batch() -> Batch<'static> {
    Batch {
        grant: &stream::DYNAMODB,
        request_id: "test",
        deadline: None,
    }
}

#[tokio::test]
async fn the_sample_event_is_acknowledged_whole() {
    let app = shared::testing::app().await;
    let res = batch()
        .handle(&app, &stream::handlers(&app), sample())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap(),
        json!({"batchItemFailures": []}),
        "Lambda's partial batch response, nothing to redeliver"
    );
}

/// Fails on repositories, reading the table first (as a real handler
/// would), so the batch's cost is counted.
struct FailsOnRepos;

impl Handler for FailsOnRepos {
    fn name(&self) -> &'static str {
        "fails-on-repos"
    }
    fn wants(&self, change: &Change) -> bool {
        change.sk().starts_with("REPO#")
    }
    fn handle<'a>(
        &'a self,
        db: &'a Db,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<(), shared::Error>> {
        Box::pin(async move {
            db.get(change.keys.clone()).await?;
            Err(shared::Error::Unavailable("not today".into()))
        })
    }
}

#[tokio::test]
async fn the_first_failure_is_reported_with_the_identifier_as_sent() {
    let app = shared::testing::app().await;
    let mut event: Value =
        serde_json::from_str(include_str!("../../../events/stream-change-batch.json")).unwrap();
    // DynamoDB Local numbers its records with leading zeros.
    for (i, r) in event["Records"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        r["dynamodb"]["SequenceNumber"] = json!(format!("{:021}", i + 1));
    }
    let event: Event = serde_json::from_value(event).unwrap();
    let handlers: Vec<Box<dyn Handler>> = vec![Box::new(FailsOnRepos)];
    let res = batch().handle(&app, &handlers, event).await.unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap(),
        json!({"batchItemFailures": [{"itemIdentifier": "000000000000000000002"}]}),
        "the counter's insert is done; the repository's insert and what follows are redelivered"
    );
}

#[tokio::test]
async fn an_empty_batch_is_a_warm_up() {
    let app = shared::testing::app().await;
    let event: Event = serde_json::from_value(json!({"Records": []})).unwrap();
    let res = batch()
        .handle(&app, &stream::handlers(&app), event)
        .await
        .unwrap();
    assert!(res.batch_item_failures.is_empty());
}
