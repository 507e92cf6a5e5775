//! Throttling: the stage's limits, the search route's own, the 429s
//! counted from the access log, and the table's throttle alarm.

use std::collections::BTreeSet;

use super::{of_type, reference, table_in_use, tagged, template};

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
