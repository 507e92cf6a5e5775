//! The events a hook may ask for: Gitea's names of the tracker's changes.
//! Git-content events (push, branch and tag creation, releases, wikis, CI)
//! do not apply to a service without git and are refused by name.

use super::{Error, Result};

/// Most events one request may name (Gitea's names and aliases included).
pub const MAX_NAMED: usize = 32;

/// An event a hook may ask for. The variants are in the order Gitea lists
/// a hook's events; Gitea's names come from [`Event::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Event {
    Issues,
    IssueAssign,
    IssueLabel,
    IssueMilestone,
    IssueComment,
    PullRequest,
    PullRequestAssign,
    PullRequestLabel,
    PullRequestMilestone,
    PullRequestComment,
    PullRequestReviewApproved,
    PullRequestReviewRejected,
    PullRequestReviewComment,
    PullRequestReviewRequest,
    Repository,
}

/// Which of Gitea's groups an event belongs to (`issues`, `pull_request`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Group {
    Issues,
    PullRequests,
    Repository,
}

impl Event {
    /// Every event, in Gitea's order.
    pub const ALL: [Event; 15] = [
        Event::Issues,
        Event::IssueAssign,
        Event::IssueLabel,
        Event::IssueMilestone,
        Event::IssueComment,
        Event::PullRequest,
        Event::PullRequestAssign,
        Event::PullRequestLabel,
        Event::PullRequestMilestone,
        Event::PullRequestComment,
        Event::PullRequestReviewApproved,
        Event::PullRequestReviewRejected,
        Event::PullRequestReviewComment,
        Event::PullRequestReviewRequest,
        Event::Repository,
    ];

    /// Gitea's name: what hooks and deliveries store, and what is sent as
    /// `X-Gitea-Event-Type`.
    pub const fn name(self) -> &'static str {
        match self {
            Event::Issues => "issues",
            Event::IssueAssign => "issue_assign",
            Event::IssueLabel => "issue_label",
            Event::IssueMilestone => "issue_milestone",
            Event::IssueComment => "issue_comment",
            Event::PullRequest => "pull_request",
            Event::PullRequestAssign => "pull_request_assign",
            Event::PullRequestLabel => "pull_request_label",
            Event::PullRequestMilestone => "pull_request_milestone",
            Event::PullRequestComment => "pull_request_comment",
            Event::PullRequestReviewApproved => "pull_request_review_approved",
            Event::PullRequestReviewRejected => "pull_request_review_rejected",
            Event::PullRequestReviewComment => "pull_request_review_comment",
            Event::PullRequestReviewRequest => "pull_request_review_request",
            Event::Repository => "repository",
        }
    }

    /// The event of a Gitea name.
    pub fn named(name: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The coarse name Gitea sends as `X-Gitea-Event` (its
    /// `HookEventType.Event()`).
    pub const fn header(self) -> &'static str {
        match self {
            Event::Issues | Event::IssueAssign | Event::IssueLabel | Event::IssueMilestone => {
                "issues"
            }
            Event::PullRequest
            | Event::PullRequestAssign
            | Event::PullRequestLabel
            | Event::PullRequestMilestone
            | Event::PullRequestReviewRequest => "pull_request",
            Event::IssueComment | Event::PullRequestComment => "issue_comment",
            Event::PullRequestReviewApproved => "pull_request_approved",
            Event::PullRequestReviewRejected => "pull_request_rejected",
            Event::PullRequestReviewComment => "pull_request_comment",
            Event::Repository => "repository",
        }
    }

    /// The issue's event, or its pull request's.
    pub const fn of(is_pull: bool, issue: Event, pull: Event) -> Event {
        if is_pull { pull } else { issue }
    }

    const fn group(self) -> Group {
        match self {
            Event::Issues
            | Event::IssueAssign
            | Event::IssueLabel
            | Event::IssueMilestone
            | Event::IssueComment => Group::Issues,
            Event::Repository => Group::Repository,
            _ => Group::PullRequests,
        }
    }

    /// One of a review's outcomes (Gitea's `pull_request_review`).
    const fn is_review(self) -> bool {
        matches!(
            self,
            Event::PullRequestReviewApproved
                | Event::PullRequestReviewRejected
                | Event::PullRequestReviewComment
        )
    }
}

/// `X-Gitea-Event` of a stored event name (a name no release knows is a
/// repository's, as Gitea falls back).
pub fn header_of(name: &str) -> &'static str {
    Event::named(name).map_or(Event::Repository.header(), Event::header)
}

