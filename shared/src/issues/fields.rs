//! Bounds on what an issue or pull request stores, so that one record
//! always fits DynamoDB's 400 KB item and a page of them fits Lambda's
//! response (with bodies left out when needed). GitHub's figures where it
//! has them: 65,536 characters of body, 10 assignees.

use crate::{Error, Result};

/// Longest title, in characters (Gitea's column).
pub const MAX_TITLE_CHARS: usize = 255;
/// Longest body (issues, pulls, milestone descriptions, reviews).
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
/// Most mentions recorded per issue (GitHub notifies at most 50).
pub const MAX_MENTIONS: usize = 50;

/// A title: trimmed, 1 to 255 characters.
pub fn title(raw: &str) -> Result<String> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(Error::field("title", "must not be empty"));
    }
    if t.chars().count() > MAX_TITLE_CHARS {
        return Err(Error::field(
            "title",
            format!("must be at most {MAX_TITLE_CHARS} characters"),
        ));
    }
    Ok(t.to_string())
}

/// A long text (kept as sent), at most [`MAX_BODY_CHARS`] characters.
pub fn body(field: &str, raw: String) -> Result<String> {
    if raw.chars().count() > MAX_BODY_CHARS {
        return Err(Error::field(
            field,
            format!("is too long (maximum is {MAX_BODY_CHARS} characters)"),
        ));
    }
    Ok(raw)
}

/// A `ref` (a branch or tag name, or empty), at most 255 characters.
pub fn git_ref(raw: String) -> Result<String> {
    if raw.chars().count() > MAX_REF_CHARS {
        return Err(Error::field(
            "ref",
            format!("is too long (maximum is {MAX_REF_CHARS} characters)"),
        ));
    }
    Ok(raw)
}

/// A list field must not hold more than `max` entries.
pub fn at_most(field: &str, len: usize, max: usize) -> Result<()> {
    if len > max {
        return Err(Error::field(
            field,
            format!("has {len} entries; at most {max} are allowed"),
        ));
    }
    Ok(())
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
        assert!(e.to_string().contains("body"), "{e}");
        assert!(git_ref("r".repeat(256)).is_err());
        assert!(at_most("assignees", 11, MAX_ASSIGNEES).is_err());
        assert!(at_most("assignees", 10, MAX_ASSIGNEES).is_ok());
    }
}
