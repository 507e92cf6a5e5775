//! What a change to the table means to hooks: the events, in Gitea's names
//! and actions (its `services/webhook/notifier.go` is the list of record),
//! read off a stream record's two images. Pure: no reads.
//!
//! An issue's or pull request's item gives `opened`, `closed`/`reopened`,
//! `edited` (title, body or ref, with `changes.*.from`), `assigned`/
//! `unassigned` (one event per login, as Gitea sends them),
//! `label_updated`/`label_cleared` and `milestoned`/`demilestoned`; a
//! comment's item gives `created` and `edited`; an event item
//! ([`outbox`](crate::outbox)) gives a delete's `deleted`, and a
//! repository's `created` and `deleted`. Other changes to those items
//! (counters, mentions, locks, deadlines) notify nobody, as in Gitea.

use serde::Serialize;

use super::events::Event;
use crate::outbox;
use crate::{
    db::{self, actor::Actor, keys},
    issues::{IssueRecord, comments::CommentRecord},
    repos::RepoRecord,
    stream::{Change, ChangeKind},
};

/// The old values of an edit (Gitea's `ChangesPayload`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<From>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<From>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<From>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct From {
    pub from: String,
}

/// What it happened to.
#[derive(Clone, Debug, PartialEq)]
pub enum Subject {
    /// An issue or pull request (as it is after the change).
    Issue(Box<IssueRecord>),
    /// A comment (its issue is read when the payload is made).
    Comment(Box<CommentRecord>),
    /// A repository (as it was made, or as it was when deleted).
    Repo(Box<RepoRecord>),
}

/// One event for hooks.
#[derive(Clone, Debug, PartialEq)]
pub struct Happening {
    pub repo_id: i64,
    /// The event a hook subscribes to, sent as `X-Gitea-Event-Type`.
    pub event: Event,
    pub action: &'static str,
    pub changes: Option<Changes>,
    pub subject: Subject,
    /// Who did it; `None` for items written before actors were recorded
    /// (the payload then names the poster).
    pub actor: Option<Actor>,
    /// What a review event adds to its payload.
    pub detail: Option<Detail>,
}

/// The parts of a pull request's payload only some events have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    /// `requested_reviewer`: whose review was asked for (or no longer).
    Reviewer(String),
    /// `review`: Gitea's `ReviewPayload` (`type`: the event's name;
    /// `content`: the start of the review's body).
    Review { kind: Event, content: String },
}

impl Happening {
    /// The coarse name Gitea sends as `X-Gitea-Event` (its
    /// `HookEventType.Event()`).
    pub fn header_event(&self) -> &'static str {
        self.event.header()
    }

    pub fn is_pull(&self) -> bool {
        match &self.subject {
            Subject::Issue(i) => i.is_pull,
            Subject::Comment(c) => c.is_pull,
            Subject::Repo(_) => false,
        }
    }
}

/// Whether hooks may care about the item (on keys only).
pub fn concerns(change: &Change) -> bool {
    let sk = change.sk();
    change.pk().starts_with("REPO#")
        && match change.kind {
            ChangeKind::Remove => false,
            ChangeKind::Insert => {
                sk.starts_with(keys::ISSUE_PREFIX)
                    || sk.starts_with(keys::COMMENT_PREFIX)
                    || sk.starts_with(outbox::EVENT_PREFIX)
            }
            ChangeKind::Modify => {
                sk.starts_with(keys::ISSUE_PREFIX) || sk.starts_with(keys::COMMENT_PREFIX)
            }
        }
}

/// The events of one change, in the order Gitea would send them.
pub fn happenings(change: &Change) -> Result<Vec<Happening>, db::DbError> {
    if !concerns(change) {
        return Ok(Vec::new());
    }
    let Some(new) = &change.new else {
        return Ok(Vec::new());
    };
    let actor = Actor::of(new);
    if change.sk().starts_with(outbox::EVENT_PREFIX) {
        return deleted(new, actor);
    }
    if change.sk().starts_with(keys::ISSUE_PREFIX) {
        let after: IssueRecord = db::from_item(new.clone())?;
        let before: Option<IssueRecord> = change.old.clone().map(db::from_item).transpose()?;
        Ok(issue_events(before.as_ref(), after, actor))
    } else {
        let after: CommentRecord = db::from_item(new.clone())?;
        let before: Option<CommentRecord> = change.old.clone().map(db::from_item).transpose()?;
        Ok(comment_events(before.as_ref(), after, actor))
    }
}

/// The event an event item stands for.
fn deleted(item: &db::Item, actor: Option<Actor>) -> Result<Vec<Happening>, db::DbError> {
    let Some(record) = item.get("record").and_then(|r| r.as_m().ok()) else {
        return Ok(Vec::new());
    };
    let happening = |repo_id, event, action, subject| Happening {
        repo_id,
        event,
        action,
        changes: None,
        subject,
        actor: actor.clone(),
        detail: None,
    };
    Ok(match db::text(item, "what") {
        outbox::ISSUE_DELETED => {
            let i: IssueRecord = db::from_item(record.clone())?;
            let event = Event::of(i.is_pull, Event::Issues, Event::PullRequest);
            vec![happening(
                i.repo_id,
                event,
                "deleted",
                Subject::Issue(Box::new(i)),
            )]
        }
        outbox::COMMENT_DELETED => {
            let c: CommentRecord = db::from_item(record.clone())?;
            let event = Event::of(c.is_pull, Event::IssueComment, Event::PullRequestComment);
            vec![happening(
                c.repo_id,
                event,
                "deleted",
                Subject::Comment(Box::new(c)),
            )]
        }
        what @ (outbox::REPO_CREATED | outbox::REPO_DELETED) => {
            let r: RepoRecord = db::from_item(record.clone())?;
            let action = match what {
                outbox::REPO_CREATED => "created",
                _ => "deleted",
            };
            vec![happening(
                r.id,
                Event::Repository,
                action,
                Subject::Repo(Box::new(r)),
            )]
        }
        // A kind a later release writes.
        _ => Vec::new(),
    })
}

