//! Repository records and the pure rules about them: names, what a
//! create asks for, what an edit may change.

use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::accounts::{
    self,
    names::{bounded, fold},
};

/// The settings of a repository (the item a path resolves).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RepoRecord {
    pub id: i64,
    /// Owner name as created.
    pub owner: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub website: String,
    pub private: bool,
    #[serde(default)]
    pub archived: bool,
    #[serde(default)]
    pub archived_at: i64,
    pub has_issues: bool,
    pub has_pull_requests: bool,
    #[serde(default = "yes")]
    pub enable_issue_dependencies: bool,
    /// Gitea's time tracker, on by default (as Gitea's
    /// `DEFAULT_ENABLE_TIMETRACKING`); absent on older items means on.
    #[serde(default = "yes")]
    pub enable_time_tracker: bool,
    /// Only writers, the issue's poster and its assignees may track time
    /// (Gitea's `DEFAULT_ALLOW_ONLY_CONTRIBUTORS_TO_TRACK_TIME`, true).
    #[serde(default = "yes")]
    pub allow_only_contributors_to_track_time: bool,
    #[serde(default)]
    pub default_branch: String,
    pub created: i64,
    pub updated: i64,
    /// Topics, by name: a string set on the item, written by
    /// `store::settings_item` and the topic updates (`topics`).
    #[serde(default, skip_serializing)]
    pub topics: std::collections::BTreeSet<String>,
}

fn yes() -> bool {
    true
}

impl RepoRecord {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }
}

/// Counters kept by issue and pull-request writes, in their transactions.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RepoStats {
    #[serde(default)]
    pub num_issues: i64,
    #[serde(default)]
    pub num_closed_issues: i64,
    #[serde(default)]
    pub num_pulls: i64,
    #[serde(default)]
    pub num_closed_pulls: i64,
    /// Issue numbers handed out so far (issues and pulls share them).
    #[serde(default)]
    pub last_index: i64,
    /// Comments on issues and on pull requests (the repository-wide
    /// comment listing's `X-Total-Count`), moved by every comment write.
    #[serde(default)]
    pub num_issue_comments: i64,
    #[serde(default)]
    pub num_pull_comments: i64,
    /// Owner and name, so a repository can be found from its id (issue
    /// dependencies across repositories); kept by create and rename.
    #[serde(default)]
    pub owner: String,
    #[serde(default)]
    pub name: String,
    /// Copies of the settings every search reads (visibility and units),
    /// kept by create and every settings change in the same transaction;
    /// absent on repositories no change has touched since they were added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_issues: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_pull_requests: Option<bool>,
    /// Deleted issues whose comments are still being removed (a number
    /// set), which the comment listings pass over: added by the delete's
    /// transaction, taken out by its clean-up job once the last is gone.
    /// Written only by update expressions, never with the item.
    #[serde(default, skip_serializing)]
    pub purging: std::collections::BTreeSet<i64>,
}

impl RepoStats {
    /// What search needs of the repository (id, owner, name, visibility,
    /// units), when this item carries it; other settings are defaults.
    pub fn summary(&self, id: i64) -> Option<RepoRecord> {
        Some(RepoRecord {
            id,
            owner: self.owner.clone(),
            name: self.name.clone(),
            description: String::new(),
            website: String::new(),
            private: self.private?,
            archived: false,
            archived_at: 0,
            has_issues: self.has_issues?,
            has_pull_requests: self.has_pull_requests?,
            enable_issue_dependencies: true,
            enable_time_tracker: true,
            allow_only_contributors_to_track_time: true,
            default_branch: String::new(),
            created: 0,
            updated: 0,
            topics: Default::default(),
        })
        .filter(|r| !r.name.is_empty())
    }
}

/// Repository names: letters, digits, `-`, `_`, `.`; at most 100
/// characters; not `.`/`..`, not ending in `.git` or `.wiki`.
pub fn parse_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    let bad = |why: &str| accounts::Error::invalid("name", format!("{why} (got {raw:?})")).into();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(bad("must be 1 to 100 characters"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(bad("may contain only letters, digits, '-', '_' and '.'"));
    }
    let lower = fold(name);
    if matches!(lower.as_str(), "." | ".." | "-")
        || [".git", ".wiki", ".rss", ".atom"]
            .iter()
            .any(|s| lower.ends_with(s))
    {
        return Err(Error::ReservedName(name.to_string()));
    }
    Ok(name.to_string())
}

/// A validated repository request.
pub struct NewRepo {
    pub name: String,
    pub description: String,
    pub private: bool,
    pub default_branch: String,
}

impl NewRepo {
    /// Gitea's `CreateRepoOption` fields: the name's rules, a description of
    /// at most 2048 characters, `main` when no default branch is named.
    pub fn parse(
        name: &str,
        description: Option<String>,
        private: Option<bool>,
        default_branch: Option<String>,
    ) -> Result<Self> {
        Ok(NewRepo {
            name: parse_name(name)?,
            description: bounded("description", description, 2048)?,
            private: private.unwrap_or(false),
            default_branch: default_branch
                .filter(|b| !b.trim().is_empty())
                .unwrap_or_else(|| "main".into()),
        })
    }
}

/// The settings an edit may change; `None` keeps what is there.
#[derive(Debug, Default)]
pub struct RepoEdit {
    pub name: Option<String>,
    pub description: Option<String>,
    pub website: Option<String>,
    pub private: Option<bool>,
    pub archived: Option<bool>,
    pub has_issues: Option<bool>,
    pub has_pull_requests: Option<bool>,
    pub default_branch: Option<String>,
    pub enable_issue_dependencies: Option<bool>,
    pub enable_time_tracker: Option<bool>,
    pub allow_only_contributors_to_track_time: Option<bool>,
}

