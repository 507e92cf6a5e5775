//! Label records and their pure rules.

use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::text;

/// Longest label name, in characters.
pub const MAX_NAME_CHARS: usize = 50;
/// Longest label description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 200;

/// Where a label lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A repository: its id and full name (for the `url` field).
    Repo {
        id: i64,
        full_name: String,
    },
    Org {
        name: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelRecord {
    pub id: i64,
    pub name: String,
    /// Six lower-case hex digits, no `#`.
    pub color: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub exclusive: bool,
    #[serde(default)]
    pub is_archived: bool,
    pub scope: Scope,
}

/// `#abc`, `abc`, `#aabbcc` or `aabbcc` (any case) → `aabbcc`.
pub fn color(raw: &str) -> Result<String> {
    let hex = raw.trim().trim_start_matches('#');
    let bad = || Error::Color(raw.to_string());
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    match hex.len() {
        6 => Ok(hex.to_lowercase()),
        3 => Ok(hex
            .chars()
            .flat_map(|c| [c, c])
            .collect::<String>()
            .to_lowercase()),
        _ => Err(bad()),
    }
}

/// A name: trimmed, 1 to [`MAX_NAME_CHARS`] characters.
pub fn name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::Name(raw.to_string()));
    }
    Ok(name.to_string())
}

/// A description, at most [`MAX_DESCRIPTION_CHARS`] characters.
pub fn description(raw: Option<String>) -> Result<String> {
    text::bounded(raw.unwrap_or_default(), MAX_DESCRIPTION_CHARS).map_err(|_| {
        Error::DescriptionTooLong {
            max: MAX_DESCRIPTION_CHARS,
        }
    })
}

/// A parsed create request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewLabel {
    pub name: String,
    pub color: String,
    pub description: String,
    pub exclusive: bool,
    pub is_archived: bool,
}

impl NewLabel {
    pub fn record(self, id: i64, scope: Scope) -> LabelRecord {
        LabelRecord {
            id,
            name: self.name,
            color: self.color,
            description: self.description,
            exclusive: self.exclusive,
            is_archived: self.is_archived,
            scope,
        }
    }
}

/// What an edit changes (`None`: keep).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelEdit {
    pub name: Option<String>,
    pub color: Option<String>,
    pub description: Option<String>,
    pub exclusive: Option<bool>,
    pub is_archived: Option<bool>,
}

impl LabelEdit {
    pub fn apply(self, mut label: LabelRecord) -> LabelRecord {
        if let Some(n) = self.name {
            label.name = n;
        }
        if let Some(c) = self.color {
            label.color = c;
        }
        if let Some(d) = self.description {
            label.description = d;
        }
        if let Some(e) = self.exclusive {
            label.exclusive = e;
        }
        if let Some(a) = self.is_archived {
            label.is_archived = a;
        }
        label
    }
}

/// A label as an issue request names it: by id or by name.
#[derive(Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(untagged)]
pub enum LabelRef {
    Id(i64),
    Name(String),
}

/// The ids of `wanted` among the `known` labels (the repository's first,
/// then its organisation's), without repeats; the first unknown one is the
/// error.
pub fn resolve(known: &[LabelRecord], wanted: &[LabelRef]) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    for w in wanted {
        let found = match w {
            LabelRef::Id(id) => known.iter().find(|l| l.id == *id),
            LabelRef::Name(n) => known.iter().find(|l| &l.name == n),
        };
        match found {
            Some(l) if !out.contains(&l.id) => out.push(l.id),
            Some(_) => {}
            None => return Err(Error::Unknown(w.clone())),
        }
    }
    Ok(out)
}

/// The label a path names (`/labels/{id}`): by id when it is a number and
/// such a label exists, else by exact name.
pub fn by_path<'a>(known: &'a [LabelRecord], raw: &str) -> Option<&'a LabelRecord> {
    raw.trim()
        .parse::<i64>()
        .ok()
        .and_then(|id| known.iter().find(|l| l.id == id))
        .or_else(|| known.iter().find(|l| l.name == raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours() {
        for (raw, want) in [
            ("#EE0701", "ee0701"),
            ("ee0701", "ee0701"),
            ("#e01", "ee0011"),
            ("ABC", "aabbcc"),
        ] {
            assert_eq!(color(raw).unwrap(), want, "{raw}");
        }
        for bad in ["", "#", "#12345", "#1234567", "red", "#ggg"] {
            assert!(matches!(color(bad), Err(Error::Color(_))), "{bad:?}");
        }
    }

    #[test]
    fn names_and_descriptions_are_bounded() {
        assert_eq!(name(" bug ").unwrap(), "bug");
        assert!(matches!(name("  "), Err(Error::Name(_))));
        assert!(name(&"é".repeat(50)).is_ok());
        assert!(name(&"é".repeat(51)).is_err());
        assert!(description(Some("d".repeat(200))).is_ok());
        assert!(matches!(
            description(Some("d".repeat(201))),
            Err(Error::DescriptionTooLong { max: 200 })
        ));
    }

    fn label(id: i64, name: &str) -> LabelRecord {
        LabelRecord {
            id,
            name: name.into(),
            color: "ee0701".into(),
            description: String::new(),
            exclusive: false,
            is_archived: false,
            scope: Scope::Org { name: "o".into() },
        }
    }

    #[test]
    fn issues_name_labels_by_id_or_name_once_each() {
        let known = [label(1, "bug"), label(2, "ui")];
        let wanted = [
            LabelRef::Name("ui".into()),
            LabelRef::Id(2),
            LabelRef::Id(1),
        ];
        assert_eq!(resolve(&known, &wanted).unwrap(), [2, 1]);
        let err = resolve(&known, &[LabelRef::Name("nope".into())]).unwrap_err();
        assert!(matches!(err, Error::Unknown(LabelRef::Name(n)) if n == "nope"));
    }

    #[test]
    fn paths_name_labels_by_id_then_name() {
        let known = [label(1, "bug"), label(2, "1"), label(3, "good first issue")];
        let found = |raw| by_path(&known, raw).map(|l| l.id);
        assert_eq!(found("1"), Some(1), "an id before a name");
        assert_eq!(found("bug"), Some(1));
        assert_eq!(found("good first issue"), Some(3));
        assert_eq!(found("9"), None);
        assert_eq!(found("Bug"), None, "names match exactly");
    }

    #[test]
    fn edits_change_only_what_they_name() {
        let edited = LabelEdit {
            color: Some("000000".into()),
            is_archived: Some(true),
            ..LabelEdit::default()
        }
        .apply(label(1, "bug"));
        assert_eq!(
            (
                edited.name.as_str(),
                edited.color.as_str(),
                edited.is_archived
            ),
            ("bug", "000000", true)
        );
    }
}
