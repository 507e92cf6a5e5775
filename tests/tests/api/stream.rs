//! The table's stream reaches its consumer: writes made through the API
//! are delivered to the `stream` function (by tools/stream-pump, as
//! Lambda's event source mapping delivers them on AWS) and acknowledged.

use api_tests::{Api, pump_stats, settle};
use serde_json::Value;

fn count(stats: &Value, key: &str) -> u64 {
    stats[key]
        .as_u64()
        .unwrap_or_else(|| panic!("/stats has no {key}: {stats}"))
}

#[tokio::test]
async fn writes_reach_the_consumer_and_are_acknowledged() {
    let api = Api::from_env();
    settle().await;
    let before = pump_stats().await;
    // A user (profile, e-mail guard, id counter), their token, a
    // repository: a dozen items put and updated.
    let user = api.new_user("streamer").await;
    api.new_repo(&user, "/api/v1/user/repos", false).await;
    settle().await;
    let after = pump_stats().await;
    let delivered = count(&after, "records_delivered") - count(&before, "records_delivered");
    assert!(
        delivered >= 5,
        "{delivered} records delivered for a user, a token and a repository: {after}"
    );
    assert!(count(&after, "invocations") > count(&before, "invocations"));
    for key in ["failures", "skipped_records", "unreachable"] {
        assert_eq!(count(&after, key), 0, "{key}: {after}");
    }
    assert_eq!(count(&after, "pending_records"), 0, "{after}");
}
