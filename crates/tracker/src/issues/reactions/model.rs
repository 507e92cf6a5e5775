//! The reaction record and the pure rules about reactions: which contents
//! exist (Gitea's default `[ui] REACTIONS`), what a reaction is attached
//! to, and who may change them. Unit-tested without a database.

use serde::{Deserialize, Serialize};

use super::super::{Error, IssueRecord, Result};
use crate::{
    db::{self, Item, keys},
    repos::access::{Permission, Unit},
};

/// One of the reactions Gitea allows in its default configuration
/// (`setting.UI.Reactions`). The only way to get one from a request is
/// [`Content::parse`], so a stored reaction is always one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Content {
    #[serde(rename = "+1")]
    PlusOne,
    #[serde(rename = "-1")]
    MinusOne,
    #[serde(rename = "laugh")]
    Laugh,
    #[serde(rename = "hooray")]
    Hooray,
    #[serde(rename = "confused")]
    Confused,
    #[serde(rename = "heart")]
    Heart,
    #[serde(rename = "rocket")]
    Rocket,
    #[serde(rename = "eyes")]
    Eyes,
}

impl Content {
    /// Every allowed reaction, in Gitea's order.
    pub const ALL: [Content; 8] = [
        Content::PlusOne,
        Content::MinusOne,
        Content::Laugh,
        Content::Hooray,
        Content::Confused,
        Content::Heart,
        Content::Rocket,
        Content::Eyes,
    ];

    /// Its name on the wire and in the table.
    pub fn as_str(self) -> &'static str {
        match self {
            Content::PlusOne => "+1",
            Content::MinusOne => "-1",
            Content::Laugh => "laugh",
            Content::Hooray => "hooray",
            Content::Confused => "confused",
            Content::Heart => "heart",
            Content::Rocket => "rocket",
            Content::Eyes => "eyes",
        }
    }

    /// The reaction named exactly `raw` (Gitea compares as sent: no
    /// trimming, no case folding); anything else is Gitea's 403
    /// `'<raw>' is not an allowed reaction`.
    pub fn parse(raw: &str) -> Result<Content> {
        Content::ALL
            .into_iter()
            .find(|c| c.as_str() == raw)
            .ok_or_else(|| Error::ForbiddenReaction(raw.to_string()))
    }
}

/// What a reaction is attached to: an issue (or pull request) itself, or
/// one of its comments. Every reaction of an issue, its comments' included,
/// is stored under one key prefix of the repository's partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub repo_id: i64,
    /// The issue's number (a comment's issue, for comment reactions).
    pub index: i64,
    /// The comment's id, or `None` for the issue itself.
    pub comment: Option<i64>,
}

impl Target {
    pub fn issue(repo_id: i64, index: i64) -> Self {
        Self {
            repo_id,
            index,
            comment: None,
        }
    }

    pub fn comment(repo_id: i64, index: i64, id: i64) -> Self {
        Self {
            repo_id,
            index,
            comment: Some(id),
        }
    }

    /// Where this target's reaction items begin.
    pub fn prefix(&self) -> String {
        keys::reaction_target_prefix(self.index, self.comment)
    }

    /// The item that must exist for a reaction to be added (the issue, or
    /// the comment).
    pub fn parent_key(&self) -> Item {
        match self.comment {
            None => keys::issue(self.repo_id, self.index),
            Some(id) => keys::comment(self.repo_id, id),
        }
    }
}

/// One user's reaction: stored twice under its target, as the claim (key
/// by user and content: at most one of each) and as the listing's entry
/// (key by `at`, so the listing is oldest first, as Gitea orders them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReactionRecord {
    /// Lower-case login of the user who reacted.
    pub user: String,
    pub content: Content,
    /// Unix seconds (what `created_at` shows).
    pub created: i64,
    /// Unix microseconds: the listing's order (`at` is a reserved word
    /// of DynamoDB's expressions).
    #[serde(rename = "at_us")]
    pub at: i64,
}

impl ReactionRecord {
    /// A reaction made at `at` (Unix microseconds).
    pub fn new(user: &str, content: Content, at: i64) -> Self {
        Self {
            user: crate::name::fold(user),
            content,
            created: at.div_euclid(1_000_000),
            at,
        }
    }

    pub fn claim_key(&self, target: &Target) -> Item {
        keys::reaction_claim(
            target.repo_id,
            &target.prefix(),
            &self.user,
            self.content.as_str(),
        )
    }

    pub fn entry_key(&self, target: &Target) -> Item {
        keys::reaction_entry(
            target.repo_id,
            &target.prefix(),
            self.at,
            &self.user,
            self.content.as_str(),
        )
    }

