//! CloudWatch Embedded Metric Format: the `_aws` object that makes a log
//! line a metrics document. CloudWatch Logs reads it when the line arrives
//! and records the named top-level numbers as metrics, so the functions
//! publish metrics without a single extra call. Spec:
//! <https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html>
//!
//! Every (metric, dimension values) pair is a custom metric billed for each
//! hour it receives data, so the dimensions stay few: the function, and at
//! most the route. Status codes are counted (`ClientErrors`,
//! `ServerErrors`), never dimensions.

use serde::Serialize;

/// One metric of the request line: its top-level key and its unit.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Metric {
    pub name: &'static str,
    pub unit: &'static str,
}

/// The metrics every request line declares. The CloudWatch dashboard and
/// alarms in template.yaml refer to these names.
pub const METRICS: &[Metric] = &[
    Metric {
        name: "Latency",
        unit: "Milliseconds",
    },
    Metric {
        name: "ReadUnits",
        unit: "Count",
    },
    Metric {
        name: "WriteUnits",
        unit: "Count",
    },
    Metric {
        name: "ClientErrors",
        unit: "Count",
    },
    Metric {
        name: "ServerErrors",
        unit: "Count",
    },
];

/// The metrics the stream consumer's line declares, one line per batch
/// (crates/runtime/src/stream/line.rs). Latency and units share the request
/// line's names, so per-function graphs of them include the consumer.
pub const STREAM_METRICS: &[Metric] = &[
    Metric {
        name: "Records",
        unit: "Count",
    },
    Metric {
        name: "Failures",
        unit: "Count",
    },
    Metric {
        name: "Latency",
        unit: "Milliseconds",
    },
    Metric {
        name: "ReadUnits",
        unit: "Count",
    },
    Metric {
        name: "WriteUnits",
        unit: "Count",
    },
    Metric {
        name: "RecordAge",
        unit: "Milliseconds",
    },
    // Changes a handler failed on, parked to be retried
    // (crates/runtime/src/stream/park.rs).
    Metric {
        name: "Parked",
        unit: "Count",
    },
    // The consumer's lag: the newest record's age once the batch is done.
    Metric {
        name: "Lag",
        unit: "Milliseconds",
    },
];

/// The metrics of the parked changes' sweeper, one line per scheduled run
/// that found any (crates/runtime/src/stream/line.rs): how many are parked, how
/// long the oldest has waited (template.yaml's `ParkedAgeAlarm` fires past
/// an hour), how many were retried and how many succeeded.
pub const PARKED_METRICS: &[Metric] = &[
    Metric {
        name: "ParkedTotal",
        unit: "Count",
    },
    Metric {
        name: "ParkedAge",
        unit: "Milliseconds",
    },
    Metric {
        name: "Retried",
        unit: "Count",
    },
    Metric {
        name: "Unparked",
        unit: "Count",
    },
];

/// The metrics of the webhook sender's line, one per batch that sent
/// anything, and of the sweeper's, one per scheduled run that found
/// deliveries due (crates/webhooks/src/hooks/line.rs). template.yaml's webhook alarms watch
/// `HookUnrecorded` and `HookDueLag`.
pub const HOOK_METRICS: &[Metric] = &[
    Metric {
        name: "HookAttempts",
        unit: "Count",
    },
    Metric {
        name: "HookFailures",
        unit: "Count",
    },
    Metric {
        name: "HookUnrecorded",
        unit: "Count",
    },
];

pub const SWEEP_METRICS: &[Metric] = &[Metric {
    name: "HookDueLag",
    unit: "Milliseconds",
}];

pub use crate::config::{Dimensions, Namespace};

/// The dimension sets of a choice (`None`: no custom metrics).
fn sets(dimensions: Dimensions) -> Option<&'static [&'static [&'static str]]> {
    match dimensions {
        Dimensions::Function => Some(&[&["Function"]]),
        Dimensions::Route => Some(&[&["Function", "Route"]]),
        Dimensions::None => None,
    }
}

/// The `_aws` member of a line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Metadata<'a> {
    /// Milliseconds since the Unix epoch.
    timestamp: u64,
    cloud_watch_metrics: [Directive<'a>; 1],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct Directive<'a> {
    namespace: &'a str,
    dimensions: &'static [&'static [&'static str]],
    metrics: &'static [Metric],
}

impl<'a> Metadata<'a> {
    /// `None` when the metrics are off.
    pub fn new(namespace: &'a Namespace, dimensions: Dimensions, timestamp: u64) -> Option<Self> {
        Self::with_metrics(namespace, dimensions, timestamp, METRICS)
    }

    /// The same for a line that carries `metrics` instead of the request
    /// line's.
    pub fn with_metrics(
        namespace: &'a Namespace,
        dimensions: Dimensions,
        timestamp: u64,
        metrics: &'static [Metric],
    ) -> Option<Self> {
        let directive = Directive {
            namespace: namespace.as_str(),
            dimensions: sets(dimensions)?,
            metrics,
        };
        Some(Self {
            timestamp,
            cloud_watch_metrics: [directive],
        })
    }
}

/// The metric names a line (as JSON) declares, in order: what dashboards
/// and alarms name. Empty when it declares none.
pub fn declared(line: &serde_json::Value) -> Vec<&str> {
    line["_aws"]["CloudWatchMetrics"][0]["Metrics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["Name"].as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_printable_ascii_outside_aws() {
        for ok in ["ServerlessForge", "forge-prod", "My App/api: v1#2_x."] {
            assert!(Namespace::parse(ok).is_ok(), "{ok:?}");
        }
        let long = "n".repeat(256);
        for bad in ["", "  ", "AWS/Lambda", "tab\there", "café", long.as_str()] {
            assert!(Namespace::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Namespace::default().as_str(), "ServerlessForge");
    }

    #[test]
    fn dimensions_are_the_template_values() {
        assert_eq!(Dimensions::parse("function"), Some(Dimensions::Function));
        assert_eq!(Dimensions::parse("route"), Some(Dimensions::Route));
        assert_eq!(Dimensions::parse("none"), Some(Dimensions::None));
        assert_eq!(Dimensions::parse("Route"), None);
        assert_eq!(Dimensions::parse("status"), None);
        assert_eq!(Dimensions::default(), Dimensions::Function);
    }
}
