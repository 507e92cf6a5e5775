//! The events a hook may ask for: Gitea's names of the tracker's changes.
//! Git-content events (push, branch and tag creation, releases, wikis, CI)
//! do not apply to a service without git and are refused by name.

use super::{Error, Result};

/// Most events one request may name (Gitea's names and aliases included).
pub const MAX_NAMED: usize = 32;

/// Every event a hook may hold, in the order Gitea lists a hook's events.
pub const EVENTS: &[&str] = &[
    "issues",
    "issue_assign",
    "issue_label",
    "issue_milestone",
    "issue_comment",
    "pull_request",
    "pull_request_assign",
    "pull_request_label",
    "pull_request_milestone",
    "pull_request_comment",
    "pull_request_review_approved",
    "pull_request_review_rejected",
    "pull_request_review_comment",
    "pull_request_review_request",
    "repository",
];

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

/// What one requested name turns on, as Gitea reads it: `issues` is every
/// issue event, `pull_request` every pull-request event (its git-content
/// `pull_request_sync` aside), `pull_request_review` the three review
/// outcomes; `issues_only` and `pull_request_only` the bare event.
fn expand(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "issues" => &EVENTS[0..5],
        "issues_only" => &EVENTS[0..1],
        "pull_request" => &EVENTS[5..14],
        "pull_request_only" => &EVENTS[5..6],
        "pull_request_review" => &EVENTS[10..13],
        other => {
            let at = EVENTS.iter().position(|e| *e == other)?;
            &EVENTS[at..at + 1]
        }
    })
}

/// The events a request names (any case), in [`EVENTS`]' order, each
/// once. An empty list is refused: Gitea's default, `push`, never fires
/// here, so a hook without events would wait for nothing.
pub fn parse(names: &[String]) -> Result<Vec<String>> {
    if names.len() > MAX_NAMED {
        return Err(Error::TooManyEvents { max: MAX_NAMED });
    }
    if names.is_empty() {
        return Err(Error::NoEvents);
    }
    let mut on = [false; EVENTS.len()];
    for raw in names {
        let name = raw.trim().to_ascii_lowercase();
        if GIT_EVENTS.contains(&name.as_str()) {
            return Err(Error::GitEvent(raw.clone()));
        }
        let Some(events) = expand(&name) else {
            return Err(Error::UnknownEvent(raw.clone()));
        };
        for e in events {
            if let Some(i) = EVENTS.iter().position(|x| x == e) {
                on[i] = true;
            }
        }
    }
    Ok(EVENTS
        .iter()
        .zip(on)
        .filter(|(_, on)| *on)
        .map(|(e, _)| e.to_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn gitea_s_groups_expand_and_order_is_gitea_s() {
        assert_eq!(parse(&names(&["issues"])).unwrap(), EVENTS[0..5]);
        assert_eq!(parse(&names(&["pull_request"])).unwrap(), EVENTS[5..14]);
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
        let every = parse(&names(EVENTS)).unwrap();
        assert_eq!(every, EVENTS);
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