    /// The record under `key` (the claim's or the entry's).
    pub fn to_item(&self, key: Item) -> Result<Item> {
        let mut item = db::to_item(self)?;
        item.extend(key);
        Ok(item)
    }
}

/// Adding or removing a reaction, once the repository is known not
/// archived and the target readable: a locked issue's reactions (its
/// comments' included) change only for writers of its kind (Gitea's
/// `CanWriteIssuesOrPulls`; site admins write everywhere).
pub fn may_change(perm: &Permission, issue: &IssueRecord) -> Result<()> {
    if issue.is_locked && !perm.can_write(Unit::for_pull(issue.is_pull)) {
        return Err(Error::ReactionLocked);
    }
    Ok(())
}

/// Reacting, as Gitea's `CreateIssueReaction`/`CreateCommentReaction`: a
/// user blocked by the repository's owner (`perm.blocked`) or by a poster
/// (the issue's, and the comment's for comment reactions) may not react.
/// Only site admins pass blocks here (`perm.blocked` is already false for
/// them, and their posters' blocks are not read); unlike comments, the
/// repository's admins do not.
pub fn not_blocked(perm: &Permission, blocked_by_poster: bool) -> Result<()> {
    if perm.blocked || blocked_by_poster {
        return Err(Error::Blocked);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::teams::AccessMode;

    #[test]
    fn contents_are_gitea_s_default_set_exactly() {
        let names: Vec<&str> = Content::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"
            ]
        );
        for c in Content::ALL {
            assert_eq!(Content::parse(c.as_str()).unwrap(), c);
            // The serde name is the wire name.
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
        }
        for raw in [
            "", "Heart", " heart", "heart ", "smile", "thumbsup", "+2", "👍",
        ] {
            match Content::parse(raw) {
                Err(Error::ForbiddenReaction(r)) => assert_eq!(r, raw),
                other => panic!("{raw:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn keys_keep_an_issue_s_reactions_under_one_prefix() {
        let issue = Target::issue(7, 3);
        let comment = Target::comment(7, 3, 42);
        let all = keys::issue_reactions_prefix(3);
        let r = ReactionRecord::new("Ann", Content::Heart, 1_700_000_000_123_456);
        for t in [issue, comment] {
            let sk = |i: Item| i["sk"].as_s().unwrap().clone();
            for key in [r.claim_key(&t), r.entry_key(&t)] {
                assert_eq!(key["pk"].as_s().unwrap(), "REPO#7");
                assert!(sk(key.clone()).starts_with(&t.prefix()), "{key:?}");
                assert!(sk(key).starts_with(&all));
            }
        }
        // Neither target's prefix holds the other's items, nor issue 30's.
        assert!(!comment.prefix().starts_with(&issue.prefix()));
        assert!(!issue.prefix().starts_with(&comment.prefix()));
        assert!(!keys::issue_reactions_prefix(30).starts_with(&all));
        assert_eq!(r.user, "ann");
        assert_eq!(r.created, 1_700_000_000);
        assert_eq!(
            r.claim_key(&issue)["sk"].as_s().unwrap(),
            &format!("REACT#{:020}#I#U#ann#heart", 3)
        );
        // Entries sort by time.
        let later = ReactionRecord::new("ann", Content::Eyes, r.at + 1);
        let sk = |r: &ReactionRecord| r.entry_key(&issue)["sk"].as_s().unwrap().clone();
        assert!(sk(&r) < sk(&later));
        assert!(sk(&r).starts_with(&keys::reaction_entries_prefix(&issue.prefix())));
    }

    fn perm(issues: AccessMode, blocked: bool) -> Permission {
        Permission {
            mode: issues,
            issues,
            pulls: AccessMode::Read,
            blocked,
        }
    }

    #[test]
    fn locked_issues_take_reactions_from_writers_of_their_kind() {
        let mut issue = IssueRecord {
            is_locked: true,
            ..IssueRecord::default()
        };
        assert!(matches!(
            may_change(&perm(AccessMode::Read, false), &issue),
            Err(Error::ReactionLocked)
        ));
        assert!(may_change(&perm(AccessMode::Write, false), &issue).is_ok());
        // A pull request: the pull-request unit decides.
        issue.is_pull = true;
        assert!(may_change(&perm(AccessMode::Write, false), &issue).is_err());
        issue.is_locked = false;
        assert!(may_change(&perm(AccessMode::Read, false), &issue).is_ok());
    }

    #[test]
    fn blocks_stop_even_repository_admins() {
        let admin = perm(AccessMode::Admin, true);
        assert!(matches!(not_blocked(&admin, false), Err(Error::Blocked)));
        assert!(not_blocked(&perm(AccessMode::Admin, false), true).is_err());
        assert!(not_blocked(&perm(AccessMode::Read, false), false).is_ok());
    }
}