fn issue_events(
    before: Option<&IssueRecord>,
    after: IssueRecord,
    actor: Option<Actor>,
) -> Vec<Happening> {
    let p = after.is_pull;
    let mut out: Vec<(Event, &'static str, Option<Changes>)> = Vec::new();
    let mut details: Vec<(usize, Detail)> = Vec::new();
    match before {
        None => out.push((
            Event::of(p, Event::Issues, Event::PullRequest),
            "opened",
            None,
        )),
        Some(b) => {
            let base = Event::of(p, Event::Issues, Event::PullRequest);
            let from = |changed: bool, old: &str| {
                changed.then(|| From {
                    from: old.to_string(),
                })
            };
            // Gitea sends a title and a body change as separate edits.
            if b.title != after.title {
                let c = Changes {
                    title: from(true, &b.title),
                    ..Changes::default()
                };
                out.push((base, "edited", Some(c)));
            }
            if b.body != after.body {
                let c = Changes {
                    body: from(true, &b.body),
                    ..Changes::default()
                };
                out.push((base, "edited", Some(c)));
            }
            if b.git_ref != after.git_ref && !p {
                let c = Changes {
                    git_ref: from(true, &b.git_ref),
                    ..Changes::default()
                };
                out.push((base, "edited", Some(c)));
            }
            let assign = Event::of(p, Event::IssueAssign, Event::PullRequestAssign);
            for login in &after.assignees {
                if !b.assignees.contains(login) {
                    out.push((assign, "assigned", None));
                }
            }
            for login in &b.assignees {
                if !after.assignees.contains(login) {
                    out.push((assign, "unassigned", None));
                }
            }
            if b.labels != after.labels {
                let action = if after.labels.is_empty() {
                    "label_cleared"
                } else {
                    "label_updated"
                };
                out.push((
                    Event::of(p, Event::IssueLabel, Event::PullRequestLabel),
                    action,
                    None,
                ));
            }
            if b.milestone != after.milestone {
                let action = if after.milestone == 0 {
                    "demilestoned"
                } else {
                    "milestoned"
                };
                out.push((
                    Event::of(p, Event::IssueMilestone, Event::PullRequestMilestone),
                    action,
                    None,
                ));
            }
            for login in &after.review_requested {
                if !b.review_requested.contains(login) {
                    details.push((out.len(), Detail::Reviewer(login.clone())));
                    out.push((Event::PullRequestReviewRequest, "review_requested", None));
                }
            }
            for login in &b.review_requested {
                // A review takes its reviewer off the list: that is the
                // review's event, not a withdrawn request.
                let reviewed = after
                    .last_review
                    .as_ref()
                    .is_some_and(|r| &r.login == login);
                if !after.review_requested.contains(login) && !reviewed {
                    details.push((out.len(), Detail::Reviewer(login.clone())));
                    out.push((
                        Event::PullRequestReviewRequest,
                        "review_request_removed",
                        None,
                    ));
                }
            }
            if let Some(r) = after
                .last_review
                .as_ref()
                .filter(|r| b.last_review.as_ref() != Some(r))
            {
                let kind = match r.event.as_str() {
                    "APPROVED" => Event::PullRequestReviewApproved,
                    "REQUEST_CHANGES" => Event::PullRequestReviewRejected,
                    _ => Event::PullRequestReviewComment,
                };
                let detail = Detail::Review {
                    kind,
                    content: r.excerpt.clone(),
                };
                details.push((out.len(), detail));
                out.push((kind, "reviewed", None));
            }
            if b.closed != after.closed {
                let action = if after.closed { "closed" } else { "reopened" };
                out.push((base, action, None));
            }
        }
    }
    let repo_id = after.repo_id;
    let subject = Subject::Issue(Box::new(after));
    out.into_iter()
        .enumerate()
        .map(|(n, (event, action, changes))| Happening {
            repo_id,
            event,
            action,
            changes,
            subject: subject.clone(),
            actor: actor.clone(),
            detail: details
                .iter()
                .find(|(at, _)| *at == n)
                .map(|(_, d)| d.clone()),
        })
        .collect()
}

fn comment_events(
    before: Option<&CommentRecord>,
    after: CommentRecord,
    actor: Option<Actor>,
) -> Vec<Happening> {
    let (action, changes) = match before {
        None => ("created", None),
        Some(b) if b.body != after.body => (
            "edited",
            Some(Changes {
                body: Some(From {
                    from: b.body.clone(),
                }),
                ..Changes::default()
            }),
        ),
        Some(_) => return Vec::new(),
    };
    vec![Happening {
        repo_id: after.repo_id,
        event: Event::of(
            after.is_pull,
            Event::IssueComment,
            Event::PullRequestComment,
        ),
        action,
        changes,
        subject: Subject::Comment(Box::new(after)),
        actor,
        detail: None,
    }]
}

#[cfg(test)]
mod tests;
