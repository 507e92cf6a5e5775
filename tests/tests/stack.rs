//! What template.yaml promises an operator besides the routes and the
//! table (tests/tests/agreement.rs): every parameter is checked at deploy
//! time, every function logs to its own expiring group and has an alarm,
//! the API is throttled and logged, and the dashboard is well-formed and
//! shows every function.

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
    assert_eq!(functions.len(), 10);
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
            assert!(
                shared::telemetry::emf::METRICS
                    .iter()
                    .any(|m| m.name == name),
                "the dashboard graphs {name}, which no function emits"
            );
        }
    }
}

#[test]
fn the_example_config_sets_every_parameter() {
    let t = template();
    let params: BTreeSet<&str> = t["Parameters"]
        .as_mapping()
        .unwrap()
        .keys()
        .map(|k| k.as_str().unwrap())
        .collect();
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../samconfig.example.toml"
    ));
    let config: toml::Value = toml::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let overrides: BTreeSet<&str> =
        config["default"]["deploy"]["parameters"]["parameter_overrides"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap().split('=').next().unwrap())
            .collect();
    assert_eq!(overrides, params);
}
