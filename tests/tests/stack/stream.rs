//! The stream consumer: mapped as the local pump is, and watched.

use std::collections::BTreeSet;

use serde_yaml::Value as Yaml;

use super::{of_type, reference, refs, tagged, template};

/// The operand of `!GetAtt X.Y` as "X.Y".
fn get_att(v: &Yaml) -> Option<&str> {
    tagged(v, "GetAtt").and_then(Yaml::as_str)
}

#[test]
fn the_stream_consumer_is_mapped_like_the_local_pump_and_watched() {
    use stream_pump::mapping;

    let t = template();
    let f = &t["Resources"]["StreamFunction"];
    assert_eq!(
        f["Metadata"]["BuildProperties"]["Binary"].as_str(),
        Some("stream")
    );
    let p = &f["Properties"];
    assert_eq!(p["Timeout"].as_u64(), Some(120));
    assert_eq!(p["MemorySize"].as_u64(), Some(256));
    let events = p["Events"].as_mapping().expect("the stream's event");
    assert_eq!(
        events.len(),
        2,
        "the table's stream and the sweeper's schedule"
    );
    let sweep = &events["Sweep"];
    assert_eq!(sweep["Type"].as_str(), Some("Schedule"));
    assert_eq!(
        sweep["Properties"]["Schedule"].as_str(),
        Some("rate(1 minute)")
    );
    assert!(
        shared::consumer::is_scheduled(&stream_pump::schedule::event()),
        "the pump's stand-in for the schedule is what the function takes for one"
    );
    let event = &events["TableStream"];
    assert_eq!(event["Type"].as_str(), Some("DynamoDB"));
    let e = &event["Properties"];
    let stream = tagged(&e["Stream"], "If").expect("the stream of the table in use");
    assert_eq!(stream[0].as_str(), Some("UsesExistingTable"));
    assert_eq!(reference(&stream[1]), Some("ExistingTableStreamArn"));
    assert_eq!(get_att(&stream[2]), Some("Table.StreamArn"));
    // What the pump does under `make dev` and `make test` is what the
    // mapping does on AWS.
    assert_eq!(
        e["StartingPosition"].as_str(),
        Some(mapping::STARTING_POSITION)
    );
    assert_eq!(e["BatchSize"].as_u64(), Some(mapping::BATCH_SIZE as u64));
    let types: Vec<&str> = e["FunctionResponseTypes"]
        .as_sequence()
        .expect("FunctionResponseTypes")
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(types, mapping::FUNCTION_RESPONSE_TYPES);
    assert_eq!(
        e["BisectBatchOnFunctionError"].as_bool(),
        Some(mapping::BISECT_BATCH_ON_FUNCTION_ERROR)
    );
    // The event filter passes the same partitions as the pump's.
    let filters = e["FilterCriteria"]["Filters"]
        .as_sequence()
        .expect("FilterCriteria.Filters");
    assert_eq!(filters.len(), 1);
    let pattern: serde_json::Value =
        serde_json::from_str(filters[0]["Pattern"].as_str().expect("a pattern")).unwrap();
    let prefixes: Vec<&str> = pattern["dynamodb"]["Keys"]["pk"]["S"]
        .as_array()
        .expect("a list of prefixes")
        .iter()
        .map(|p| p["prefix"].as_str().unwrap())
        .collect();
    assert_eq!(prefixes, mapping::FILTER_PARTITIONS);
    // Nothing is skipped: no bound on retries or age, as the pump.
    assert_eq!(mapping::MAXIMUM_RETRY_ATTEMPTS, None);
    assert_eq!(mapping::MAXIMUM_RECORD_AGE, None);
    assert_eq!(
        e["MaximumRetryAttempts"].as_i64(),
        Some(mapping::UNBOUNDED),
        "retried until it succeeds"
    );
    assert_eq!(
        e["MaximumRecordAgeInSeconds"].as_i64(),
        Some(mapping::UNBOUNDED),
        "kept as long as the stream keeps it"
    );
    // The stream holds a record 24 hours: the lag alarm fires long before.
    let age = 86_400;
    // What it would give up on (were it bounded) goes to the topic, which
    // exists with Alarms=off.
    let on_failure = &e["DestinationConfig"]["OnFailure"];
    assert_eq!(
        on_failure["Type"].as_str(),
        Some("SNS"),
        "SAM grants sns:Publish"
    );
    assert_eq!(reference(&on_failure["Destination"]), Some("AlarmTopic"));
    let topic = &t["Resources"]["AlarmTopic"];
    assert_eq!(topic["Type"].as_str(), Some("AWS::SNS::Topic"));
    assert!(
        topic.get("Condition").is_none(),
        "the topic may not depend on Alarms"
    );
    assert!(t["Outputs"]["AlarmTopic"].get("Condition").is_none());
    // Its own expiring log group (every_function_logs_to_its_own_expiring_group
    // checks the retention).
    assert_eq!(
        reference(&p["LoggingConfig"]["LogGroup"]),
        Some("StreamLogGroup")
    );

    // Alarms: the function's errors, and the consumer falling behind.
    let alarms = of_type(&t, "AWS::CloudWatch::Alarm");
    let watches = |metric: &str| {
        alarms.iter().any(|(_, a)| {
            let mut names = BTreeSet::new();
            refs(&a["Properties"], &mut names);
            let text = serde_yaml::to_string(&a["Properties"]).unwrap();
            names.contains("StreamFunction") && text.contains(&format!("MetricName: {metric}"))
        })
    };
    assert!(watches("Errors"), "an alarm on the consumer's errors");
    assert!(
        watches("IteratorAge"),
        "an alarm on the consumer falling behind"
    );
    let parked = alarms
        .iter()
        .find(|(_, a)| a["Properties"]["MetricName"].as_str() == Some("ParkedAge"))
        .map(|(_, a)| &a["Properties"])
        .expect("an alarm on a change parked too long");
    assert_eq!(parked["Statistic"].as_str(), Some("Maximum"));
    assert_eq!(
        parked["Threshold"].as_u64(),
        Some(3_600_000),
        "parked for over an hour"
    );
    let (_, age_alarm) = alarms
        .iter()
        .find(|(_, a)| a["Properties"]["MetricName"].as_str() == Some("IteratorAge"))
        .unwrap();
    let age_alarm = &age_alarm["Properties"];
    assert_eq!(age_alarm["Statistic"].as_str(), Some("Maximum"));
    let threshold = age_alarm["Threshold"].as_u64().unwrap();
    assert!(
        threshold < age * 1000,
        "the alarm ({threshold} ms) fires long before records age out ({age} s)"
    );
}
