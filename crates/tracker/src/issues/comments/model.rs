//! The comment record and the pure rules about comments: who may write,
//! change or lock, and which mentions a comment adds to its issue. Checked
//! in the order Gitea reports them; unit-tested without a database.

use serde::{Deserialize, Serialize};

use super::super::{Error, IssueRecord, Result, fields};
use crate::{
    db::{self, Item, keys},
    issues::index::stubs::CommentPlace,
    repos::access::{Permission, Unit},
};

/// A plain comment on an issue or pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommentRecord {
    /// Global id (`COUNTER#comment`), as Gitea's.
    pub id: i64,
    pub repo_id: i64,
    /// Number of the issue (or pull request) it belongs to.
    pub index: i64,
    #[serde(default)]
    pub is_pull: bool,
    /// Lower-case login of the author.
    pub poster: String,
    pub body: String,
    pub created: i64,
    pub updated: i64,
    /// Bumped by every edit (the condition of edits).
    #[serde(default)]
    pub version: i64,
}

impl CommentRecord {
    /// Where it is listed (its listing entries' makings).
    pub fn place(&self) -> CommentPlace {
        CommentPlace {
            id: self.id,
            repo_id: self.repo_id,
            index: self.index,
            is_pull: self.is_pull,
            created: self.created,
            updated: self.updated,
        }
    }

    /// The stored item: the record under its repository and id, indexed
    /// under its issue (`gsi1`) and its repository's kind (`gsi2`).
    pub fn to_item(&self) -> Result<Item> {
        let mut item = db::to_item(self)?;
        item.extend(keys::comment(self.repo_id, self.id));
        let sk = db::s(keys::comment_list_sk(self.created, self.id));
        item.insert(
            "gsi1pk".into(),
            db::s(keys::issue_comments_pk(self.repo_id, self.index)),
        );
        item.insert("gsi1sk".into(), sk.clone());
        item.insert(
            "gsi2pk".into(),
            db::s(keys::repo_comments_pk(self.repo_id, self.is_pull)),
        );
        item.insert("gsi2sk".into(), sk);
        Ok(item)
    }
}

/// The repository counter of comments on issues or on pull requests.
pub fn repo_counter(is_pull: bool) -> &'static str {
    if is_pull {
        "num_pull_comments"
    } else {
        "num_issue_comments"
    }
}

/// A comment body: not blank, at most [`fields::MAX_BODY_CHARS`] (kept
/// as sent).
pub fn body(raw: String) -> Result<String> {
    if raw.trim().is_empty() {
        return Err(Error::EmptyComment);
    }
    fields::body("body", raw)
}

/// Commenting, once the repository is known not archived: a locked issue
/// takes comments from writers of its kind only (site admins are writers
/// everywhere); a user blocked by the repository's owner or by the
/// issue's poster may not comment unless they administer the repository.
pub fn may_comment(perm: &Permission, issue: &IssueRecord, blocked_by_poster: bool) -> Result<()> {
    if issue.is_locked && !perm.can_write(Unit::for_pull(issue.is_pull)) {
        return Err(Error::LockedIssue);
    }
    not_blocked(perm, blocked_by_poster)
}

/// Blocked by the owner or the issue's poster, and not a repository admin.
pub fn not_blocked(perm: &Permission, blocked_by_poster: bool) -> Result<()> {
    if perm.blocked_out(blocked_by_poster) {
        return Err(Error::Blocked);
    }
    Ok(())
}

/// Editing or deleting a comment: its author or a repository admin (site
/// admins administer every repository). Anyone else gets Gitea's empty
/// 403.
pub fn may_change(perm: &Permission, comment: &CommentRecord, me: &str) -> Result<()> {
    if comment.poster == me || perm.is_admin() {
        Ok(())
    } else {
        Err(Error::MayNotChangeComment)
    }
}

/// Locking and unlocking: repository admins (Gitea's `reqAdmin`).
pub fn may_lock(perm: &Permission) -> Result<()> {
    if perm.is_admin() {
        Ok(())
    } else {
        Err(Error::MayNotLock)
    }
}

/// A lock reason: free text, at most [`fields::MAX_LOCK_REASON_CHARS`].
pub fn lock_reason(raw: Option<String>) -> Result<String> {
    let reason = raw.unwrap_or_default().trim().to_string();
    if reason.chars().count() > fields::MAX_LOCK_REASON_CHARS {
        return Err(Error::TooLong {
            field: "lock_reason",
            max: fields::MAX_LOCK_REASON_CHARS,
        });
    }
    Ok(reason)
}

