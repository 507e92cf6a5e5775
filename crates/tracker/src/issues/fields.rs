//! Bounds on what an issue or pull request stores, so that one record
//! always fits DynamoDB's 400 KB item and a page of them fits Lambda's
//! response (with bodies left out when needed). GitHub's figures where it
//! has them: 65,536 characters of body, 10 assignees.

use super::{Error, Result};
use crate::text;

pub use crate::text::MAX_TITLE_CHARS;
/// Longest body (issues, pulls, reviews).
pub const MAX_BODY_CHARS: usize = 65_536;
/// Longest `ref`, head or base branch name, in characters.
pub const MAX_REF_CHARS: usize = 255;
/// Most assignees of one issue.
pub const MAX_ASSIGNEES: usize = 10;
/// Most labels on one issue.
pub const MAX_LABELS: usize = 100;
/// Most users asked to review one pull request.
pub const MAX_REVIEW_REQUESTS: usize = 50;
/// Most users recorded as having reviewed one pull request.
pub const MAX_REVIEWERS: usize = 100;
/// Most mentions recorded per issue (GitHub notifies at most 50); its
/// comments record at most as many again.
pub const MAX_MENTIONS: usize = 50;
/// Longest login (`accounts::names::OwnerName`): a longer mention names
/// nobody.
pub const MAX_LOGIN_CHARS: usize = 40;
/// Longest lock reason (Gitea's are short phrases such as `Too heated`).
pub const MAX_LOCK_REASON_CHARS: usize = 255;

/// A title: trimmed, 1 to 255 characters.
pub fn title(raw: &str) -> Result<String> {
    text::title(raw).map_err(Error::Title)
}

/// A long text (kept as sent), at most [`MAX_BODY_CHARS`] characters.
pub fn body(field: &'static str, raw: String) -> Result<String> {
    text::bounded(raw, MAX_BODY_CHARS).map_err(|_| Error::TooLong {
        field,
        max: MAX_BODY_CHARS,
    })
}

/// A `ref` (a branch or tag name, or empty), at most 255 characters.
pub fn git_ref(raw: String) -> Result<String> {
    text::bounded(raw, MAX_REF_CHARS).map_err(|_| Error::TooLong {
        field: "ref",
        max: MAX_REF_CHARS,
    })
}

/// A head or base branch: trimmed, non-empty, no whitespace or control
/// characters, at most [`MAX_REF_CHARS`].
pub fn branch(field: &'static str, raw: &str) -> Result<String> {
    let b = raw.trim();
    if b.is_empty()
        || b.chars().count() > MAX_REF_CHARS
        || b.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(Error::Branch {
            field,
            raw: raw.to_string(),
        });
    }
    Ok(b.to_string())
}

/// A list field must not hold more than `max` entries.
pub fn at_most(field: &'static str, len: usize, max: usize) -> Result<()> {
    if len > max {
        return Err(Error::TooMany { field, len, max });
    }
    Ok(())
}

/// A deadline (end of its day in `tz` unless it carries an offset), 0 for
/// none.
pub fn deadline(raw: &str, tz: crate::time::Zone) -> Result<i64> {
    text::deadline(raw, tz).map_err(Error::Deadline)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_in_characters() {
        assert_eq!(title("  t  ").unwrap(), "t");
        assert!(title(" ").is_err());
        assert!(title(&"é".repeat(255)).is_ok());
        assert!(title(&"é".repeat(256)).is_err());
        assert!(body("body", "ü".repeat(MAX_BODY_CHARS)).is_ok());
        let e = body("body", "x".repeat(MAX_BODY_CHARS + 1)).unwrap_err();
        assert!(matches!(e, Error::TooLong { field: "body", .. }), "{e}");
        assert!(git_ref("r".repeat(256)).is_err());
        assert!(at_most("assignees", 11, MAX_ASSIGNEES).is_err());
        assert!(at_most("assignees", 10, MAX_ASSIGNEES).is_ok());
    }

    #[test]
    fn branches_are_single_words() {
        assert_eq!(branch("head", " feature/x ").unwrap(), "feature/x");
        for bad in ["", "  ", "a b", "a\tb", "a\u{7}"] {
            assert!(
                matches!(
                    branch("head", bad),
                    Err(Error::Branch { field: "head", .. })
                ),
                "{bad:?}"
            );
        }
        assert!(branch("base", &"b".repeat(MAX_REF_CHARS + 1)).is_err());
    }

    #[test]
    fn deadlines_name_their_field() {
        assert_eq!(
            deadline("1970-01-01T00:00:00Z", crate::time::Zone::UTC).unwrap(),
            0
        );
        assert!(matches!(
            deadline("someday", crate::time::Zone::UTC),
            Err(Error::Deadline(_))
        ));
    }
}