impl RepoEdit {
    /// Checks each given field and applies it; archiving stamps the time
    /// once, a blank default branch is ignored.
    pub fn apply(self, repo: &mut RepoRecord, now: i64) -> Result<()> {
        if let Some(n) = self.name {
            repo.name = parse_name(&n)?;
        }
        if let Some(d) = self.description {
            repo.description = bounded("description", Some(d), 2048)?;
        }
        if let Some(w) = self.website {
            repo.website = bounded("website", Some(w), 1024)?;
        }
        if let Some(p) = self.private {
            repo.private = p;
        }
        if let Some(a) = self.archived {
            if a && !repo.archived {
                repo.archived_at = now;
            }
            repo.archived = a;
        }
        if let Some(h) = self.has_issues {
            repo.has_issues = h;
        }
        if let Some(h) = self.has_pull_requests {
            repo.has_pull_requests = h;
        }
        if let Some(b) = self.default_branch.filter(|b| !b.trim().is_empty()) {
            repo.default_branch = b;
        }
        if let Some(dep) = self.enable_issue_dependencies {
            repo.enable_issue_dependencies = dep;
        }
        if let Some(on) = self.enable_time_tracker {
            repo.enable_time_tracker = on;
        }
        if let Some(only) = self.allow_only_contributors_to_track_time {
            repo.allow_only_contributors_to_track_time = only;
        }
        repo.updated = now;
        Ok(())
    }
}

/// A fresh repository record for `owner`.
pub fn new_record(id: i64, owner: &str, new: NewRepo, now: i64) -> RepoRecord {
    RepoRecord {
        id,
        owner: owner.to_string(),
        name: new.name,
        description: new.description,
        website: String::new(),
        private: new.private,
        archived: false,
        archived_at: 0,
        has_issues: true,
        has_pull_requests: true,
        enable_issue_dependencies: true,
        enable_time_tracker: true,
        allow_only_contributors_to_track_time: true,
        default_branch: new.default_branch,
        created: now,
        updated: now,
        topics: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_names() {
        for ok in ["web", "A.b-c_d", "x", &"r".repeat(100)] {
            assert_eq!(parse_name(ok).unwrap(), ok);
        }
        assert_eq!(parse_name("  web ").unwrap(), "web", "trimmed");
        for bad in ["", "  ", "a b", "ü", &"r".repeat(101)] {
            assert!(
                matches!(parse_name(bad), Err(Error::Accounts(_))),
                "{bad:?} should be invalid"
            );
        }
        for reserved in [".", "..", "-", "x.git", "X.WIKI", "feed.rss", "a.atom"] {
            assert!(
                matches!(parse_name(reserved), Err(Error::ReservedName(_))),
                "{reserved:?} should be reserved"
            );
        }
    }

    #[test]
    fn a_new_repository_defaults_to_public_on_main() {
        let new = NewRepo::parse("web", None, None, Some(" ".into())).unwrap();
        assert_eq!(
            (
                new.private,
                new.default_branch.as_str(),
                new.description.as_str()
            ),
            (false, "main", "")
        );
        let rec = new_record(9, "Acme", new, 100);
        assert_eq!(rec.full_name(), "Acme/web");
        assert!(rec.has_issues && rec.has_pull_requests && rec.enable_issue_dependencies);
        assert_eq!((rec.created, rec.updated), (100, 100));
        assert!(NewRepo::parse("web", Some("d".repeat(2049)), None, None).is_err());
    }

    #[test]
    fn edits_change_only_what_they_name() {
        let base = new_record(
            1,
            "o",
            NewRepo::parse("r", None, Some(true), None).unwrap(),
            10,
        );
        let mut repo = base.clone();
        RepoEdit::default().apply(&mut repo, 20).unwrap();
        assert_eq!(
            (repo.name.as_str(), repo.private, repo.updated),
            ("r", true, 20)
        );

        let mut repo = base.clone();
        RepoEdit {
            name: Some("r2".into()),
            archived: Some(true),
            default_branch: Some("".into()),
            enable_issue_dependencies: Some(false),
            has_pull_requests: Some(false),
            ..RepoEdit::default()
        }
        .apply(&mut repo, 30)
        .unwrap();
        assert_eq!(repo.name, "r2");
        assert!(repo.archived && !repo.enable_issue_dependencies && !repo.has_pull_requests);
        assert_eq!(repo.archived_at, 30);
        assert_eq!(repo.default_branch, "main", "a blank branch is ignored");

        // Archiving again keeps the first time.
        RepoEdit {
            archived: Some(true),
            ..RepoEdit::default()
        }
        .apply(&mut repo, 40)
        .unwrap();
        assert_eq!(repo.archived_at, 30);

        let mut repo = base.clone();
        let err = RepoEdit {
            name: Some("bad name".into()),
            ..RepoEdit::default()
        }
        .apply(&mut repo, 50);
        assert!(err.is_err());
        assert!(
            RepoEdit {
                website: Some("w".repeat(1025)),
                ..RepoEdit::default()
            }
            .apply(&mut repo, 50)
            .is_err()
        );
    }

    /// The set the delete's transaction adds to reads back as numbers.
    #[test]
    fn the_purging_set_reads_as_numbers() {
        let mut item = crate::db::keys::repo_stats(1);
        item.insert(
            "purging".into(),
            crate::db::Value::Ns(vec!["5".into(), "7".into()]),
        );
        let s: super::RepoStats = crate::db::from_item(item).unwrap();
        assert_eq!(s.purging.into_iter().collect::<Vec<_>>(), [5, 7]);
    }
}