/// The names of `found` (mentions of a comment, lower-case) worth
/// recording on `issue`: short enough to be logins, not recorded yet, as
/// many as [`fields::MAX_MENTIONS`] leaves room for, in order.
pub fn unrecorded_mentions(issue: &IssueRecord, found: &[String]) -> Vec<String> {
    let room = fields::MAX_MENTIONS.saturating_sub(issue.comment_mentions.len());
    let mut out: Vec<String> = Vec::new();
    for name in found {
        if out.len() == room {
            break;
        }
        let known = issue.mentions.contains(name)
            || issue.comment_mentions.contains(name)
            || out.contains(name);
        if !known && name.len() <= fields::MAX_LOGIN_CHARS {
            out.push(name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::teams::AccessMode;

    fn perm(issues: AccessMode, mode: AccessMode, blocked: bool) -> Permission {
        Permission {
            mode,
            issues,
            pulls: issues,
            blocked,
        }
    }

    fn issue(locked: bool) -> IssueRecord {
        IssueRecord {
            is_locked: locked,
            poster: "poster".into(),
            ..IssueRecord::default()
        }
    }

    #[test]
    fn who_may_comment() {
        use AccessMode::{Admin, Owner, Read, Write};
        // (issue access, overall access, owner blocked me, poster blocked
        // me, issue locked) -> allowed, or the error.
        type Row = (
            AccessMode,
            AccessMode,
            bool,
            bool,
            bool,
            Option<&'static str>,
        );
        let rows: &[Row] = &[
            (Read, Read, false, false, false, None),
            (Read, Read, false, false, true, Some("locked")),
            (Write, Write, false, false, true, None),
            (Owner, Owner, false, false, true, None),
            (Read, Read, true, false, false, Some("blocked")),
            (Read, Read, false, true, false, Some("blocked")),
            (Write, Write, true, false, false, Some("blocked")),
            (Admin, Admin, true, true, false, None),
            (Write, Write, true, false, true, Some("blocked")),
            (Read, Read, true, false, true, Some("locked")),
        ];
        for (n, &(issues, mode, owner_blocked, poster_blocked, locked, want)) in
            rows.iter().enumerate()
        {
            let got = may_comment(
                &perm(issues, mode, owner_blocked),
                &issue(locked),
                poster_blocked,
            );
            let got = match got {
                Ok(()) => None,
                Err(Error::LockedIssue) => Some("locked"),
                Err(Error::Blocked) => Some("blocked"),
                Err(e) => panic!("row {n}: unexpected {e:?}"),
            };
            assert_eq!(got, want, "row {n}");
        }
    }

    #[test]
    fn who_may_change_or_lock() {
        use AccessMode::{Admin, Read, Write};
        let c = CommentRecord {
            poster: "ann".into(),
            ..CommentRecord::default()
        };
        assert!(may_change(&perm(Read, Read, false), &c, "ann").is_ok());
        assert!(may_change(&perm(Write, Write, false), &c, "bob").is_err());
        assert!(may_change(&perm(Admin, Admin, false), &c, "bob").is_ok());
        assert!(may_lock(&perm(Write, Write, false)).is_err());
        assert!(may_lock(&perm(Admin, Admin, false)).is_ok());
    }

    #[test]
    fn bodies_and_reasons() {
        assert!(matches!(body(" \n".into()), Err(Error::EmptyComment)));
        assert_eq!(body(" hi ".into()).unwrap(), " hi ");
        assert!(body("é".repeat(fields::MAX_BODY_CHARS)).is_ok());
        assert!(matches!(
            body("x".repeat(fields::MAX_BODY_CHARS + 1)),
            Err(Error::TooLong { field: "body", .. })
        ));
        assert_eq!(lock_reason(None).unwrap(), "");
        assert_eq!(lock_reason(Some(" Spam ".into())).unwrap(), "Spam");
        assert!(lock_reason(Some("x".repeat(256))).is_err());
    }

    #[test]
    fn mentions_are_recorded_once_within_the_cap() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut i = issue(false);
        i.mentions = names(&["ann"]);
        i.comment_mentions = names(&["bob"]);
        let long = "x".repeat(fields::MAX_LOGIN_CHARS + 1);
        let found = names(&["ann", "bob", "cid", "cid", &long, "dee"]);
        assert_eq!(unrecorded_mentions(&i, &found), names(&["cid", "dee"]));
        i.comment_mentions = (0..fields::MAX_MENTIONS - 1)
            .map(|n| format!("u{n}"))
            .collect();
        // Room for one: the first name not recorded yet.
        assert_eq!(unrecorded_mentions(&i, &found), names(&["bob"]));
        i.comment_mentions.push("full".into());
        assert!(unrecorded_mentions(&i, &found).is_empty());
    }

    #[test]
    fn items_carry_both_listing_keys() {
        let c = CommentRecord {
            id: 7,
            repo_id: 3,
            index: 2,
            is_pull: true,
            poster: "ann".into(),
            body: "b".into(),
            created: 100,
            updated: 100,
            version: 1,
        };
        let item = c.to_item().unwrap();
        let text = |k: &str| db::text(&item, k).to_string();
        assert_eq!(text("sk"), "COMMENT#00000000000000000007");
        assert_eq!(text("gsi1pk"), "RIC#3#2");
        assert_eq!(text("gsi2pk"), "RC#3#p");
        assert_eq!(text("gsi1sk"), text("gsi2sk"));
        assert_eq!(text("gsi1sk"), "00000000000000000100#00000000000000000007");
    }
}
