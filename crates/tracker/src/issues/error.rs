//! What can go wrong with an issue or pull-request request, in the
//! tracker's terms. `errors/issues.rs` gives each its Gitea message
//! and status.

use crate::{db::DbError, labels, milestones, repos::access::Unit, text::TextError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    // Fields.
    #[error("invalid title: {0:?}")]
    Title(TextError),
    #[error("{field} longer than {max} characters")]
    TooLong { field: &'static str, max: usize },
    #[error("{field} has {len} entries, more than {max}")]
    TooMany {
        field: &'static str,
        len: usize,
        max: usize,
    },
    #[error("invalid due_date: {0}")]
    Deadline(String),
    #[error("due_date given as null without unset_due_date")]
    DeadlineEmpty,
    #[error("{field} is not a branch name: {raw:?}")]
    Branch { field: &'static str, raw: String },
    #[error("head and base are the same branch")]
    SameBranches,
    #[error("unknown review event {0:?}")]
    ReviewEvent(String),
    #[error("unknown state {0:?}")]
    UnknownState(String),
    #[error("invalid {field}: {why}")]
    Instant { field: &'static str, why: String },
    /// A query parameter that is not one of its values.
    #[error("invalid {field}: {why}")]
    Query { field: &'static str, why: String },

    // Who may do what.
    #[error("cannot read the {0:?} unit")]
    NoUnitAccess(Unit),
    #[error("blocked by the owner or the poster")]
    Blocked,
    #[error("repository {0} is archived")]
    Archived(String),
    #[error("neither the poster nor a writer")]
    MayNotEdit,
    #[error("not a writer of this kind")]
    MayNotWrite,
    #[error("not a writer: may not set deadlines")]
    MayNotSetDeadline,
    #[error("not a repository administrator")]
    MayNotDelete,
    #[error("neither the poster nor a writer: may not request reviews")]
    MayNotRequestReviews,
    #[error("the poster cannot approve their own pull request")]
    SelfReview,
    /// Only the poster says whether maintainers may edit the head branch.
    #[error("not the poster: may not set allow_maintainer_edit")]
    MayNotAllowEdits,

    // What is named.
    #[error("no such issue or not readable")]
    Hidden,
    #[error("no issue {index} in repository {repo_id}")]
    NoSuchIssue { repo_id: i64, index: i64 },
    #[error("issue {0} is not a pull request")]
    NotPull(i64),
    #[error("dependencies are disabled")]
    DependenciesDisabled,
    #[error("an issue cannot depend on itself")]
    DependsOnItself,
    #[error("the other issue already depends on this one")]
    CircularDependency,
    #[error("the dependency exists already")]
    DependencyExists,
    #[error("no such dependency")]
    NoSuchDependency,
    #[error("no user {0}")]
    NoSuchAssignee(String),
    #[error("user {user_id} cannot read {repo}")]
    AssigneeNoAccess { user_id: i64, repo: String },
    #[error("no milestone {0}")]
    NoSuchMilestone(i64),
    /// A listing filters on a user who does not exist.
    #[error("no user {0}")]
    NoSuchUser(String),
    /// Search narrowed to an owner who does not exist.
    #[error("no owner {0}")]
    NoSuchOwner(String),
    /// The pull-request list filters on a poster who does not exist.
    #[error("no poster {0}")]
    NoSuchPoster(String),
    #[error("team given without its organisation")]
    TeamWithoutOwner,
    #[error("no team {0}")]
    NoSuchTeam(String),
    /// A listing that would cost more than one request may spend (the
    /// message names the limit).
    #[error("{0}")]
    TooBroad(String),

    // Comments and locks.
    #[error("comment body is blank")]
    EmptyComment,
    #[error("the issue is locked: writers only")]
    LockedIssue,
    #[error("neither the comment's author nor a repository administrator")]
    MayNotChangeComment,
    #[error("not a repository administrator: may not lock")]
    MayNotLock,
    #[error("no such comment in this repository, or not readable")]
    NoSuchComment,

    // Reactions.
    /// A reaction outside Gitea's allowed set (as sent).
    #[error("{0:?} is not an allowed reaction")]
    ForbiddenReaction(String),
    #[error("the issue is locked: only writers change its reactions")]
    ReactionLocked,

    // Tracked times and stopwatches.
    /// A write or a repository listing while the tracker is off.
    #[error("time tracking disabled")]
    TrackerOff,
    /// An issue's listing while the tracker is off (Gitea: 404).
    #[error("the time tracker is disabled")]
    TrackerHidden,
    #[error("may not track time on this issue")]
    MayNotTrack,
    #[error("neither the time's user nor a site admin")]
    NotYourTime,
    #[error("query by user not allowed; not enough rights")]
    QueryByUser,
    #[error("no tracked time {0} on this issue")]
    NoSuchTime(i64),
    #[error("no tracked time of the caller on this issue")]
    NoTimes,
    #[error("at most {0} tracked times per user on one issue")]
    TooManyTimes(i64),
    #[error("a stopwatch runs on this issue already")]
    StopwatchRunning,
    #[error("no stopwatch runs on this issue")]
    NoStopwatch,

    // State.
    #[error("the pull request is merged")]
    Merged,
    #[error("open blockers")]
    OpenBlockers,
    #[error("the base of a closed pull request cannot change")]
    BaseOfClosed,
    #[error("already merged")]
    AlreadyMerged,
    #[error("closed, cannot merge")]
    ClosedUnmerged,
    #[error("merged or closed meanwhile")]
    MergedOrClosed,
    /// A body edit made against an outdated body.
    #[error("the body changed since it was loaded")]
    Stale,
    #[error("changed while being deleted")]
    ChangedWhileDeleting,
    /// Too many concurrent writers of one issue.
    #[error("too many concurrent changes")]
    Busy,
    /// Too many concurrent creates took every number tried.
    #[error("no issue number could be claimed in repository {repo_id}")]
    NoNumber { repo_id: i64 },
    /// More writes wait for the search index than a listing lays over it
    /// (`index::overlay`): it is catching up.
    #[error("the search index is behind on too many writes")]
    IndexBehind,
    /// Too many deleted issues of the repository still being cleaned up.
    #[error("too many deletions under way")]
    CleanupBacklog,

    #[error(transparent)]
    Labels(#[from] labels::Error),
    #[error(transparent)]
    Milestones(#[from] milestones::Error),
    #[error(transparent)]
    Accounts(#[from] crate::accounts::Error),
    #[error(transparent)]
    Repos(#[from] crate::repos::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
