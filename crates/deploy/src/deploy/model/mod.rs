//! The deploy area's records and pure rules: the application field rows
//! and the one body reader, format checks, domains, and the application
//! record with its create rules. No database here; unit-tested.

pub mod app;
pub mod body;
pub mod checks;
pub mod compose;
pub mod domains;
pub mod env;
pub mod field;
pub mod fields;
pub mod input;
pub mod key;
pub mod project;
pub mod provider_app;
pub mod server;

/// A new public identifier (UUID v4, hyphenated, lower case).
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `raw` as a canonical UUID, if it is one. Anything else names no object.
pub fn parse_uuid(raw: &str) -> Option<String> {
    uuid::Uuid::parse_str(raw.trim())
        .ok()
        .map(|u| u.to_string())
}

/// The current time as RFC 3339 (UTC, microseconds), as Coolify renders
/// timestamps.
pub fn timestamp() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.6fZ")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_canonical_or_nothing() {
        let u = new_uuid();
        assert_eq!(parse_uuid(&u.to_uppercase()), Some(u));
        assert_eq!(parse_uuid("not-a-uuid"), None);
        assert_eq!(timestamp().len(), "2026-01-01T00:00:00.000000Z".len());
    }
}
