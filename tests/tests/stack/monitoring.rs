//! Logs, alarms and the dashboard: every function logs to its own
//! expiring group, the access log joins the function log, every function,
//! the table and the API have an alarm, and the dashboard shows them.

use std::collections::BTreeSet;

use serde_yaml::Value as Yaml;

use super::{of_type, reference, refs, resources, table_in_use, tagged, template};

#[test]
fn every_function_logs_to_its_own_expiring_group() {
    let t = template();
    let globals = &t["Globals"]["Function"];
    assert_eq!(globals["LoggingConfig"]["LogFormat"].as_str(), Some("JSON"));
    assert_eq!(
        reference(&globals["LoggingConfig"]["ApplicationLogLevel"]),
        Some("LogLevel"),
        "one log-level knob"
    );
    let env = globals["Environment"]["Variables"].as_mapping().unwrap();
    assert!(
        env.get("RUST_LOG").is_none(),
        "the functions read AWS_LAMBDA_LOG_LEVEL, which Lambda sets from ApplicationLogLevel"
    );
    for var in ["DYNAMODB_ENDPOINT", "DYNAMODB_TRANSACTION_LIMIT"] {
        assert!(env.get(var).is_some(), "{var} declared for sam local");
    }
    let functions = of_type(&t, "AWS::Serverless::Function");
    assert_eq!(functions.len(), 12);
    let mut groups = BTreeSet::new();
    for (id, f) in &functions {
        let group = reference(&f["Properties"]["LoggingConfig"]["LogGroup"])
            .unwrap_or_else(|| panic!("{id} has no log group of its own"));
        let res = &resources(&t)[group];
        assert_eq!(res["Type"].as_str(), Some("AWS::Logs::LogGroup"), "{id}");
        assert_eq!(
            reference(&res["Properties"]["RetentionInDays"]),
            Some("LogRetentionDays"),
            "{group}"
        );
        assert!(groups.insert(group), "{group} is shared");
    }
    let access = &t["Resources"]["Api"]["Properties"]["AccessLogSettings"];
    let dest = tagged(&access["DestinationArn"], "GetAtt").and_then(Yaml::as_str);
    assert_eq!(dest, Some("ApiAccessLogGroup.Arn"));
    // Every log group, the access log's included, outlives the stack (a
    // teardown leaves what it logged), still expiring.
    let all = of_type(&t, "AWS::Logs::LogGroup");
    assert_eq!(
        all.len(),
        functions.len() + 1,
        "a group per function, and the access log's"
    );
    for (id, g) in &all {
        assert_eq!(g["DeletionPolicy"].as_str(), Some("Retain"), "{id}");
        assert_eq!(g["UpdateReplacePolicy"].as_str(), Some("Retain"), "{id}");
        assert_eq!(
            reference(&g["Properties"]["RetentionInDays"]),
            Some("LogRetentionDays"),
            "{id}"
        );
    }
    let format = access["Format"].as_str().unwrap();
    let sample = format.replace('$', "");
    let line: serde_json::Value = serde_json::from_str(&sample).expect("access log lines are JSON");
    for key in ["requestId", "routeKey", "status", "responseLatency"] {
        assert!(line.get(key).is_some(), "access log has {key}");
    }
}

#[test]
fn every_function_table_and_the_api_have_an_alarm_to_the_topic() {
    let t = template();
    let alarms = of_type(&t, "AWS::CloudWatch::Alarm");
    let mut watched = BTreeSet::new();
    for (id, a) in &alarms {
        assert_eq!(a["Condition"].as_str(), Some("HasAlarms"), "{id}");
        let p = &a["Properties"];
        for actions in ["AlarmActions", "OKActions"] {
            let to: Vec<_> = p[actions]
                .as_sequence()
                .unwrap()
                .iter()
                .filter_map(reference)
                .collect();
            assert_eq!(to, ["AlarmTopic"], "{id} {actions}");
        }
        assert_eq!(
            p["TreatMissingData"].as_str(),
            Some("notBreaching"),
            "{id}: no traffic is fine"
        );
        refs(p, &mut watched);
    }
    for (id, _) in of_type(&t, "AWS::Serverless::Function") {
        assert!(watched.contains(id), "no alarm watches {id}");
    }
    for id in ["Api", "Table"] {
        assert!(watched.contains(id), "no alarm watches {id}");
    }
    let latency = alarms
        .iter()
        .find(|(id, _)| *id == "ApiLatencyAlarm")
        .unwrap()
        .1;
    assert_eq!(
        latency["Properties"]["ExtendedStatistic"].as_str(),
        Some("p99")
    );
}

#[test]
fn the_dashboard_is_json_and_shows_every_function() {
    let t = template();
    // `!Sub [body, {variables}]`: the table in use is a variable.
    let sub = tagged(
        &t["Resources"]["MonitoringDashboard"]["Properties"]["DashboardBody"],
        "Sub",
    )
    .and_then(Yaml::as_sequence)
    .expect("a !Sub of a body and its variables");
    let body = sub[0].as_str().expect("the body");
    let variables = sub[1].as_mapping().expect("the variables");
    assert!(table_in_use(&variables["TableInUse"]));
    let mut names = BTreeSet::new();
    let mut plain = String::new();
    let mut rest = body;
    while let Some(start) = rest.find("${") {
        let end = start + rest[start..].find('}').unwrap();
        plain.push_str(&rest[..start]);
        let name = &rest[start + 2..end];
        plain.push_str(name);
        names.insert(name.to_string());
        rest = &rest[end + 1..];
    }
    plain.push_str(rest);
    let doc: serde_json::Value = serde_json::from_str(&plain).expect("dashboard body is JSON");
    let widgets = doc["widgets"].as_array().unwrap();
    assert!(widgets.len() >= 8);
    for w in widgets {
        for key in ["x", "y", "width", "height"] {
            assert!(w[key].is_u64(), "widget {key}");
        }
    }
    for (id, _) in of_type(&t, "AWS::Serverless::Function") {
        assert!(names.contains(id), "the dashboard leaves out {id}");
    }
    for name in &names {
        let known = name.starts_with("AWS::")
            || resources(&t).contains_key(name.as_str())
            || variables.contains_key(name.as_str());
        assert!(known, "${{{name}}} names nothing");
    }
    // The per-request metrics it graphs are ones the functions emit.
    for w in widgets {
        for m in w["properties"]["metrics"].as_array().into_iter().flatten() {
            let Some(search) = m[0]["expression"].as_str() else {
                continue;
            };
            let name = search.split("MetricName=\"").nth(1).unwrap();
            let name = &name[..name.find('"').unwrap()];
            let emf = &shared::telemetry::emf::METRICS;
            let stream = &shared::telemetry::emf::STREAM_METRICS;
            assert!(
                emf.iter().chain(stream.iter()).any(|m| m.name == name),
                "the dashboard graphs {name}, which no function emits"
            );
        }
    }
}

/// Both logs carry both ids: the access log API Gateway's and the
/// function's (Lambda's request id, the client's x-request-id).
#[test]
fn the_access_log_joins_the_function_log() {
    let t = template();
    let format = t["Resources"]["Api"]["Properties"]["AccessLogSettings"]["Format"]
        .as_str()
        .unwrap();
    let line: serde_json::Value = serde_json::from_str(format).expect("a JSON line");
    assert_eq!(line["requestId"], "$context.requestId");
    assert_eq!(line["lambdaRequestId"], "$context.integration.requestId");
    assert_eq!(line["status"], "$context.status", "the 429 filter reads it");
}
