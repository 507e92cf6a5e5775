//! Who may do what to an issue or pull request, and which state changes
//! are allowed: pure functions of the caller's permission and the record,
//! checked in the order Gitea reports them.

use super::{Error, IssueRecord, Result, fields};
use crate::repos::access::{Permission, RepoContext, Unit};

/// Proof that the caller may open an issue or pull request here (lower-case
/// login of the poster).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Poster(pub(super) String);

impl Poster {
    pub fn login(&self) -> &str {
        &self.0
    }
}

/// Opening needs: a repository not archived (423), read access to the
/// kind (400), not being blocked by the owner (403).
pub fn may_create(ctx: &RepoContext, me: String, unit: Unit) -> Result<Poster> {
    not_archived(ctx)?;
    if !ctx.perm.can_read(unit) {
        return Err(Error::NoUnitAccess(unit));
    }
    if ctx.perm.blocked {
        return Err(Error::Blocked);
    }
    Ok(Poster(me))
}

/// 423 when the repository is archived.
pub fn not_archived(ctx: &RepoContext) -> Result<()> {
    if ctx.repo.archived {
        return Err(Error::Archived(ctx.repo.full_name()));
    }
    Ok(())
}

/// Proof that the caller may edit an issue: its poster or a writer of its
/// kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Editor {
    pub(super) can_write: bool,
    pub(super) poster: bool,
    /// A block keeps them from the title and body.
    pub(super) blocked_out: bool,
}

pub fn may_edit(perm: &Permission, issue: &IssueRecord, me: &str) -> Result<Editor> {
    let can_write = perm.can_write(Unit::for_pull(issue.is_pull));
    let poster = issue.poster == me;
    if !poster && !can_write {
        return Err(Error::MayNotEdit);
    }
    Ok(Editor {
        can_write,
        poster,
        blocked_out: perm.blocked_out(false),
    })
}

impl Editor {
    /// Gitea refuses edits of the title or body by a user the owner
    /// blocked, unless they administer the repository.
    pub fn may_change_text(&self, title_or_body: bool) -> Result<()> {
        if self.blocked_out && title_or_body {
            return Err(Error::Blocked);
        }
        Ok(())
    }

    /// Whether maintainers may edit the head branch is the poster's say
    /// (Gitea's `SetAllowEdits`; writers who did not open it get 403).
    pub fn may_allow_edits(&self, asked: bool) -> Result<()> {
        if asked && !self.poster {
            return Err(Error::MayNotAllowEdits);
        }
        Ok(())
    }
}

/// A pull request's new base branch, judged on the record as the edit
/// leaves it (its state already applied, as Gitea changes the state
/// first): the same base, or a merged pull request, keeps it (Gitea skips
/// it silently); a closed one cannot move (422), nor onto its head branch.
pub fn edited_base(pr: &IssueRecord, base: &str) -> Result<Option<String>> {
    if pr.merged || pr.base == base {
        return Ok(None);
    }
    if pr.closed {
        return Err(Error::BaseOfClosed);
    }
    if pr.head == base {
        return Err(Error::SameBranches);
    }
    Ok(Some(base.to_string()))
}

/// Writers of the issue's kind only; `refusal` names the route's error.
pub fn must_write(perm: &Permission, issue: &IssueRecord, refusal: Error) -> Result<()> {
    if perm.can_write(Unit::for_pull(issue.is_pull)) {
        Ok(())
    } else {
        Err(refusal)
    }
}

/// Deleting: repository administrators (and site administrators).
pub fn may_delete(perm: &Permission) -> Result<()> {
    if perm.is_admin() {
        Ok(())
    } else {
        Err(Error::MayNotDelete)
    }
}

/// What an edit does to the deadline: `None` keeps it, `Some(0)` removes
/// it. Only writers change it; `unset_due_date` wins; an explicit `null`
/// without it is refused.
pub fn edited_due(
    can_write: bool,
    due_date: Option<Option<&str>>,
    unset: Option<bool>,
    tz: crate::time::Zone,
) -> Result<Option<i64>> {
    match (can_write, due_date, unset) {
        (false, _, _) | (true, None, None) => Ok(None),
        (true, _, Some(true)) => Ok(Some(0)),
        (true, Some(Some(d)), _) => Ok(Some(fields::deadline(d, tz)?)),
        (true, _, _) => Err(Error::DeadlineEmpty),
    }
}

