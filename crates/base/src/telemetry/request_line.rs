//! The one log line per request: who asked what, the answer, the time it
//! took and what it cost in DynamoDB. The same line is a CloudWatch
//! Embedded Metric Format document ([`emf`](super::emf)), so it is the
//! function's metrics too. The benchmarks (bench/) and operators' Logs
//! Insights queries read its snake_case fields; CloudWatch reads `_aws` and
//! the PascalCase metrics and dimensions it names.
//!
//! The line is written straight to stdout, not through `tracing`, because
//! it must survive every `ApplicationLogLevel`. Lambda's log-level
//! filtering for the JSON log format
//! (<https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-log-level.html>)
//! goes by each line's `level` key: a missing key or a value that is not
//! one of its six levels counts as INFO, and a line is kept only at the
//! configured level or a less detailed one, FATAL being the least. So
//! dropping `level` would not save the line at WARN and above; see
//! [`line::kept`].

use std::time::Duration;

use serde::Serialize;

use super::{
    MetricsSnapshot, RequestIds,
    emf::{Dimensions, Metadata, Namespace},
    line::{self, DbCost, Frame, WorkMetrics},
};

/// API Gateway's name for requests that no route serves; the request line
/// uses it for them too.
const NO_ROUTE: &str = "$default";

/// What the request line records about one request.
pub struct RequestLine<'a> {
    /// The function crate's name (`issues`, `fallback`, ...).
    pub function: &'a str,
    /// Lambda's, API Gateway's and the trace's ids, and the cold start.
    pub ids: &'a RequestIds,
    pub method: &'a str,
    pub path: &'a str,
    /// The route that served the request; `None`: no route did.
    pub route: Option<RouteName<'a>>,
    /// The authenticated user's name.
    pub user: Option<&'a str>,
    pub status: u16,
    pub latency: Duration,
    pub cost: &'a MetricsSnapshot,
}

/// A route as the line names it: its method and path template.
#[derive(Clone, Copy, Debug)]
pub struct RouteName<'a> {
    pub method: &'a str,
    pub path: &'a str,
}

/// The JSON of the line, in the order a reader expects.
#[derive(Serialize)]
struct Line<'a> {
    level: &'static str,
    message: &'static str,
    request_id: &'a str,
    // Properties, not dimensions: the ids that join this line with API
    // Gateway's access log and X-Ray (see `RequestIds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    apigw_request_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    xray_trace_id: Option<&'a str>,
    method: &'a str,
    path: &'a str,
    /// The route's path template.
    route: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<&'a str>,
    status: u16,
    latency_ms: u64,
    /// The first request of its instance (its latency includes the start).
    cold_start: bool,
    #[serde(flatten)]
    cost: DbCost,
    // Dimensions.
    #[serde(rename = "Function")]
    function: &'a str,
    /// The route key as API Gateway writes it: `GET /api/v1/...`.
    #[serde(rename = "Route")]
    route_key: String,
    // Metrics (names and units in emf::METRICS).
    #[serde(flatten)]
    work: WorkMetrics,
    #[serde(rename = "ClientErrors")]
    client_errors: u8,
    #[serde(rename = "ServerErrors")]
    server_errors: u8,
    #[serde(rename = "_aws", skip_serializing_if = "Option::is_none")]
    aws: Option<Metadata<'a>>,
}