/// Gitea's events about git content, which never happen here.
pub const GIT_EVENTS: &[&str] = &[
    "push",
    "create",
    "delete",
    "fork",
    "release",
    "wiki",
    "pull_request_sync",
    "status",
    "workflow_job",
    "workflow_run",
    "package",
    "action_run_failure",
    "action_run_recover",
    "action_run_success",
];

/// The events one requested name turns on, as Gitea reads it: `issues` is
/// every issue event, `pull_request` every pull-request event (its
/// git-content `pull_request_sync` aside), `pull_request_review` the three
/// review outcomes; `issues_only` and `pull_request_only` the bare event.
/// `None` for a name that is no event.
fn expand(name: &str) -> Option<Vec<Event>> {
    let all = |keep: fn(&Event) -> bool| Event::ALL.into_iter().filter(keep).collect();
    Some(match name {
        "issues" => all(|e| e.group() == Group::Issues),
        "issues_only" => vec![Event::Issues],
        "pull_request" => all(|e| e.group() == Group::PullRequests),
        "pull_request_only" => vec![Event::PullRequest],
        "pull_request_review" => all(|e| e.is_review()),
        other => vec![Event::named(other)?],
    })
}

/// The events a request names (any case), in Gitea's order, each once,
/// by their names. An empty list is refused: Gitea's default, `push`,
/// never fires here, so a hook without events would wait for nothing.
pub fn parse(names: &[String]) -> Result<Vec<String>> {
    if names.len() > MAX_NAMED {
        return Err(Error::TooManyEvents { max: MAX_NAMED });
    }
    if names.is_empty() {
        return Err(Error::NoEvents);
    }
    let mut on = [false; Event::ALL.len()];
    for raw in names {
        let name = raw.trim().to_ascii_lowercase();
        if GIT_EVENTS.contains(&name.as_str()) {
            return Err(Error::GitEvent(raw.clone()));
        }
        let Some(events) = expand(&name) else {
            return Err(Error::UnknownEvent(raw.clone()));
        };
        // The variants are declared in `ALL`'s order: `e as usize` is its place.
        for e in events {
            on[e as usize] = true;
        }
    }
    Ok(Event::ALL
        .into_iter()
        .zip(on)
        .filter(|(_, on)| *on)
        .map(|(e, _)| e.name().to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn all() -> Vec<&'static str> {
        Event::ALL.iter().map(|e| e.name()).collect()
    }

    #[test]
    fn gitea_s_groups_expand_and_order_is_gitea_s() {
        assert_eq!(parse(&names(&["issues"])).unwrap(), all()[0..5]);
        assert_eq!(parse(&names(&["pull_request"])).unwrap(), all()[5..14]);
        assert_eq!(
            parse(&names(&["repository", "Issue_Comment", "issues_only"])).unwrap(),
            ["issues", "issue_comment", "repository"]
        );
        assert_eq!(
            parse(&names(&["pull_request_review"])).unwrap(),
            [
                "pull_request_review_approved",
                "pull_request_review_rejected",
                "pull_request_review_comment"
            ]
        );
        let every = parse(&names(&all())).unwrap();
        assert_eq!(every, all());
    }

    #[test]
    fn names_and_headers_are_gitea_s() {
        for (at, e) in Event::ALL.into_iter().enumerate() {
            assert_eq!(Event::named(e.name()), Some(e));
            assert_eq!(e as usize, at, "{e:?} is declared in ALL's order");
        }
        assert_eq!(
            Event::PullRequestReviewApproved.header(),
            "pull_request_approved"
        );
        assert_eq!(Event::PullRequestComment.header(), "issue_comment");
        assert_eq!(header_of("issue_label"), "issues");
        assert_eq!(header_of("from a later release"), "repository");
    }

    #[test]
    fn git_content_unknown_empty_and_too_many_are_refused() {
        for git in ["push", "create", "delete", "release", "pull_request_sync"] {
            assert!(
                matches!(parse(&names(&[git])), Err(Error::GitEvent(_))),
                "{git}"
            );
        }
        assert!(matches!(
            parse(&names(&["nope"])),
            Err(Error::UnknownEvent(_))
        ));
        assert!(matches!(parse(&[]), Err(Error::NoEvents)));
        let many = vec!["issues".to_string(); MAX_NAMED + 1];
        assert!(matches!(parse(&many), Err(Error::TooManyEvents { .. })));
    }
}
