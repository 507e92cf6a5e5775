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

/// `!If [UsesExistingTable, !Ref ExistingTableName, !Ref Table]`: the name
/// of the table the stack serves from.
fn table_in_use(v: &Yaml) -> bool {
    tagged(v, "If")
        .and_then(Yaml::as_sequence)
        .is_some_and(|c| {
            c.len() == 3
                && c[0].as_str() == Some("UsesExistingTable")
                && reference(&c[1]) == Some("ExistingTableName")
                && reference(&c[2]) == Some("Table")
        })
}

/// Whether a value names the stack's own table (`!Ref Table`,
/// `!GetAtt Table.X`, `${Table}` or `${Table.X}` in a `!Sub`).
fn names_own_table(v: &Yaml) -> bool {
    match v {
        Yaml::Tagged(t) => {
            let tag = t.tag.to_string();
            let own = match (tag.trim_start_matches('!'), &t.value) {
                ("Ref", Yaml::String(s)) => s == "Table",
                ("GetAtt", Yaml::String(s)) => s.starts_with("Table."),
                ("Sub", Yaml::String(s)) => s.contains("${Table}") || s.contains("${Table."),
                _ => false,
            };
            own || names_own_table(&t.value)
        }
        Yaml::Sequence(s) => s.iter().any(names_own_table),
        Yaml::Mapping(m) => m.values().any(names_own_table),
        _ => false,
    }
}

/// The paths (dotted) under `v` where the stack's own table is named other
/// than as the "else" of `!If [UsesExistingTable, ..]`.
fn own_table_outside_the_choice(path: &str, v: &Yaml, out: &mut Vec<String>) {
    match v {
        Yaml::Tagged(t) => {
            if let Some(c) = tagged(v, "If").and_then(Yaml::as_sequence)
                && c.first().and_then(Yaml::as_str) == Some("UsesExistingTable")
            {
                if names_own_table(&c[1]) {
                    out.push(format!("{path} (the existing table's branch)"));
                }
                return;
            }
            let own = match (t.tag.to_string().trim_start_matches('!'), &t.value) {
                ("Ref", Yaml::String(s)) => s == "Table",
                ("GetAtt", Yaml::String(s)) => s.starts_with("Table."),
                ("Sub", Yaml::String(s)) => s.contains("${Table}") || s.contains("${Table."),
                _ => false,
            };
            if own {
                out.push(path.to_string());
            }
            own_table_outside_the_choice(path, &t.value, out);
        }
        Yaml::Sequence(s) => {
            for (i, x) in s.iter().enumerate() {
                own_table_outside_the_choice(&format!("{path}[{i}]"), x, out);
            }
        }
        Yaml::Mapping(m) => {
            for (k, x) in m {
                let key = k.as_str().unwrap_or("?");
                own_table_outside_the_choice(&format!("{path}.{key}"), x, out);
            }
        }
        _ => {}
    }
}

/// ExistingTableName moves everything that uses the table (the functions'
/// TABLE_NAME and grants, the stream consumer, the alarm, the dashboard,
/// the TableName output) to an existing table, while the stack's own Table
/// stays (a condition on it would delete it, or orphan it).
#[test]
fn an_existing_table_replaces_the_own_one_everywhere() {
    let t = template();
    let table = &t["Resources"]["Table"];
    assert!(table.get("Condition").is_none(), "Table stays in the stack");
    assert_eq!(table["DeletionPolicy"].as_str(), Some("Retain"));
    let mut outside = Vec::new();
    for (id, r) in resources(&t) {
        let id = id.as_str().unwrap();
        if id != "Table" {
            own_table_outside_the_choice(id, r, &mut outside);
        }
    }
    own_table_outside_the_choice("Globals", &t["Globals"], &mut outside);
    for (id, o) in t["Outputs"].as_mapping().unwrap() {
        let id = id.as_str().unwrap();
        if id != "StackTableName" {
            own_table_outside_the_choice(&format!("Outputs.{id}"), o, &mut outside);
        }
    }
    assert_eq!(
        outside,
        Vec::<String>::new(),
        "names Table whatever ExistingTableName says"
    );
    let env = &t["Globals"]["Function"]["Environment"]["Variables"];
    assert!(table_in_use(&env["TABLE_NAME"]));
    assert!(table_in_use(&t["Outputs"]["TableName"]["Value"]));
    assert_eq!(
        reference(&t["Outputs"]["StackTableName"]["Value"]),
        Some("Table")
    );
    let rule = &t["Rules"]["ExistingTableNeedsItsStream"];
    assert!(
        serde_yaml::to_string(rule)
            .unwrap()
            .contains("ExistingTableStreamArn"),
        "a table without its stream is refused before anything changes"
    );
}