/// The logins of `assignees` plus a non-blank `assignee`, bounded.
pub fn assignee_logins(list: Option<Vec<String>>, one: Option<String>) -> Result<Vec<String>> {
    let mut logins = list.unwrap_or_default();
    logins.extend(one.filter(|a| !a.trim().is_empty()));
    fields::at_most("assignees", logins.len(), fields::MAX_ASSIGNEES)?;
    Ok(logins)
}

/// A requested `state`: `open` or `closed` (anything else is a 412), never
/// for a merged pull request. Returns whether it asks for closed.
pub fn requested_state(issue: &IssueRecord, state: &str) -> Result<bool> {
    if issue.is_pull && issue.merged {
        return Err(Error::Merged);
    }
    match state {
        "open" => Ok(false),
        "closed" => Ok(true),
        other => Err(Error::UnknownState(other.to_string())),
    }
}

/// Whether closing needs the blockers checked: only when it closes an open
/// issue of a repository with dependencies.
pub fn closing_needs_blockers(ctx: &RepoContext, issue: &IssueRecord, closed: bool) -> bool {
    closed && !issue.closed && ctx.repo.enable_issue_dependencies
}

/// Merging: writers of pull requests, in a repository not archived, of a
/// pull request neither merged nor closed (405, as in Gitea).
pub fn may_merge(ctx: &RepoContext, pr: &IssueRecord) -> Result<()> {
    if !ctx.perm.can_write(Unit::Pulls) {
        return Err(Error::MayNotWrite);
    }
    not_archived(ctx)?;
    match (pr.merged, pr.closed) {
        (true, _) => Err(Error::AlreadyMerged),
        (false, true) => Err(Error::ClosedUnmerged),
        (false, false) => Ok(()),
    }
}

/// A review's event, upper-cased: APPROVED, REQUEST_CHANGES or COMMENT;
/// only COMMENT on one's own pull request; never while blocked.
pub fn review_event(perm: &Permission, pr: &IssueRecord, me: &str, raw: &str) -> Result<String> {
    let event = raw.trim().to_uppercase();
    if !matches!(event.as_str(), "APPROVED" | "REQUEST_CHANGES" | "COMMENT") {
        return Err(Error::ReviewEvent(raw.to_string()));
    }
    if event != "COMMENT" && pr.poster == me {
        return Err(Error::SelfReview);
    }
    if perm.blocked {
        return Err(Error::Blocked);
    }
    Ok(event)
}

/// Asking for reviews: the poster or a writer of pull requests.
pub fn may_request_reviews(perm: &Permission, pr: &IssueRecord, me: &str) -> Result<()> {
    if pr.poster != me && !perm.can_write(Unit::Pulls) {
        return Err(Error::MayNotRequestReviews);
    }
    Ok(())
}

/// The path names a pull request (an issue number is a 404).
pub fn must_be_pull(issue: &IssueRecord) -> Result<()> {
    if issue.is_pull {
        Ok(())
    } else {
        Err(Error::NotPull(issue.index))
    }
}

/// Dependency routes need dependencies enabled on the path's repository.
pub fn dependencies_enabled(ctx: &RepoContext) -> Result<()> {
    if ctx.repo.enable_issue_dependencies {
        Ok(())
    } else {
        Err(Error::DependenciesDisabled)
    }
}

/// What a reader of the repository may see of an issue: 404 unless they
/// may read its kind.
pub fn readable(perm: &Permission, issue: IssueRecord) -> Result<IssueRecord> {
    if perm.can_read(Unit::for_pull(issue.is_pull)) {
        Ok(issue)
    } else {
        Err(Error::Hidden)
    }
}

/// The kinds (`false` issues, `true` pulls) a permission may read.
pub fn readable_kinds(p: &Permission) -> Vec<bool> {
    [(false, Unit::Issues), (true, Unit::Pulls)]
        .into_iter()
        .filter(|(_, u)| p.can_read(*u))
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod tests;
