//! Times are stored as Unix seconds (like Gitea) and rendered as RFC 3339
//! with whole seconds in the configured display zone.

use chrono::{DateTime, FixedOffset, NaiveDate, SecondsFormat, TimeZone, Utc};

/// A time zone of the IANA database, by any of its names (`Asia/Shanghai`,
/// `UTC`), with its full history and daylight saving rules.
///
/// The rules come from jiff's bundled copy of the database (Lambda's
/// runtime has none of its own): about 0.2 MB of compact TZif data, where
/// chrono-tz's generated tables took over 1 MB of every bootstrap. Only
/// the offset is taken from jiff; dates are chrono's, as everywhere else.
#[derive(Clone, Copy)]
pub struct Zone(&'static jiff::tz::TimeZone);

impl Zone {
    pub const UTC: Zone = Zone(&jiff::tz::TimeZone::UTC);

    /// The zone of an IANA name, spelt as the database spells it (`None`
    /// if there is no such zone).
    pub fn named(name: &str) -> Option<Zone> {
        let tz = jiff::tz::TimeZone::get(name).ok()?;
        // jiff also finds names in another case; the setting is exact.
        if tz.iana_name() != Some(name) {
            return None;
        }
        // Kept for the process's life, so that a zone is `Copy` like the
        // rest of the configuration: it is looked up once, at cold start.
        Some(Zone(Box::leak(Box::new(tz))))
    }

    /// Its name in the database.
    pub fn name(self) -> &'static str {
        self.0.iana_name().unwrap_or("UTC")
    }

    /// The offset from UTC in force at `secs`.
    fn offset_at(self, secs: i64) -> FixedOffset {
        // jiff's instants end a day short of years -9999 and 9999; beyond
        // them the offsets of the ends hold.
        let at = jiff::Timestamp::from_second(secs).unwrap_or(if secs < 0 {
            jiff::Timestamp::MIN
        } else {
            jiff::Timestamp::MAX
        });
        let seconds = self.0.to_offset(at).seconds();
        FixedOffset::east_opt(seconds).unwrap_or(FixedOffset::east_opt(0).expect("UTC"))
    }

    /// The offset in force at the start (UTC) of `date`.
    fn offset_on(self, date: NaiveDate) -> FixedOffset {
        self.offset_at(date.and_time(chrono::NaiveTime::MIN).and_utc().timestamp())
    }
}

impl PartialEq for Zone {
    fn eq(&self, other: &Zone) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Zone {}

impl std::fmt::Debug for Zone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    Utc::now().timestamp()
}

/// Milliseconds since the epoch, now (webhook deliveries' due times).
pub fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// Microseconds since the epoch, now: an order finer than [`now`]'s for
/// things made within one second (reactions).
pub fn now_micros() -> i64 {
    Utc::now().timestamp_micros()
}

/// The instants accepted from clients and stored: years 1 to 9999, as in
/// RFC 3339 (which has four-digit years).
pub const FIRST: i64 = -62_135_596_800; // 0001-01-01T00:00:00Z
pub const LAST: i64 = 253_402_300_799; // 9999-12-31T23:59:59Z

/// RFC 3339 with whole seconds; `Z` when the offset is zero, as Go writes it.
/// Cannot panic: instants beyond a day outside years 1 to 9999 (which
/// nothing stores) are clamped, where a time zone's offset could overflow
/// chrono.
pub fn render(secs: i64, tz: Zone) -> String {
    const DAY: i64 = 86_400;
    let secs = secs.clamp(FIRST - DAY, LAST + DAY);
    let utc = DateTime::<Utc>::from_timestamp(secs, 0).unwrap_or_default();
    tz.offset_at(secs)
        .from_utc_datetime(&utc.naive_utc())
        .to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn in_range(raw: &str, secs: i64) -> Result<i64, String> {
    if (FIRST..=LAST).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!("{raw:?} is outside the years 1 to 9999"))
    }
}

/// A zone the tests know exists.
#[cfg(test)]
pub fn zone(name: &str) -> Zone {
    Zone::named(name).unwrap_or_else(|| panic!("{name} is in the database"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendering_cannot_panic() {
        for tz in [
            Zone::UTC,
            zone("Pacific/Kiritimati"),
            zone("Pacific/Pago_Pago"),
        ] {
            for secs in [i64::MIN, FIRST, LAST, i64::MAX, 8_210_298_412_799] {
                assert!(!render(secs, tz).is_empty());
            }
        }
    }

    #[test]
    fn zones_are_named_exactly_and_keep_daylight_saving() {
        assert!(Zone::named("asia/shanghai").is_none());
        assert!(Zone::named("Mars/Base").is_none());
        let ny = zone("America/New_York");
        assert_eq!(render(1_700_000_000, ny), "2023-11-14T17:13:20-05:00");
        assert_eq!(render(1_720_000_000, ny), "2024-07-03T05:46:40-04:00");
    }

    #[test]
    fn renders_like_go() {
        assert_eq!(render(0, Zone::UTC), "1970-01-01T00:00:00Z");
        assert_eq!(
            render(1_700_000_000, zone("Asia/Shanghai")),
            "2023-11-15T06:13:20+08:00"
        );
    }
}

/// A deadline as a client sends it: the calendar date as written in the
/// request's own offset, kept as 23:59:59 of that date in that offset (the
/// seed's rule for every deadline). A bare `YYYY-MM-DD` is read in `tz`.
/// Gitea's zero time and the epoch mean "no deadline" (`None`).
pub fn end_of_day(raw: &str, tz: Zone) -> Result<Option<i64>, String> {
    use chrono::{Datelike, NaiveTime};
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
            let offset = tz.offset_on(date);
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
        assert_eq!(end_of_day("2024-03-01T00:30:00+08:00", Zone::UTC), Ok(want));
        assert_eq!(end_of_day("2024-03-01T23:00:00+08:00", Zone::UTC), Ok(want));
        assert_eq!(
            end_of_day("2024-03-01T10:00:00Z", Zone::UTC),
            Ok(Some(1_709_337_599))
        );
        assert_eq!(end_of_day("2024-03-01", zone("Asia/Shanghai")), Ok(want));
        assert_eq!(end_of_day("0001-01-01T00:00:00Z", Zone::UTC), Ok(None));
        assert_eq!(end_of_day("1970-01-01T00:00:00Z", Zone::UTC), Ok(None));
        assert!(end_of_day("tomorrow", Zone::UTC).is_err());
        assert!(end_of_day("+262142-12-31", Zone::UTC).is_err());
        assert!(end_of_day("10000-01-01", Zone::UTC).is_err());
        assert!(end_of_day("9999-12-31", zone("Pacific/Kiritimati")).is_ok());
        assert!(end_of_day("9999-12-31T00:00:00-05:00", Zone::UTC).is_ok());
        assert!(end_of_day("0001-01-02", Zone::UTC).is_ok());
        assert!(end_of_day("2024-02-30", Zone::UTC).is_err());
    }
}
