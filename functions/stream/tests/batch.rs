//! The consumer in-process, on a table of its own: what it answers Lambda
//! for the sample event (events/stream-change-batch.json), for a batch
//! whose handler fails (parked, acknowledged) and for one it has no time
//! for, with DynamoDB Local's zero-padded sequence numbers.

use aws_lambda_events::dynamodb::Event;
use serde_json::{Value, json};
use shared::{
    consumer::Batch,
    db::{self, Db, keys},
    stream::{Change, Handler},
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
    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> shared::stream::Handled<'a> {
        Box::pin(async move {
            db.get(change.keys.clone()).await?;
            Err(shared::Error::Unavailable("not today".into()))
        })
    }
}

/// The sample event with DynamoDB Local's numbering (leading zeros).
fn padded_sample() -> Event {
    let mut event: Value =
        serde_json::from_str(include_str!("../../../events/stream-change-batch.json")).unwrap();
    for (i, r) in event["Records"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        r["dynamodb"]["SequenceNumber"] = json!(format!("{:021}", i + 1));
    }
    serde_json::from_value(event).unwrap()
}

#[tokio::test]
async fn a_failing_handler_s_changes_are_parked_and_the_batch_acknowledged() {
    let app = shared::testing::app().await;
    let handlers: Vec<Box<dyn Handler>> = vec![Box::new(FailsOnRepos)];
    let res = batch()
        .handle(&app, &handlers, padded_sample())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap(),
        json!({"batchItemFailures": []}),
        "nothing for Lambda to deliver again: the repository changes are parked"
    );
    let count = app.db.get(keys::parked_count()).await.unwrap();
    assert_eq!(
        count.map(|c| db::number(&c, "n")),
        Some(3),
        "the sample's three changes under REPO# sort keys"
    );
}

#[tokio::test]
async fn what_is_left_undone_is_reported_with_the_identifier_as_sent() {
    let app = shared::testing::app().await;
    let out_of_time = Batch {
        deadline: Some(std::time::Instant::now()),
        ..batch()
    };
    let res = out_of_time
        .handle(&app, &stream::handlers(&app), padded_sample())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&res).unwrap(),
        json!({"batchItemFailures": [{"itemIdentifier": "000000000000000000001"}]}),
        "no time to start: all of it is delivered again, named as DynamoDB Local named it"
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