/// Every function publishes versions behind `live`, which CodeDeploy moves
/// by DeploymentStrategy (all at once with Alarms=off), rolling back when
/// the function's own alarm, which watches the alias, or the API's 5xx
/// alarm fires. scripts/check-transform.py checks what SAM makes of it.
#[test]
fn releases_shift_traffic_through_an_alias_and_roll_back_on_alarms() {
    let t = template();
    let globals = &t["Globals"]["Function"];
    assert_eq!(globals["AutoPublishAlias"].as_str(), Some("live"));
    let kind = tagged(&globals["DeploymentPreference"]["Type"], "If")
        .and_then(Yaml::as_sequence)
        .expect("the strategy depends on Alarms");
    assert_eq!(kind[0].as_str(), Some("HasAlarms"));
    assert_eq!(
        tagged(&kind[1], "Sub").and_then(Yaml::as_str),
        Some("CodeDeployDefault.Lambda${DeploymentStrategy}")
    );
    assert_eq!(kind[2].as_str(), Some("AllAtOnce"));
    let strategies = t["Parameters"]["DeploymentStrategy"]["AllowedValues"]
        .as_sequence()
        .unwrap();
    assert!(strategies.iter().any(|s| s.as_str() == Some("AllAtOnce")));
    assert!(
        t["Parameters"]["DeploymentStrategy"]["Default"]
            .as_str()
            .unwrap()
            .starts_with("Canary")
    );
    for (id, f) in of_type(&t, "AWS::Serverless::Function") {
        let alarms = tagged(&f["Properties"]["DeploymentPreference"]["Alarms"], "If")
            .and_then(Yaml::as_sequence)
            .unwrap_or_else(|| panic!("{id}: no rollback alarms"));
        assert_eq!(alarms[0].as_str(), Some("HasAlarms"), "{id}");
        let on: Vec<&str> = alarms[1]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(reference)
            .collect();
        let own = format!("{id}Alarm");
        assert!(
            on.contains(&own.as_str()),
            "{id}: its own alarm rolls it back"
        );
        if id != "StreamFunction" {
            assert!(
                on.contains(&"Api5xxAlarm"),
                "{id}: the API's 5xx rolls it back"
            );
        }
        assert_eq!(alarms[2].as_sequence().map(Vec::len), Some(0), "{id}");
        // The alarm watches the alias, which every invocation goes through.
        let text = serde_yaml::to_string(&t["Resources"][own.as_str()]).unwrap();
        assert_eq!(
            text.matches("Name: Resource").count(),
            2,
            "{own}: errors and throttles of the alias"
        );
        assert!(text.contains(&format!("${{{id}}}:live")), "{own}");
    }
}