impl RequestLine<'_> {
    /// Writes the line to stdout. One `write_all` of the whole line, newline
    /// included, under stdout's lock: lines of requests running at once,
    /// and `tracing`'s (it too writes each event with one `write_all` on
    /// stdout), cannot interleave.
    pub fn write(&self, namespace: &Namespace, dimensions: Dimensions) {
        line::write(&self.render(Frame::now(namespace, dimensions)));
    }

    /// The line, newline-terminated.
    fn render(&self, frame: Frame) -> String {
        let cost = self.cost;
        let line = Line {
            level: line::kept(frame.level).name(),
            message: "request",
            request_id: &self.ids.request_id,
            apigw_request_id: self.ids.apigw_request_id.as_deref(),
            xray_trace_id: self.ids.xray_trace_id.as_deref(),
            method: self.method,
            path: self.path,
            route: self.route.map_or(NO_ROUTE, |r| r.path),
            user: self.user,
            status: self.status,
            latency_ms: self.latency.as_millis() as u64,
            cold_start: self.ids.cold_start,
            cost: cost.into(),
            function: self.function,
            route_key: self
                .route
                .map_or_else(|| NO_ROUTE.into(), |r| format!("{} {}", r.method, r.path)),
            work: WorkMetrics::new(self.latency, cost),
            client_errors: (400..500).contains(&self.status).into(),
            server_errors: (500..600).contains(&self.status).into(),
            aws: Metadata::new(frame.namespace, frame.dimensions, frame.timestamp),
        };
        line::render(&line)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::telemetry::LogLevel;

    const ROUTE: RouteName = RouteName {
        method: "GET",
        path: "/api/v1/repos/{owner}/{repo}",
    };

    fn cost() -> MetricsSnapshot {
        MetricsSnapshot {
            round_trips: 3,
            sequential: 2,
            read_units: 1.5,
            write_units: 2.0,
            calls: vec!["GetItem", "Query", "TransactWriteItems"],
        }
    }

    /// A warm instance's request through API Gateway, traced.
    static IDS: std::sync::LazyLock<RequestIds> = std::sync::LazyLock::new(|| {
        RequestIds::new(
            Some("r-1"),
            Some("gw-1="),
            Some("Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1"),
            false,
        )
    });

    fn line<'a>(
        status: u16,
        route: Option<RouteName<'a>>,
        cost: &'a MetricsSnapshot,
    ) -> RequestLine<'a> {
        RequestLine {
            function: "repos",
            ids: &IDS,
            method: "GET",
            path: "/api/v1/repos/o/r",
            route,
            user: Some("alice"),
            status,
            latency: Duration::from_micros(12_345),
            cost,
        }
    }

    fn json(l: &RequestLine, dimensions: Dimensions, level: LogLevel) -> Value {
        let text = l.render(Frame {
            namespace: &Namespace::default(),
            dimensions,
            level,
            timestamp: 1_764_000_000_123,
        });
        assert!(
            text.ends_with('\n') && !text.trim_end().contains('\n'),
            "{text}"
        );
        serde_json::from_str(&text).expect("the line is one JSON object")
    }

    #[test]
    fn every_declared_metric_and_dimension_is_on_the_line() {
        let c = cost();
        for dimensions in [Dimensions::Function, Dimensions::Route] {
            for route in [Some(ROUTE), None] {
                let v = json(&line(200, route, &c), dimensions, LogLevel::Info);
                let aws = &v["_aws"];
                let ts = aws["Timestamp"].as_u64().expect("Timestamp is an integer");
                assert_eq!(ts, 1_764_000_000_123);
                let directives = aws["CloudWatchMetrics"].as_array().unwrap();
                assert_eq!(directives.len(), 1);
                let d = &directives[0];
                assert_eq!(d["Namespace"], "ServerlessForge");
                let sets = d["Dimensions"].as_array().unwrap();
                assert!(!sets.is_empty(), "{dimensions:?}");
                for name in sets.iter().flat_map(|s| s.as_array().unwrap()) {
                    let name = name.as_str().unwrap();
                    let value = v[name].as_str();
                    assert!(
                        value.is_some_and(|s| !s.is_empty()),
                        "{dimensions:?}: {name}"
                    );
                }
                let metrics = d["Metrics"].as_array().unwrap();
                let names: Vec<_> = metrics
                    .iter()
                    .map(|m| m["Name"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    names,
                    [
                        "Latency",
                        "ReadUnits",
                        "WriteUnits",
                        "ClientErrors",
                        "ServerErrors"
                    ]
                );
                for m in metrics {
                    let name = m["Name"].as_str().unwrap();
                    assert!(v[name].is_number(), "{name} is not a top-level number");
                    assert!(matches!(m["Unit"].as_str(), Some("Milliseconds" | "Count")));
                }
            }
        }
    }

    #[test]
    fn dimension_values_are_the_function_and_the_route_key() {
        let c = cost();
        let v = json(
            &line(200, Some(ROUTE), &c),
            Dimensions::Route,
            LogLevel::Info,
        );
        assert_eq!(v["Function"], "repos");
        assert_eq!(v["Route"], "GET /api/v1/repos/{owner}/{repo}");
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            serde_json::json!([["Function", "Route"]])
        );
        let v = json(&line(404, None, &c), Dimensions::Function, LogLevel::Info);
        assert_eq!(v["Route"], "$default");
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Dimensions"],
            serde_json::json!([["Function"]])
        );
    }

    #[test]
    fn no_metrics_means_no_aws_object() {
        let c = cost();
        let v = json(
            &line(200, Some(ROUTE), &c),
            Dimensions::None,
            LogLevel::Info,
        );
        assert!(v.get("_aws").is_none(), "{v}");
        assert_eq!(v["Latency"], 12.345);
    }

    #[test]
    fn the_line_keeps_the_fields_the_benchmarks_read() {
        let c = cost();
        let v = json(
            &line(201, Some(ROUTE), &c),
            Dimensions::Function,
            LogLevel::Info,
        );
        let want = serde_json::json!({
            "level": "INFO",
            "message": "request",
            "request_id": "r-1",
            "apigw_request_id": "gw-1=",
            "xray_trace_id": "1-5759e988-bd862e3fe1be46a994272793",
            "method": "GET",
            "path": "/api/v1/repos/o/r",
            "route": "/api/v1/repos/{owner}/{repo}",
            "user": "alice",
            "status": 201,
            "latency_ms": 12,
            "cold_start": false,
            "db_round_trips": 3,
            "db_sequential": 2,
            "db_read_units": 1.5,
            "db_write_units": 2.0,
            "db_calls": "[\"GetItem\", \"Query\", \"TransactWriteItems\"]",
        });
        for (key, value) in want.as_object().unwrap() {
            assert_eq!(&v[key], value, "{key}");
        }
        assert_eq!(
            (v["ReadUnits"].as_f64(), v["WriteUnits"].as_f64()),
            (Some(1.5), Some(2.0))
        );
        let nothing = MetricsSnapshot::default();
        // A first request, invoked without API Gateway or a trace.
        let bare = RequestIds::new(Some("r-2"), None, None, true);
        let anonymous = RequestLine {
            user: None,
            ids: &bare,
            ..line(404, None, &nothing)
        };
        let v = json(&anonymous, Dimensions::Function, LogLevel::Info);
        for absent in ["user", "apigw_request_id", "xray_trace_id"] {
            assert!(v.get(absent).is_none(), "{absent}: {v}");
        }
        assert_eq!(
            (&v["request_id"], &v["cold_start"]),
            (&"r-2".into(), &true.into())
        );
        assert_eq!(
            (v["route"].as_str(), v["db_calls"].as_str()),
            (Some("$default"), Some("[]"))
        );
    }

    #[test]
    fn errors_are_counted_by_status_class() {
        let c = cost();
        for (status, client, server) in [
            (200, 0, 0),
            (204, 0, 0),
            (304, 0, 0),
            (400, 1, 0),
            (404, 1, 0),
            (499, 1, 0),
            (500, 0, 1),
            (503, 0, 1),
            (599, 0, 1),
        ] {
            let v = json(
                &line(status, Some(ROUTE), &c),
                Dimensions::Function,
                LogLevel::Info,
            );
            assert_eq!(
                (v["ClientErrors"].as_u64(), v["ServerErrors"].as_u64()),
                (Some(client), Some(server)),
                "status {status}"
            );
        }
    }

    #[test]
    fn lambda_keeps_the_line_at_every_level() {
        let c = cost();
        for (configured, level) in [
            (LogLevel::Trace, "INFO"),
            (LogLevel::Debug, "INFO"),
            (LogLevel::Info, "INFO"),
            (LogLevel::Warn, "WARN"),
            (LogLevel::Error, "ERROR"),
            (LogLevel::Fatal, "FATAL"),
        ] {
            let v = json(
                &line(200, Some(ROUTE), &c),
                Dimensions::Function,
                configured,
            );
            assert_eq!(v["level"], level, "{configured:?}");
            // Lambda keeps lines at the configured level or less detailed.
            let kept = LogLevel::parse(v["level"].as_str().unwrap()).unwrap();
            assert!(kept >= configured, "{configured:?}");
        }
    }

    #[test]
    fn the_timestamp_is_milliseconds_since_the_epoch() {
        use std::time::{SystemTime, UNIX_EPOCH};
        let before = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let ms = line::now_ms();
        let after = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        assert!(before.as_millis() as u64 <= ms && ms <= after.as_millis() as u64);
        // Not seconds, not microseconds: between 2001 and 2286.
        assert!(
            (1_000_000_000_000..10_000_000_000_000).contains(&ms),
            "{ms}"
        );
    }
}
