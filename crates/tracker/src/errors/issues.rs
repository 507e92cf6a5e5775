//! Issue and pull-request errors in Gitea's words and statuses.

use crate::{Error, issues::Error as E, repos::access::Unit, text::TextError};

const WRITE: &str = "user should have a permission to write to a repo";
const ADMIN: &str = "user should be an owner or a collaborator with admin write of a repository";

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::Title(TextError::Empty) => Error::field("title", "must not be empty"),
            E::Title(TextError::TooLong { max }) => {
                Error::field("title", format!("must be at most {max} characters"))
            }
            E::TooLong { field, max } => Error::field(
                field,
                format!("is too long (maximum is {max} characters)"),
            ),
            E::TooMany { field, len, max } => Error::field(
                field,
                format!("has {len} entries; at most {max} are allowed"),
            ),
            E::Deadline(why) => Error::field("due_date", why),
            E::DeadlineEmpty => Error::BadRequest("The due_date cannot be empty".into()),
            E::Branch { field, raw } => {
                Error::field(field, format!("must be a branch name (got {raw:?})"))
            }
            E::SameBranches => {
                Error::Unprocessable("head and base must be different branches".into())
            }
            E::ReviewEvent(raw) => Error::field(
                "event",
                format!("must be APPROVED, REQUEST_CHANGES or COMMENT (got {raw:?})"),
            ),
            E::Instant { field, why } | E::Query { field, why } => Error::field(field, why),
            E::NoSuchUser(login) => {
                Error::NotFound(format!("user does not exist [name: {login}]"))
            }
            E::NoSuchOwner(name) | E::NoSuchPoster(name) => {
                Error::BadRequest(format!("user does not exist [name: {name}]"))
            }
            E::TeamWithoutOwner => Error::BadRequest(
                "owner organisation is required for filtering on team".into(),
            ),
            E::NoSuchTeam(name) => Error::BadRequest(format!("team does not exist [name: {name}]")),
            E::TooBroad(why) => Error::Unprocessable(why),
            E::UnknownState(s) => Error::PreconditionFailed(format!("unknown state: {s}")),
            E::NoUnitAccess(unit) => Error::BadRequest(format!(
                "user does not have access to the {} of this repository",
                match unit {
                    Unit::Issues => "issues",
                    Unit::Pulls => "pull requests",
                }
            )),
            E::Blocked => Error::Forbidden("user is blocked".into()),
            E::Archived(full_name) => Error::Locked(format!("{full_name} is archived")),
            E::MayNotEdit => Error::ForbiddenEmpty,
            E::MayNotWrite => Error::Forbidden(WRITE.into()),
            E::MayNotSetDeadline => Error::Forbidden("Not repo writer".into()),
            E::MayNotDelete => Error::Forbidden(ADMIN.into()),
            E::MayNotRequestReviews => {
                Error::Forbidden("only the poster or a writer may request reviews".into())
            }
            E::SelfReview => Error::Unprocessable(
                "the poster cannot approve or request changes on their own pull request".into(),
            ),
            E::MayNotAllowEdits => {
                Error::Forbidden("SetAllowEdits: user not allowed to do this action".into())
            }
            E::Hidden => Error::not_found(),
            // Gitea's API answers a plain "not found"; the repository's
            // internal id stays out of the message.
            E::NoSuchIssue { .. } => Error::not_found(),
            E::ChangedWhileDeleting => {
                Error::Conflict("the issue changed while it was being deleted; retry".into())
            }
            E::NotPull(index) => {
                Error::NotFound(format!("pull request does not exist [index: {index}]"))
            }
            E::DependenciesDisabled => {
                Error::NotFound("dependencies are disabled in this repository".into())
            }
            E::DependsOnItself => Error::Unprocessable("an issue cannot depend on itself".into()),
            E::CircularDependency => Error::Unprocessable(
                "circular dependency: the other issue already depends on this one".into(),
            ),
            E::DependencyExists => Error::Unprocessable("dependency already exists".into()),
            E::NoSuchDependency => Error::NotFound("dependency does not exist".into()),
            E::NoSuchAssignee(login) => {
                Error::Unprocessable(format!("Assignee does not exist: [name: {login}]"))
            }
            E::AssigneeNoAccess { user_id, repo } => Error::Unprocessable(format!(
                "user doesn't have access to repo [user_id: {user_id}, repo_name: {repo}]"
            )),
            E::NoSuchMilestone(id) => {
                Error::Unprocessable(format!("milestone does not exist [id: {id}]"))
            }
            E::Merged => Error::PreconditionFailed(
                "cannot change state of this pull request, it was already merged".into(),
            ),
            E::OpenBlockers => Error::PreconditionFailed(
                "cannot close this issue or pull request because it still has open dependencies"
                    .into(),
            ),
            E::BaseOfClosed => Error::Unprocessable(
                "cannot change the base branch of a closed pull request".into(),
            ),
            E::AlreadyMerged => Error::MethodNotAllowed("The PR is already merged".into()),
            E::ClosedUnmerged => {
                Error::MethodNotAllowed("The PR is closed and cannot be merged".into())
            }
            E::MergedOrClosed => {
                Error::MethodNotAllowed("The PR is already merged or closed".into())
            }
            E::Stale => Error::BadRequest(
                "the issue was changed by someone else after it was loaded; reload it and edit again"
                    .into(),
            ),
            E::CleanupBacklog => Error::Unavailable(format!(
                "{} deleted issues of this repository are still being cleaned up; retry",
                crate::issues::MAX_PURGING
            )),
            E::NoNumber { repo_id } => Error::Unavailable(format!(
                "could not claim an issue number in repository {repo_id}"
            )),
            E::Busy => Error::Unavailable(
                "the issue is being changed by many requests at once; retry".into(),
            ),
            E::IndexBehind => Error::Unavailable(
                "the search index is catching up with many recent writes; retry shortly".into(),
            ),
            // Comments and locks.
            E::EmptyComment => Error::field("body", "must not be empty"),
            E::LockedIssue => Error::Forbidden("You cannot comment on a locked issue.".into()),
            E::MayNotChangeComment => Error::ForbiddenEmpty,
            E::MayNotLock => Error::Forbidden(ADMIN.into()),
            E::NoSuchComment => Error::not_found(),
            // Reactions: Gitea's texts.
            E::ForbiddenReaction(raw) => {
                Error::Forbidden(format!("'{raw}' is not an allowed reaction"))
            }
            E::ReactionLocked => Error::Forbidden("no permission to change reaction".into()),
            // Tracked times and stopwatches: Gitea's statuses and texts.
            E::TrackerOff => Error::BadRequest("time tracking disabled".into()),
            E::TrackerHidden => Error::NotFound("Timetracker is disabled".into()),
            E::MayNotTrack | E::NotYourTime => Error::ForbiddenEmpty,
            E::QueryByUser => {
                Error::Forbidden("query by user not allowed; not enough rights".into())
            }
            E::NoSuchTime(id) => {
                Error::NotFound(format!("tracked time does not exist [id: {id}]"))
            }
            E::NoTimes => Error::NotFound("tracked time does not exist".into()),
            E::TooManyTimes(max) => Error::Unprocessable(format!(
                "at most {max} tracked times per user on one issue; delete or reset some first"
            )),
            E::StopwatchRunning => {
                Error::Conflict("cannot start a stopwatch again if it already exists".into())
            }
            E::NoStopwatch => {
                Error::Conflict("cannot stop/cancel a non existent stopwatch".into())
            }
            E::Labels(e) => e.into(),
            E::Milestones(e) => e.into(),
            E::Db(e) => e.into(),
            E::Accounts(e) => e.into(),
            E::Repos(e) => e.into(),
        }
    }
}