/// A custom domain: API Gateway's regional domain with the operator's
/// certificate, mapped to the stage; the root URL follows RootUrl, else the
/// domain; the execute-api URL can be switched off, and only with a domain.
#[test]
fn a_custom_domain_gets_its_resources_and_the_root_url() {
    let t = template();
    let domain = &t["Resources"]["ApiDomain"];
    assert_eq!(
        domain["Type"].as_str(),
        Some("AWS::ApiGatewayV2::DomainName")
    );
    assert_eq!(domain["Condition"].as_str(), Some("HasDomain"));
    let p = &domain["Properties"];
    assert_eq!(reference(&p["DomainName"]), Some("DomainName"));
    let config = &p["DomainNameConfigurations"][0];
    assert_eq!(
        reference(&config["CertificateArn"]),
        Some("DomainCertificateArn")
    );
    assert_eq!(config["EndpointType"].as_str(), Some("REGIONAL"));
    assert_eq!(config["SecurityPolicy"].as_str(), Some("TLS_1_2"));
    let mapping = &t["Resources"]["ApiDomainMapping"];
    assert_eq!(
        mapping["Type"].as_str(),
        Some("AWS::ApiGatewayV2::ApiMapping")
    );
    assert_eq!(mapping["Condition"].as_str(), Some("HasDomain"));
    let p = &mapping["Properties"];
    assert_eq!(reference(&p["ApiId"]), Some("Api"));
    assert_eq!(reference(&p["DomainName"]), Some("ApiDomain"));
    assert_eq!(p["Stage"].as_str(), Some("$default"));
    let switch = tagged(
        &t["Resources"]["Api"]["Properties"]["DisableExecuteApiEndpoint"],
        "If",
    )
    .and_then(Yaml::as_sequence)
    .unwrap();
    assert_eq!(switch[0].as_str(), Some("DisablesDefaultEndpoint"));
    let condition = serde_yaml::to_string(&t["Conditions"]["DisablesDefaultEndpoint"]).unwrap();
    assert!(condition.contains("HasDomain"), "off only with a domain");
    for rule in ["DomainNeedsCertificate", "DefaultEndpointOffNeedsDomain"] {
        assert!(t["Rules"].get(rule).is_some(), "{rule}");
    }
    // RootUrl, else https://<domain>/, else empty (the request's own
    // API Gateway domain).
    let root = tagged(
        &t["Globals"]["Function"]["Environment"]["Variables"]["ROOT_URL"],
        "If",
    )
    .and_then(Yaml::as_sequence)
    .unwrap();
    assert_eq!(root[0].as_str(), Some("HasRootUrl"));
    assert_eq!(reference(&root[1]), Some("RootUrl"));
    let fallback = tagged(&root[2], "If").and_then(Yaml::as_sequence).unwrap();
    assert_eq!(fallback[0].as_str(), Some("HasDomain"));
    assert_eq!(
        tagged(&fallback[1], "Sub").and_then(Yaml::as_str),
        Some("https://${DomainName}/")
    );
    assert_eq!(fallback[2].as_str(), Some(""));
    assert_eq!(
        t["Outputs"]["RegionalDomainName"]["Condition"].as_str(),
        Some("HasDomain")
    );
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

/// HTTP APIs publish no throttle metric: the access log's 429s are counted
/// by a metric filter, and graphed.
#[test]
fn throttled_requests_are_counted_from_the_access_log() {
    let t = template();
    let filters = of_type(&t, "AWS::Logs::MetricFilter");
    let (_, f) = filters
        .iter()
        .find(|(_, f)| reference(&f["Properties"]["LogGroupName"]) == Some("ApiAccessLogGroup"))
        .expect("a metric filter on the access log");
    let p = &f["Properties"];
    assert_eq!(p["FilterPattern"].as_str(), Some(r#"{ $.status = "429" }"#));
    let m = &p["MetricTransformations"][0];
    assert_eq!(reference(&m["MetricNamespace"]), Some("AWS::StackName"));
    assert_eq!(m["MetricValue"].as_str(), Some("1"));
    let name = m["MetricName"].as_str().unwrap();
    let dashboard = serde_yaml::to_string(&t["Resources"]["MonitoringDashboard"]).unwrap();
    assert!(
        dashboard.contains(&format!("\"{name}\"")),
        "the dashboard graphs {name}"
    );
}

/// The throttle alarm adds the table's and every index's read and write
/// throttles (an index's are published under its name only).
#[test]
fn the_throttle_alarm_covers_every_index_both_ways() {
    let t = template();
    let indexes: Vec<&str> = t["Resources"]["Table"]["Properties"]["GlobalSecondaryIndexes"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|i| i["IndexName"].as_str().unwrap())
        .collect();
    let alarm = &t["Resources"]["TableThrottleAlarm"]["Properties"];
    let metrics = alarm["Metrics"].as_sequence().unwrap();
    let expression = metrics
        .iter()
        .find_map(|m| m["Expression"].as_str())
        .unwrap();
    let mut covered = BTreeSet::new();
    for m in metrics {
        let Some(id) = m["Id"].as_str() else { continue };
        let metric = &m["MetricStat"]["Metric"];
        let Some(name) = metric["MetricName"].as_str() else {
            continue;
        };
        assert!(
            expression.contains(&format!("FILL({id}, 0)")),
            "{id} is not added"
        );
        let dims = metric["Dimensions"].as_sequence().unwrap();
        assert!(table_in_use(&dims[0]["Value"]), "{id}: the table in use");
        let index = dims
            .iter()
            .find(|d| d["Name"].as_str() == Some("GlobalSecondaryIndexName"))
            .map(|d| d["Value"].as_str().unwrap().to_string());
        covered.insert((name.to_string(), index));
    }
    for name in ["ReadThrottleEvents", "WriteThrottleEvents"] {
        assert!(covered.contains(&(name.to_string(), None)), "table {name}");
        for i in &indexes {
            assert!(
                covered.contains(&(name.to_string(), Some(i.to_string()))),
                "{i} {name}"
            );
        }
    }
}

/// The cross-repository search, the costliest read, has its own throttle,
/// set by parameters and within the stage's.
#[test]
fn the_search_route_has_its_own_throttle() {
    let t = template();
    let settings = t["Resources"]["Api"]["Properties"]["RouteSettings"]
        .as_mapping()
        .expect("route settings");
    let key = "GET /api/v1/repos/issues/search";
    let search = &settings[key];
    assert_eq!(
        reference(&search["ThrottlingRateLimit"]),
        Some("SearchThrottlingRateLimit")
    );
    assert_eq!(
        reference(&search["ThrottlingBurstLimit"]),
        Some("SearchThrottlingBurstLimit")
    );
    // Every key is a route some function serves (API Gateway refuses
    // settings for a route it does not have).
    let routes: BTreeSet<String> = of_type(&t, "AWS::Serverless::Function")
        .iter()
        .flat_map(|(_, f)| f["Properties"]["Events"].as_mapping().into_iter().flatten())
        .filter(|(_, e)| e["Type"].as_str() == Some("HttpApi"))
        .filter_map(|(_, e)| {
            let p = &e["Properties"];
            Some(format!("{} {}", p["Method"].as_str()?, p["Path"].as_str()?))
        })
        .collect();
    for (k, _) in settings {
        assert!(routes.contains(k.as_str().unwrap()), "{k:?} is no route");
    }
    let p = &t["Parameters"];
    for (own, stage) in [
        ("SearchThrottlingRateLimit", "ThrottlingRateLimit"),
        ("SearchThrottlingBurstLimit", "ThrottlingBurstLimit"),
    ] {
        assert!(
            p[own]["Default"].as_u64() <= p[stage]["Default"].as_u64(),
            "{own} lower than the stage's by default"
        );
    }
}

/// Tracing is a parameter, off by default (README "Tracing" says why).
#[test]
fn tracing_is_a_choice_off_by_default() {
    let t = template();
    let tracing = tagged(&t["Globals"]["Function"]["Tracing"], "If")
        .and_then(Yaml::as_sequence)
        .unwrap();
    assert_eq!(tracing[0].as_str(), Some("HasTracing"));
    assert_eq!(tracing[1].as_str(), Some("Active"));
    assert_eq!(tracing[2].as_str(), Some("PassThrough"));
    assert_eq!(t["Parameters"]["Tracing"]["Default"].as_str(), Some("off"));
}
