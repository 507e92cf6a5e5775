//! The ids one request is known by, so its request line can be joined with
//! the other records of the same request: Lambda's request id (the
//! `x-request-id` a client sees, and `$context.integration.requestId` in
//! API Gateway's access log), API Gateway's own id (`$context.requestId`,
//! the `apigw-requestid` header HTTP APIs return) and the X-Ray trace.
//! Plus whether the request was the first its instance served, as Lambda
//! Powertools logs `cold_start`: a slow first request is explained by it.

use std::sync::atomic::{AtomicBool, Ordering};

/// The ids of one request, as the request line writes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestIds {
    /// Lambda's request id; `local-<random>` where the emulator gives none.
    pub request_id: String,
    /// API Gateway's request id; absent when the event carries none (a
    /// direct invocation, or an emulator that leaves it out).
    pub apigw_request_id: Option<String>,
    /// The X-Ray trace id (the `Root=` part of the trace header), when the
    /// invocation carries one.
    pub xray_trace_id: Option<String>,
    /// The first request this instance serves.
    pub cold_start: bool,
}

impl RequestIds {
    /// From what the invocation carried (empty values count as absent):
    /// Lambda's request id, API Gateway's, and the trace header
    /// (`Root=1-...;Parent=...;Sampled=...`).
    pub fn new(
        lambda_request_id: Option<&str>,
        apigw_request_id: Option<&str>,
        trace_header: Option<&str>,
        cold_start: bool,
    ) -> Self {
        Self {
            request_id: present(lambda_request_id).map_or_else(
                || format!("local-{:016x}", rand::random::<u64>()),
                str::to_owned,
            ),
            apigw_request_id: present(apigw_request_id).map(str::to_owned),
            xray_trace_id: present(trace_header)
                .and_then(trace_root)
                .map(str::to_owned),
            cold_start,
        }
    }
}

/// `value` trimmed, unless that leaves nothing.
fn present(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// The trace id of a trace header: its `Root` field, which X-Ray's console
/// and CloudWatch's trace search take; a header without fields is taken
/// whole.
fn trace_root(header: &str) -> Option<&str> {
    if !header.contains('=') {
        return Some(header);
    }
    header
        .split(';')
        .filter_map(|field| field.trim().split_once('='))
        .find(|(name, _)| name.eq_ignore_ascii_case("root"))
        .map(|(_, id)| id.trim())
        .filter(|id| !id.is_empty())
}

/// Whether a process has served a request yet: true for exactly one
/// caller of [`ColdStart::take`], however many requests run at once.
pub struct ColdStart(AtomicBool);

impl ColdStart {
    pub const fn new() -> Self {
        Self(AtomicBool::new(true))
    }

    /// True the first time it is asked, false ever after.
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::Relaxed)
    }
}

impl Default for ColdStart {
    fn default() -> Self {
        Self::new()
    }
}

/// This process's: a Lambda instance is one process.
pub static COLD_START: ColdStart = ColdStart::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_as_the_invocation_carried_them() {
        let ids = RequestIds::new(
            Some("c6af9ac6-7b61-11e6-9a41-93e8deadbeef"),
            Some("JDpMLhnHoAMEPTQ="),
            Some("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"),
            true,
        );
        assert_eq!(
            ids,
            RequestIds {
                request_id: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef".into(),
                apigw_request_id: Some("JDpMLhnHoAMEPTQ=".into()),
                xray_trace_id: Some("1-5759e988-bd862e3fe1be46a994272793".into()),
                cold_start: true,
            }
        );
    }

    #[test]
    fn what_is_missing_is_absent_and_the_request_id_made_up() {
        let ids = RequestIds::new(Some(""), None, Some(" "), false);
        assert!(ids.request_id.starts_with("local-"), "{}", ids.request_id);
        assert_eq!(ids.request_id.len(), "local-".len() + 16);
        assert_eq!(
            (ids.apigw_request_id, ids.xray_trace_id, ids.cold_start),
            (None, None, false)
        );
        let rows = [
            ("Sampled=0;root=1-abc-def", Some("1-abc-def")),
            ("1-abc-def", Some("1-abc-def")),
            ("Parent=53995c3f42cd8ad8;Sampled=1", None),
            ("Root=;Sampled=1", None),
        ];
        for (header, want) in rows {
            assert_eq!(trace_root(header), want, "{header}");
        }
    }

    #[test]
    fn one_cold_start_per_process_however_many_ask_at_once() {
        let cold = ColdStart::new();
        let firsts = std::thread::scope(|s| {
            let askers: Vec<_> = (0..8).map(|_| s.spawn(|| cold.take())).collect();
            askers
                .into_iter()
                .map(|a| a.join().unwrap_or(false))
                .filter(|first| *first)
                .count()
        });
        assert_eq!(firsts, 1);
        assert!(!cold.take(), "and never again");
    }
}
