//! What template.yaml promises an operator besides the routes and the
//! table (tests/tests/agreement.rs): every parameter is checked at deploy
//! time, every function logs to its own expiring group and has an alarm,
//! the API is throttled and logged, the stream consumer's mapping is
//! bounded, reports partial failures, sends what it skips somewhere and is
//! watched, and the dashboard is well-formed and shows every function.

use std::{collections::BTreeSet, fs, path::Path};

use serde_yaml::{Mapping, Value as Yaml};

fn template() -> Yaml {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml"));
    serde_yaml::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn resources(t: &Yaml) -> &Mapping {
    t["Resources"].as_mapping().unwrap()
}

/// The operand of a short-form intrinsic such as `!Ref X`.
fn tagged<'a>(v: &'a Yaml, tag: &str) -> Option<&'a Yaml> {
    match v {
        Yaml::Tagged(t) if t.tag == tag => Some(&t.value),
        _ => None,
    }
}

fn reference(v: &Yaml) -> Option<&str> {
    tagged(v, "Ref").and_then(Yaml::as_str)
}

/// Logical ids of the resources of one type.
fn of_type<'a>(t: &'a Yaml, ty: &str) -> Vec<(&'a str, &'a Yaml)> {
    resources(t)
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(ty))
        .map(|(k, r)| (k.as_str().unwrap(), r))
        .collect()
}

#[test]
fn every_parameter_fails_a_bad_value_at_deploy_time() {
    let t = template();
    let params = t["Parameters"].as_mapping().unwrap();
    assert!(!params.is_empty());
    for (name, p) in params {
        let name = name.as_str().unwrap();
        let bounded = match p["Type"].as_str().unwrap() {
            "String" => p.get("AllowedPattern").is_some() || p.get("AllowedValues").is_some(),
            "Number" => {
                p.get("AllowedValues").is_some()
                    || (p.get("MinValue").is_some() && p.get("MaxValue").is_some())
            }
            other => panic!("{name}: parameter type {other} is not checked here"),
        };
        assert!(bounded, "{name} accepts any value");
        assert!(p.get("Description").is_some(), "{name} has no description");
        if let Some(pattern) = p["AllowedPattern"].as_str() {
            assert!(
                pattern.starts_with('^') && pattern.ends_with('$'),
                "{name}: anchor the pattern"
            );
        }
    }
}

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
    assert_eq!(functions.len(), 11);
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
fn the_api_is_throttled_and_exposes_the_headers_clients_read() {
    let t = template();
    let api = &t["Resources"]["Api"]["Properties"];
    let route = &api["DefaultRouteSettings"];
    assert_eq!(
        reference(&route["ThrottlingRateLimit"]),
        Some("ThrottlingRateLimit")
    );
    assert_eq!(
        reference(&route["ThrottlingBurstLimit"]),
        Some("ThrottlingBurstLimit")
    );
    let cors = tagged(&api["CorsConfiguration"], "If").unwrap();
    assert_eq!(cors[0].as_str(), Some("HasCors"), "no origins, no CORS");
    let exposed: BTreeSet<&str> = cors[1]["ExposeHeaders"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    for h in ["link", "x-total-count", "x-request-id", "x-omitted-fields"] {
        assert!(exposed.contains(h), "CORS exposes {h}");
    }
    let reserved = &t["Globals"]["Function"]["ReservedConcurrentExecutions"];
    let reserved = tagged(reserved, "If").expect("reserved concurrency is opt-in");
    assert_eq!(reserved[0].as_str(), Some("HasReservedConcurrency"));
    assert_eq!(t["Globals"]["Function"]["Tracing"].as_str(), Some("Active"));
}

/// Every `!Ref`/`!GetAtt` operand inside a value, recursively.
fn refs(v: &Yaml, out: &mut BTreeSet<String>) {
    match v {
        Yaml::Tagged(t) => {
            if let ("Ref" | "GetAtt", Some(s)) =
                (t.tag.to_string().trim_start_matches('!'), t.value.as_str())
            {
                out.insert(s.split('.').next().unwrap().to_string());
            }
            refs(&t.value, out);
        }
        Yaml::Sequence(s) => s.iter().for_each(|x| refs(x, out)),
        Yaml::Mapping(m) => m.values().for_each(|x| refs(x, out)),
        _ => {}
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
    let body = tagged(
        &t["Resources"]["MonitoringDashboard"]["Properties"]["DashboardBody"],
        "Sub",
    )
    .and_then(Yaml::as_str)
    .expect("a !Sub string");
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
        let known = name.starts_with("AWS::") || resources(&t).contains_key(name.as_str());
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

/// The example lists only what it sets (SAM refuses an empty `Key=`): every
/// entry names a parameter, and every parameter it leaves out has a default
/// and is shown commented out. scripts/check-samconfig.py runs each entry
/// through the SAM CLI's own parser and the template's constraints.
#[test]
fn the_example_config_sets_or_shows_every_parameter() {
    let t = template();
    let params = t["Parameters"].as_mapping().unwrap();
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samconfig.example.toml"
    ));
    let text = fs::read_to_string(path).unwrap();
    let config: toml::Value = toml::from_str(&text).unwrap();
    let overrides: BTreeSet<&str> =
        config["default"]["deploy"]["parameters"]["parameter_overrides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                let (name, value) = o.as_str().unwrap().split_once('=').unwrap();
                assert!(!value.is_empty(), "{name}= is empty: SAM refuses it");
                name
            })
            .collect();
    for (name, spec) in params {
        let name = name.as_str().unwrap();
        if overrides.contains(name) {
            continue;
        }
        assert!(
            spec.get("Default").is_some(),
            "{name} is left out but has no default"
        );
        assert!(
            text.contains(&format!("#   \"{name}=")),
            "{name} is left out and not shown"
        );
    }
    for name in &overrides {
        assert!(params.contains_key(*name), "{name} is not a parameter");
    }
}

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
    assert_eq!(events.len(), 1, "one event: the table's stream");
    let (_, event) = events.iter().next().unwrap();
    assert_eq!(event["Type"].as_str(), Some("DynamoDB"));
    let e = &event["Properties"];
    assert_eq!(get_att(&e["Stream"]), Some("Table.StreamArn"));
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
    let retries = e["MaximumRetryAttempts"].as_u64().expect("bounded retries");
    assert_eq!(retries, u64::from(mapping::MAXIMUM_RETRY_ATTEMPTS));
    assert!((1..=100).contains(&retries), "{retries}");
    let age = e["MaximumRecordAgeInSeconds"]
        .as_u64()
        .expect("bounded age");
    assert_eq!(age, mapping::MAXIMUM_RECORD_AGE.as_secs());
    assert!(
        (60..=86_400).contains(&age),
        "{age}: bounded, and within the stream's 24 hours"
    );
    // What it gives up on goes to the topic, which exists with Alarms=off.
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
