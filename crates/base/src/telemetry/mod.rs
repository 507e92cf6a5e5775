//! Logs: JSON lines on stdout. Diagnostics go through `tracing`; the one
//! line per request, which also carries the request's CloudWatch metrics,
//! is written by [`request_line`].
//!
//! One knob sets the level: `AWS_LAMBDA_LOG_LEVEL`, which Lambda sets from
//! the function's `ApplicationLogLevel` when the log format is JSON. Lambda
//! filters application lines by their `level` key at that same level, so
//! reading it keeps `tracing` from formatting lines Lambda would drop, and
//! locally the same variable does what it does on AWS. It is a plain level,
//! not a filter expression: a full filter syntax would pull a regex engine
//! into every binary for nothing.

pub mod cost;
pub mod emf;
pub mod line;
pub mod request_ids;
pub mod request_line;

use std::sync::OnceLock;

pub use cost::MetricsSnapshot;
pub use request_ids::{COLD_START, RequestIds};
pub use request_line::{RequestLine, RouteName};

/// Lambda's application log levels, from the most detailed to the least.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Trace,
    Debug,
    #[default]
    Info,
    Warn,
    Error,
    Fatal,
}

impl LogLevel {
    /// A level name as Lambda spells it, in any case. `None` for anything
    /// else.
    pub fn parse(value: &str) -> Option<Self> {
        let level = match value.trim().to_ascii_uppercase().as_str() {
            "TRACE" => Self::Trace,
            "DEBUG" => Self::Debug,
            "INFO" => Self::Info,
            "WARN" => Self::Warn,
            "ERROR" => Self::Error,
            "FATAL" => Self::Fatal,
            _ => return None,
        };
        Some(level)
    }

    /// The name Lambda reads back from a line's `level` key.
    pub fn name(self) -> &'static str {
        match self {
            Self::Trace => "TRACE",
            Self::Debug => "DEBUG",
            Self::Info => "INFO",
            Self::Warn => "WARN",
            Self::Error => "ERROR",
            Self::Fatal => "FATAL",
        }
    }

    /// The most detailed `tracing` level to format. `tracing` stops at
    /// ERROR, and nothing here logs as FATAL, so FATAL keeps ERROR lines
    /// (Lambda then drops them, as it should).
    fn max_tracing(self) -> tracing::Level {
        match self {
            Self::Trace => tracing::Level::TRACE,
            Self::Debug => tracing::Level::DEBUG,
            Self::Info => tracing::Level::INFO,
            Self::Warn => tracing::Level::WARN,
            Self::Error | Self::Fatal => tracing::Level::ERROR,
        }
    }
}

/// The level read at start-up (INFO before [`init`], as in unit tests).
static LEVEL: OnceLock<LogLevel> = OnceLock::new();

/// The configured level.
pub fn level() -> LogLevel {
    LEVEL.get().copied().unwrap_or_default()
}

/// Reads `AWS_LAMBDA_LOG_LEVEL` (INFO when unset or not a level) and
/// installs the JSON subscriber. Once per process.
pub fn init() {
    let raw = std::env::var("AWS_LAMBDA_LOG_LEVEL").ok();
    let parsed = raw
        .as_deref()
        .filter(|v| !v.is_empty())
        .map(LogLevel::parse);
    let level = parsed.flatten().unwrap_or_default();
    let _ = LEVEL.set(level);
    let _ = tracing_subscriber::fmt()
        .json()
        .with_max_level(level.max_tracing())
        .with_current_span(false)
        .with_span_list(false)
        .flatten_event(true)
        .with_target(false)
        .without_time()
        .try_init();
    if parsed == Some(None) {
        tracing::warn!(
            value = raw,
            "AWS_LAMBDA_LOG_LEVEL is not a level; using INFO"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse_in_any_case_and_fatal_formats_errors() {
        for (raw, want, tracing) in [
            ("TRACE", Some(LogLevel::Trace), tracing::Level::TRACE),
            ("debug", Some(LogLevel::Debug), tracing::Level::DEBUG),
            ("Info", Some(LogLevel::Info), tracing::Level::INFO),
            (" WARN ", Some(LogLevel::Warn), tracing::Level::WARN),
            ("error", Some(LogLevel::Error), tracing::Level::ERROR),
            ("FATAL", Some(LogLevel::Fatal), tracing::Level::ERROR),
            ("warning", None, tracing::Level::INFO),
            ("3", None, tracing::Level::INFO),
        ] {
            let got = LogLevel::parse(raw);
            assert_eq!(got, want, "{raw:?}");
            assert_eq!(got.unwrap_or_default().max_tracing(), tracing, "{raw:?}");
        }
        assert_eq!(LogLevel::default(), LogLevel::Info);
        assert!(LogLevel::Trace < LogLevel::Info && LogLevel::Info < LogLevel::Fatal);
    }
}
