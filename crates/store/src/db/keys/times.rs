//! Keys of tracked times and their listings.

use super::*;

// --- Tracked times (`docs/data-model.md`, "Tracked times"). A time is
// written once per listing that shows it, every copy the whole record, in
// one transaction with each listing's count: the issue's, the issue's for
// its user, the repository's, the repository's for its user (all under the
// repository), and the user's (under the user). Entries sort by the time's
// `created`, then its id, so `since`/`before` are key ranges. One more copy
// under its id finds a time to delete.

/// Every tracked-time item of a repository's partition begins so.
pub const TIME_PREFIX: &str = "TIME";

/// The listing of issue `index`'s times: its partition and tag.
pub fn times_of_issue(repo_id: i64, index: i64) -> (String, String) {
    (repo_pk(repo_id), format!("TIMEI#{index:020}#"))
}

/// The listing of `user`'s times on issue `index` (its count holds the
/// per-user cap).
pub fn times_of_issue_user(repo_id: i64, index: i64, user: &str) -> (String, String) {
    (
        repo_pk(repo_id),
        format!("TIMEIU#{index:020}#{}#", fold(user)),
    )
}

/// Every per-user listing of issue `index` (their counts stay after the
/// entries go; an issue's clean-up removes them by this prefix).
pub fn times_of_issue_users_prefix(index: i64) -> String {
    format!("TIMEIU#{index:020}#")
}

/// The listing of a repository's times.
pub fn times_of_repo(repo_id: i64) -> (String, String) {
    (repo_pk(repo_id), "TIMER#".into())
}

/// The listing of `user`'s times in a repository.
pub fn times_of_repo_user(repo_id: i64, user: &str) -> (String, String) {
    (repo_pk(repo_id), format!("TIMERU#{}#", fold(user)))
}

/// The listing of `user`'s times in every repository.
pub fn times_of_user(user: &str) -> (String, String) {
    (owner_pk(user), "TIMEU#".into())
}

/// Where a listing's entries begin (`tag` from the functions above).
pub fn time_entries(tag: &str) -> String {
    format!("{tag}E")
}

/// The first entry of a listing created at `created` or later.
pub fn time_entries_from(tag: &str, created: i64) -> String {
    format!("{tag}E{created:020}#")
}

/// One entry of a listing.
pub fn time_entry(pk: &str, tag: &str, created: i64, id: i64) -> Item {
    key(pk, &format!("{tag}E{created:020}#{id:020}"))
}

/// A listing's count: `n` entries of `s` seconds in all.
pub fn time_count(pk: &str, tag: &str) -> Item {
    key(pk, &format!("{tag}N"))
}

pub const TIME_BY_ID_PREFIX: &str = "TIMEID#";

/// A time by its id, under its repository.
pub fn time_by_id(repo_id: i64, id: i64) -> Item {
    key(&repo_pk(repo_id), &format!("{TIME_BY_ID_PREFIX}{id:020}"))
}

/// `user`'s running stopwatch (Gitea runs at most one per user).
pub fn stopwatch(user: &str) -> Item {
    key(&owner_pk(user), "STOPWATCH")
}

/// The last entry of a listing created at `created` or earlier.
pub fn time_entries_to(tag: &str, created: i64) -> String {
    format!("{tag}E{created:020}#~")
}
