//! Times are stored as Unix seconds (like Gitea) and rendered as RFC 3339
//! with whole seconds in the configured display zone.

use chrono::{DateTime, Offset, SecondsFormat, TimeZone, Utc};
use chrono_tz::Tz;

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    Utc::now().timestamp()
}

/// The instants accepted from clients and stored: years 1 to 9999, as in
/// RFC 3339 (which has four-digit years).
pub const FIRST: i64 = -62_135_596_800; // 0001-01-01T00:00:00Z
pub const LAST: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z

/// RFC 3339 with whole seconds; `Z` when the offset is zero, as Go writes it.
/// Cannot panic: instants beyond a day outside years 1 to 9999 (which
/// nothing stores) are clamped, where a time zone's offset could overflow
/// chrono.
pub fn render(secs: i64, tz: Tz) -> String {
    const DAY: i64 = 86_400;
    let secs = secs.clamp(FIRST - DAY, LAST + DAY);
    let utc = DateTime::<Utc>::from_timestamp(secs, 0).unwrap_or_default();
    tz.from_utc_datetime(&utc.naive_utc())
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn in_range(raw: &str, secs: i64) -> Result<i64, String> {
    if (FIRST..=LAST).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!("{raw:?} is outside the years 1 to 9999"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendering_cannot_panic() {
        for tz in [
            Tz::UTC,
            chrono_tz::Pacific::Kiritimati,
            chrono_tz::Pacific::Pago_Pago,
        ] {
            for secs in [i64::MIN, FIRST, LAST, i64::MAX, 8_210_298_412_799] {
                assert!(!render(secs, tz).is_empty());
            }
        }
    }

    #[test]
    fn renders_like_go() {
        assert_eq!(render(0, Tz::UTC), "1970-01-01T00:00:00Z");
        assert_eq!(
            render(1_700_000_000, chrono_tz::Asia::Shanghai),
            "2023-11-15T06:13:20+08:00"
        );
    }
}

/// A deadline as a client sends it: the calendar date as written in the
/// request's own offset, kept as 23:59:59 of that date in that offset (the
/// seed's rule for every deadline). A bare `YYYY-MM-DD` is read in `tz`.
/// Gitea's zero time and the epoch mean "no deadline" (`None`).
pub fn end_of_day(raw: &str, tz: Tz) -> Result<Option<i64>, String> {
    use chrono::{Datelike, FixedOffset, NaiveDate, NaiveTime};
    let raw = raw.trim();
    let end = NaiveTime::from_hms_opt(23, 59, 59).unwrap_or_default();
    let (date, offset): (NaiveDate, FixedOffset) = match DateTime::parse_from_rfc3339(raw) {
        Ok(t) => {
            if t.timestamp() <= 0 {
                return Ok(None);
            }
            (t.date_naive(), *t.offset())
        }
        Err(_) => {
            let date = NaiveDate::parse_from_str(raw, "%Y-%m-%d")
                .map_err(|_| format!("{raw:?} is not an RFC 3339 time or a YYYY-MM-DD date"))?;
            let offset = tz.offset_from_utc_date(&date).fix();
            (date, offset)
        }
    };
    // The year as written: 9999-12-31 in any offset is a valid deadline.
    if !(1..=9999).contains(&date.year()) {
        return Err(format!("{raw:?} is outside the years 1 to 9999"));
    }
    offset
        .from_local_datetime(&date.and_time(end))
        .single()
        .map(|t| Some(t.timestamp()))
        .ok_or_else(|| format!("{raw:?} is not a valid date"))
}

/// An instant as a client sends it (RFC 3339), for filters like `since`.
pub fn parse_instant(raw: &str) -> Result<i64, String> {
    let secs = DateTime::parse_from_rfc3339(raw.trim())
        .map(|t| t.timestamp())
        .map_err(|_| format!("{raw:?} is not an RFC 3339 time"))?;
    in_range(raw, secs)
}

#[cfg(test)]
mod deadline_tests {
    use super::*;

    #[test]
    fn keeps_the_date_in_the_senders_offset() {
        // 2024-03-01 in +08:00, whatever the hour: 23:59:59+08:00 = 15:59:59Z.
        let want = Some(1_709_308_799);
        assert_eq!(end_of_day("2024-03-01T00:30:00+08:00", Tz::UTC), Ok(want));
        assert_eq!(end_of_day("2024-03-01T23:00:00+08:00", Tz::UTC), Ok(want));
        assert_eq!(
            end_of_day("2024-03-01T10:00:00Z", Tz::UTC),
            Ok(Some(1_709_337_599))
        );
        assert_eq!(
            end_of_day("2024-03-01", chrono_tz::Asia::Shanghai),
            Ok(want)
        );
        assert_eq!(end_of_day("0001-01-01T00:00:00Z", Tz::UTC), Ok(None));
        assert_eq!(end_of_day("1970-01-01T00:00:00Z", Tz::UTC), Ok(None));
        assert!(end_of_day("tomorrow", Tz::UTC).is_err());
        assert!(end_of_day("+262142-12-31", Tz::UTC).is_err());
        assert!(end_of_day("10000-01-01", Tz::UTC).is_err());
        assert!(end_of_day("9999-12-31", chrono_tz::Pacific::Kiritimati).is_ok());
        assert!(end_of_day("9999-12-31T00:00:00-05:00", Tz::UTC).is_ok());
        assert!(end_of_day("0001-01-02", Tz::UTC).is_ok());
        assert!(end_of_day("2024-02-30", Tz::UTC).is_err());
    }
}
