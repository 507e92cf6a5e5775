//! The issues area's comment and lock errors as each API answers them:
//! Gitea's statuses and texts (the conversion is the tracker's,
//! `crates/tracker/src/errors/issues.rs`).

#![cfg(test)]
use crate::{
    Error,
    http::{Dialect, errors::ToResponse},
    issues::Error as E,
};

#[test]
fn statuses_and_texts() {
    let seen = |e: E| {
        let e: Error = e.into();
        (e.status(Dialect::Tracker).as_u16(), e.to_string())
    };
    let admin = "user should be an owner or a collaborator with admin write of a repository";
    let rows = [
        (
            E::EmptyComment,
            422,
            "validation failed: {\"body\": [\"must not be empty\"]}",
        ),
        (E::LockedIssue, 403, "You cannot comment on a locked issue."),
        (E::MayNotChangeComment, 403, "forbidden"),
        (E::MayNotLock, 403, admin),
        (E::NoSuchComment, 404, "not found"),
        (
            E::ForbiddenReaction("smile".into()),
            403,
            "'smile' is not an allowed reaction",
        ),
        (E::ReactionLocked, 403, "no permission to change reaction"),
        (E::DependsOnItself, 422, "an issue cannot depend on itself"),
        (
            E::CircularDependency,
            422,
            "circular dependency: the other issue already depends on this one",
        ),
        (E::DependencyExists, 422, "dependency already exists"),
        (E::NoSuchDependency, 404, "dependency does not exist"),
        (
            E::NoSuchMilestone(4),
            422,
            "milestone does not exist [id: 4]",
        ),
        (
            E::NoNumber { repo_id: 7 },
            503,
            "service busy: could not claim an issue number in repository 7",
        ),
        (
            E::CleanupBacklog,
            503,
            "service busy: 100 deleted issues of this repository are still being cleaned up; retry",
        ),
    ];
    for (e, status, text) in rows {
        assert_eq!(seen(e), (status, text.to_string()));
    }
}
