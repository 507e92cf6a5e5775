//! Free-text rules the tracker areas share: titles, bounded texts,
//! deadlines, and telling an absent JSON field from an explicit `null`.
//! Each area names its own errors from these outcomes.

use serde::{Deserialize, Deserializer};

use crate::time::{self, Zone};

/// Longest title of an issue, pull request or milestone, in characters
/// (Gitea's column).
pub const MAX_TITLE_CHARS: usize = 255;

/// Why a text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    Empty,
    TooLong { max: usize },
}

/// A title: trimmed, 1 to [`MAX_TITLE_CHARS`] characters.
pub fn title(raw: &str) -> Result<String, TextError> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(TextError::Empty);
    }
    bounded(t.to_string(), MAX_TITLE_CHARS)
}

/// A text kept as sent, at most `max` characters.
pub fn bounded(value: String, max: usize) -> Result<String, TextError> {
    if value.chars().count() > max {
        return Err(TextError::TooLong { max });
    }
    Ok(value)
}

/// A deadline as sent (23:59:59 of its day), 0 for none (zero time,
/// epoch). The error says what is wrong with the value.
pub fn deadline(raw: &str, tz: Zone) -> Result<i64, String> {
    Ok(time::end_of_day(raw, tz)?.unwrap_or(0))
}

/// Serde helper: an absent field is `None`, an explicit `null` is
/// `Some(None)` (use with `#[serde(default, deserialize_with = "present")]`).
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Whether `text` matches `pattern`, where `*` matches any run of
/// characters (slashes and dots included) and everything else itself.
/// Backtracks to the last `*` only: linear in practice for the short texts
/// it judges (host names, branch names).
pub fn star_match(pattern: &str, text: &str) -> bool {
    let (p, n) = (pattern.as_bytes(), text.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && p[i] == n[j] {
            i += 1;
            j += 1;
        } else if let Some((si, sj)) = star {
            // Let the last star swallow one more character.
            star = Some((si, sj + 1));
            i = si + 1;
            j = sj + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_trimmed_and_bounded_in_characters() {
        assert_eq!(title("  t  ").unwrap(), "t");
        assert_eq!(title(" "), Err(TextError::Empty));
        assert!(title(&"é".repeat(255)).is_ok());
        assert_eq!(
            title(&"é".repeat(256)),
            Err(TextError::TooLong { max: 255 })
        );
    }

    #[test]
    fn bounded_texts_keep_their_spaces() {
        assert_eq!(bounded(" a ".into(), 3).unwrap(), " a ");
        assert!(bounded("abcd".into(), 3).is_err());
    }

    #[test]
    fn deadlines_end_their_day_and_zero_means_none() {
        let tz = Zone::named("UTC").unwrap();
        assert_eq!(deadline("1970-01-01T00:00:00Z", tz), Ok(0));
        assert_eq!(deadline("2024-01-02", tz), Ok(1_704_239_999));
        assert!(deadline("tomorrow", tz).is_err());
    }

    #[test]
    fn present_tells_null_from_absent() {
        #[derive(Deserialize)]
        struct T {
            #[serde(default, deserialize_with = "present")]
            v: Option<Option<String>>,
        }
        let t: T = serde_json::from_str("{}").unwrap();
        assert_eq!(t.v, None);
        let t: T = serde_json::from_str(r#"{"v":null}"#).unwrap();
        assert_eq!(t.v, Some(None));
    }
}
