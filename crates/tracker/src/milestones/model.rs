//! Milestone records and their pure rules. The issue counters
//! (`num_issues`, `num_closed_issues`) are moved only by issue writes.

use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::text;

/// Longest milestone description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 65_535;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MilestoneRecord {
    pub id: i64,
    pub repo_id: i64,
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub closed: bool,
    /// When it was last closed (0: never).
    #[serde(default)]
    pub closed_at: i64,
    /// Deadline (0: none).
    #[serde(default)]
    pub due: i64,
    pub created: i64,
    pub updated: i64,
    #[serde(default)]
    pub num_issues: i64,
    #[serde(default)]
    pub num_closed_issues: i64,
}

/// A parsed create request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMilestone {
    pub title: String,
    pub description: String,
    pub closed: bool,
    /// Deadline (0: none).
    pub due: i64,
}

impl NewMilestone {
    /// The record of a new milestone, closed at creation if asked.
    pub fn record(self, id: i64, repo_id: i64, now: i64) -> MilestoneRecord {
        MilestoneRecord {
            id,
            repo_id,
            title: self.title,
            description: self.description,
            closed: self.closed,
            closed_at: if self.closed { now } else { 0 },
            due: self.due,
            created: now,
            updated: now,
            num_issues: 0,
            num_closed_issues: 0,
        }
    }
}

/// A title: trimmed, 1 to 255 characters.
pub fn title(raw: &str) -> Result<String> {
    text::title(raw).map_err(Error::Title)
}

/// A description, at most [`MAX_DESCRIPTION_CHARS`] characters.
pub fn description(raw: Option<String>) -> Result<String> {
    text::bounded(raw.unwrap_or_default(), MAX_DESCRIPTION_CHARS).map_err(|_| {
        Error::DescriptionTooLong {
            max: MAX_DESCRIPTION_CHARS,
        }
    })
}

/// `due_on`: the end of the given day; null or zero time for none (0).
pub fn due(raw: Option<&str>, tz: crate::time::Zone) -> Result<i64> {
    match raw {
        None => Ok(0),
        Some(r) => text::deadline(r, tz).map_err(Error::DueOn),
    }
}

/// What an edit changes (`None`: keep).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edit {
    pub title: Option<String>,
    pub description: Option<String>,
    pub closed: Option<bool>,
    /// `Some(0)` clears the deadline.
    pub due: Option<i64>,
}

impl Edit {
    /// The milestone after this edit at `now`; closing stamps `closed_at`.
    pub fn apply(self, m: &MilestoneRecord, now: i64) -> MilestoneRecord {
        let mut next = m.clone();
        next.updated = now;
        if let Some(t) = self.title {
            next.title = t;
        }
        if let Some(d) = self.description {
            next.description = d;
        }
        if let Some(c) = self.closed {
            if c && !m.closed {
                next.closed_at = now;
            }
            next.closed = c;
        }
        if let Some(due) = self.due {
            next.due = due;
        }
        next
    }
}

/// A listing's `state` and `name` filters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// `None`: both states.
    pub closed: Option<bool>,
    /// Lower-cased part of the title.
    pub name: Option<String>,
}

impl ListFilter {
    /// `state`: open (default, and any unknown value), closed, all;
    /// `name`: trimmed, matched without case.
    pub fn parse(state: Option<&str>, name: Option<&str>) -> Self {
        Self {
            closed: match state {
                Some("closed") => Some(true),
                Some("all") => None,
                _ => Some(false),
            },
            name: name
                .map(|n| n.trim().to_lowercase())
                .filter(|n| !n.is_empty()),
        }
    }

    /// The matching milestones in Gitea's order: deadline first (none
    /// before any), then title.
    pub fn select(&self, all: Vec<MilestoneRecord>) -> Vec<MilestoneRecord> {
        let mut out: Vec<MilestoneRecord> = all
            .into_iter()
            .filter(|m| self.closed.is_none_or(|c| m.closed == c))
            .filter(|m| {
                self.name
                    .as_ref()
                    .is_none_or(|n| m.title.to_lowercase().contains(n))
            })
            .collect();
        out.sort_by(|a, b| a.due.cmp(&b.due).then_with(|| a.title.cmp(&b.title)));
        out
    }
}

/// How a path names a milestone: a non-zero number first, else the exact
/// title.
pub fn by_id(id_or_title: &str) -> Option<i64> {
    id_or_title.parse::<i64>().ok().filter(|id| *id != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: i64, title: &str, closed: bool, due: i64) -> MilestoneRecord {
        MilestoneRecord {
            id,
            title: title.into(),
            closed,
            due,
            ..MilestoneRecord::default()
        }
    }

    #[test]
    fn state_filter_defaults_to_open() {
        for (raw, want) in [
            (None, Some(false)),
            (Some("open"), Some(false)),
            (Some("bogus"), Some(false)),
            (Some("closed"), Some(true)),
            (Some("all"), None),
        ] {
            assert_eq!(ListFilter::parse(raw, None).closed, want, "{raw:?}");
        }
        assert_eq!(ListFilter::parse(None, Some("  ")).name, None);
        assert_eq!(
            ListFilter::parse(None, Some(" V1 ")).name.as_deref(),
            Some("v1")
        );
    }

    #[test]
    fn listing_orders_by_deadline_then_title() {
        let all = vec![
            m(1, "b", false, 5),
            m(2, "a", false, 5),
            m(3, "z", false, 0),
            m(4, "V1.0", true, 0),
        ];
        let open: Vec<i64> = ListFilter::parse(None, None)
            .select(all.clone())
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(open, [3, 2, 1]);
        let named: Vec<i64> = ListFilter::parse(Some("all"), Some("v1"))
            .select(all)
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(named, [4]);
    }

    #[test]
    fn closing_stamps_closed_at_once() {
        let open = m(1, "t", false, 9);
        let closed = Edit {
            closed: Some(true),
            due: Some(0),
            ..Edit::default()
        }
        .apply(&open, 100);
        assert_eq!(
            (closed.closed, closed.closed_at, closed.due),
            (true, 100, 0)
        );
        let again = Edit {
            closed: Some(true),
            ..Edit::default()
        }
        .apply(&closed, 200);
        assert_eq!((again.closed_at, again.updated), (100, 200));
    }

    #[test]
    fn fields_are_bounded() {
        assert!(matches!(title(" "), Err(Error::Title(_))));
        assert_eq!(title(" v1 ").unwrap(), "v1");
        assert!(description(Some("x".repeat(MAX_DESCRIPTION_CHARS))).is_ok());
        assert!(matches!(
            description(Some("x".repeat(MAX_DESCRIPTION_CHARS + 1))),
            Err(Error::DescriptionTooLong { .. })
        ));
        let tz = crate::time::Zone::UTC;
        assert_eq!(due(None, tz).unwrap(), 0);
        assert!(matches!(due(Some("soon"), tz), Err(Error::DueOn(_))));
    }

    #[test]
    fn paths_name_by_non_zero_number_else_title() {
        assert_eq!(by_id("3"), Some(3));
        assert_eq!(by_id("0"), None);
        assert_eq!(by_id("v1"), None);
    }
}
