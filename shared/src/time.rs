//! Times are stored as Unix seconds (like Gitea) and rendered as RFC 3339
//! with whole seconds in the configured display zone.

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    Utc::now().timestamp()
}

/// RFC 3339 with whole seconds; `Z` when the offset is zero, as Go writes it.
pub fn render(secs: i64, tz: Tz) -> String {
    let utc = DateTime::<Utc>::from_timestamp(secs, 0).unwrap_or_default();
    tz.from_utc_datetime(&utc.naive_utc())
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_go() {
        assert_eq!(render(0, Tz::UTC), "1970-01-01T00:00:00Z");
        assert_eq!(
            render(1_700_000_000, chrono_tz::Asia::Shanghai),
            "2023-11-15T06:13:20+08:00"
        );
    }
}
