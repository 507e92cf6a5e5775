//! Key layout of the single table. Every key is built in this module, so
//! the access patterns in `docs/data-model.md` can be checked against it:
//! the deploy API's in `deploy_api.rs`, tracked times' in `times.rs`, the rest
//! here.

mod deploy_api;
mod times;

pub use deploy_api::*;
pub use times::*;

use super::{Item, s};
use base::name::fold;

/// A primary key.
pub fn key(pk: &str, sk: &str) -> Item {
    Item::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(sk))])
}

/// Sort key of the one "profile" item of an entity partition.
pub const PROFILE: &str = "PROFILE";

/// Users and organisations share one namespace, keyed by lower-case name.
pub fn owner_pk(name: &str) -> String {
    format!("OWNER#{}", fold(name))
}

pub fn owner(name: &str) -> Item {
    key(&owner_pk(name), PROFILE)
}

/// Uniqueness guard for an e-mail address.
/// An owner's name by id (attribute `name`): what Gitea's `uid`
/// parameters resolve. Written with the owner, after every guard.
pub fn owner_by_id(id: i64) -> Item {
    key(&format!("OWNERID#{id}"), "OWNERID")
}

pub fn email(address: &str) -> Item {
    key(&format!("EMAIL#{}", fold(address)), "EMAIL")
}

/// A token's lookup item, keyed by the SHA-256 of its secret.
pub fn token_hash(hash_hex: &str) -> Item {
    key(&format!("TOKEN#{hash_hex}"), "TOKEN")
}

/// A token as listed under its user.
pub fn user_token(user: &str, id: i64) -> Item {
    key(&owner_pk(user), &format!("TOKEN#{id:020}"))
}

/// Guard for token names, unique per user.
pub fn user_token_name(user: &str, name: &str) -> Item {
    key(&owner_pk(user), &format!("TOKENNAME#{name}"))
}

pub fn team_pk(id: i64) -> String {
    format!("TEAM#{id}")
}

pub fn team(id: i64) -> Item {
    key(&team_pk(id), PROFILE)
}

/// A team as listed under its organisation (also the unique-name guard).
pub fn org_team(org: &str, team_name: &str) -> Item {
    key(&owner_pk(org), &format!("TEAM#{}", fold(team_name)))
}

pub fn team_member(team_id: i64, user: &str) -> Item {
    key(&team_pk(team_id), &format!("MEMBER#{}", fold(user)))
}

/// A user's membership in one team of one organisation, stored under the
/// user so one query answers "which teams of org X is this user in".
pub fn membership(user: &str, org: &str, team_id: i64) -> Item {
    key(&owner_pk(user), &membership_sk(org, team_id))
}

pub fn membership_prefix(org: &str) -> String {
    format!("MEMBER#{}#", fold(org))
}

pub fn membership_sk(org: &str, team_id: i64) -> String {
    format!("{}{team_id:020}", membership_prefix(org))
}

/// `blocker` (a user or an organisation) blocks `blocked`.
pub fn block(blocker: &str, blocked: &str) -> Item {
    key(&owner_pk(blocker), &format!("BLOCK#{}", fold(blocked)))
}

/// A repository's settings, under its owner and name (what a path
/// `/repos/{owner}/{repo}` resolves; renames move only this item).
pub fn repo_name(owner: &str, repo: &str) -> Item {
    key(&owner_pk(owner), &format!("REPO#{}", fold(repo)))
}

pub const REPO_NAME_PREFIX: &str = "REPO#";

/// Everything else of a repository lives under its id.
pub fn repo_pk(id: i64) -> String {
    format!("REPO#{id}")
}

/// A repository's counters (issues, pulls, the next issue number).
pub fn repo_stats(id: i64) -> Item {
    key(&repo_pk(id), PROFILE)
}

/// Access grants on a repository: collaborators and teams.
pub const ACCESS_PREFIX: &str = "ACCESS#";

pub fn collaborator(repo_id: i64, user: &str) -> Item {
    key(&repo_pk(repo_id), &format!("ACCESS#USER#{}", fold(user)))
}

/// The user side of a collaboration (repositories a user was given).
pub fn collaboration(user: &str, repo_id: i64) -> Item {
    key(&owner_pk(user), &format!("COLLAB#{repo_id:020}"))
}

pub fn repo_team(repo_id: i64, team_id: i64) -> Item {
    key(&repo_pk(repo_id), &format!("ACCESS#TEAM#{team_id:020}"))
}

/// The team side of a team's repository grant.
pub fn team_repo(team_id: i64, repo_id: i64) -> Item {
    key(&team_pk(team_id), &format!("REPO#{repo_id:020}"))
}

/// Branch and tag heads a repository was told of (`refs/heads/<branch>`,
/// as sent: git ref names are case-sensitive), and their count.
pub const REF_PREFIX: &str = "REF#";

pub fn repo_ref(repo_id: i64, full_ref: &str) -> Item {
    key(&repo_pk(repo_id), &format!("{REF_PREFIX}{full_ref}"))
}

pub fn repo_ref_count(repo_id: i64) -> Item {
    key(&repo_pk(repo_id), "REF#N")
}

/// The installation's public repositories by name (the base-table
/// listing `/repos/search` walks, strongly consistent): one item each,
/// sort key `<lower name>#<lower owner>`, so names sort as Gitea's
/// `alpha` does and one name's repositories stay together.
pub const PUBLIC_REPOS_PK: &str = "REPOLIST#public";

pub fn public_repo_entry(owner: &str, repo: &str) -> Item {
    key(PUBLIC_REPOS_PK, &format!("{}#{}", fold(repo), fold(owner)))
}

pub const LABEL_PREFIX: &str = "LABEL#";

/// A repository label.
pub fn repo_label(repo_id: i64, label_id: i64) -> Item {
    key(&repo_pk(repo_id), &format!("LABEL#{label_id:020}"))
}

/// An organisation label.
pub fn org_label(org: &str, label_id: i64) -> Item {
    key(&owner_pk(org), &format!("LABEL#{label_id:020}"))
}

pub const MILESTONE_PREFIX: &str = "MILESTONE#";

pub fn milestone(repo_id: i64, milestone_id: i64) -> Item {
    key(&repo_pk(repo_id), &format!("MILESTONE#{milestone_id:020}"))
}

pub const ISSUE_PREFIX: &str = "ISSUE#";

/// An issue or pull request, by its per-repository number.
pub fn issue(repo_id: i64, index: i64) -> Item {
    key(&repo_pk(repo_id), &format!("ISSUE#{index:020}"))
}

/// Issue `index` depends on (is blocked by) `blocker` of repository
/// `blocker_repo`. Stored under the dependent issue...
pub fn dependency(repo_id: i64, index: i64, blocker_repo: i64, blocker: i64) -> Item {
    key(
        &repo_pk(repo_id),
        &format!(
            "{}{blocker_repo:020}#{blocker:020}",
            dependency_prefix(index)
        ),
    )
}

pub fn dependency_prefix(index: i64) -> String {
    format!("DEP#{index:020}#")
}

/// ...and mirrored under the blocker.
pub fn blocks(blocker_repo: i64, blocker: i64, repo_id: i64, index: i64) -> Item {
    key(
        &repo_pk(blocker_repo),
        &format!("{}{repo_id:020}#{index:020}", blocks_prefix(blocker)),
    )
}

pub fn blocks_prefix(index: i64) -> String {
    format!("BLOCKS#{index:020}#")
}

/// An issue's membership in a milestone (so deleting the milestone finds
/// its issues).
pub fn milestone_issue(repo_id: i64, milestone_id: i64, index: i64) -> Item {
    key(
        &repo_pk(repo_id),
        &format!("{}{index:020}", milestone_issue_prefix(milestone_id)),
    )
}

pub fn milestone_issue_prefix(milestone_id: i64) -> String {
    format!("MSISSUE#{milestone_id:020}#")
}

/// The listing index key of an issue (`gsi1`): one partition per
/// repository, kind and state, newest first by creation time.
pub fn issue_list_pk(repo_id: i64, is_pull: bool, closed: bool) -> String {
    format!(
        "RI#{repo_id}#{}#{}",
        if is_pull { "p" } else { "i" },
        if closed { "c" } else { "o" }
    )
}

pub fn issue_list_sk(created: i64, index: i64) -> String {
    format!("{created:020}#{index:020}")
}

// --- Issue comments: stored under their repository by global id (what
// `/issues/comments/{id}` names), listed through `gsi1` per issue and
// `gsi2` per repository and kind, both oldest first.

pub const COMMENT_PREFIX: &str = "COMMENT#";

/// A comment, by its global id, under its repository.
pub fn comment(repo_id: i64, id: i64) -> Item {
    key(&repo_pk(repo_id), &format!("{COMMENT_PREFIX}{id:020}"))
}

/// The comments of one issue (`gsi1pk`).
pub fn issue_comments_pk(repo_id: i64, index: i64) -> String {
    format!("RIC#{repo_id}#{index}")
}

/// The comments of one repository on one kind, issues or pull requests
/// (`gsi2pk`).
pub fn repo_comments_pk(repo_id: i64, is_pull: bool) -> String {
    format!("RC#{repo_id}#{}", if is_pull { "p" } else { "i" })
}

/// Where a comment sorts in both listings (`gsi1sk`, `gsi2sk`): creation
/// time, then id, as Gitea orders them.
pub fn comment_list_sk(created: i64, id: i64) -> String {
    format!("{created:020}#{id:020}")
}

// --- Reactions on issues and comments: under their repository, every
// reaction of an issue (its comments' included) under one prefix, so they
// go together. Per target (the issue, or one comment): a claim per user
// and content (its key is the uniqueness guard), an entry in creation
// order (the listing) and a counter (`X-Total-Count`).

pub const REACTION_PREFIX: &str = "REACT#";

/// Every reaction item of issue `index`, its comments' included.
pub fn issue_reactions_prefix(index: i64) -> String {
    format!("{REACTION_PREFIX}{index:020}#")
}

/// Every reaction item of one target of issue `index`: the issue itself
/// (`comment` is `None`) or one of its comments.
pub fn reaction_target_prefix(index: i64, comment: Option<i64>) -> String {
    match comment {
        None => format!("{}I#", issue_reactions_prefix(index)),
        Some(id) => format!("{}C{id:020}#", issue_reactions_prefix(index)),
    }
}

/// The target's reaction count.
pub fn reaction_count(repo_id: i64, target_prefix: &str) -> Item {
    key(&repo_pk(repo_id), &format!("{target_prefix}N"))
}

/// `user`'s reaction `content` on the target: one per user and content.
pub fn reaction_claim(repo_id: i64, target_prefix: &str, user: &str, content: &str) -> Item {
    key(
        &repo_pk(repo_id),
        &format!("{target_prefix}U#{}#{content}", fold(user)),
    )
}

/// Where the entries of the target's listing begin.
pub fn reaction_entries_prefix(target_prefix: &str) -> String {
    format!("{target_prefix}T#")
}

/// The reaction's entry in the target's listing: oldest first, by the
/// microsecond it was made (then user and content).
pub fn reaction_entry(
    repo_id: i64,
    target_prefix: &str,
    at: i64,
    user: &str,
    content: &str,
) -> Item {
    key(
        &repo_pk(repo_id),
        &format!(
            "{}{at:020}#{}#{content}",
            reaction_entries_prefix(target_prefix),
            fold(user)
        ),
    )
}

// --- Webhooks: each owner's hooks in the owner's partition (a
// repository's under its id, so its delete removes them with the rest;
// an organisation's or user's under the owner; the site's in one
// partition of their own), beside a counter that bounds them. Ids are
// global, as Gitea's are.

/// Everything of the hooks under one owner (the hooks and their counter).
pub const HOOK_PREFIX: &str = "HOOK#";

/// Where an owner's hooks begin, in id order.
pub const HOOK_ENTRY_PREFIX: &str = "HOOK#H#";

/// The partition of the site's (system) hooks.
pub const SITE_HOOKS_PK: &str = "SITEHOOKS";

/// Hook `id` in the partition `pk` of its owner.
pub fn hook(pk: &str, id: i64) -> Item {
    key(pk, &format!("{HOOK_ENTRY_PREFIX}{id:020}"))
}

/// The number of hooks in the partition `pk` (attribute `n`).
pub fn hook_count(pk: &str) -> Item {
    key(pk, "HOOK#N")
}

/// Search's index of repositories (`gsi2`), one partition per visibility.
pub fn repos_by_visibility(private: bool) -> String {
    if private {
        "REPOS#private".into()
    } else {
        "REPOS#public".into()
    }
}

// --- Requests that carry an `Idempotency-Key`: one item per caller (user
// id, and the token's team) and key (its SHA-256), expired by the table's
// TTL attribute `ttl`.

pub fn idempotency(caller: &str, key_hash: &str) -> Item {
    key(&format!("IDEM#{caller}#{key_hash}"), "IDEM")
}

// --- Failed password sign-ins (`auth::failed_logins`): one counter per
// user name (its SHA-256: the name is whatever a stranger sent) and fixed
// window, expired by the table's TTL attribute `ttl`. A partition of its
// own, which the stream consumer's filter does not pass.

pub const FAILED_LOGINS_PREFIX: &str = "LOGINFAIL#";

/// The failed passwords of the name hashed to `name_hash` in the window
/// starting at `window_start` (Unix seconds).
pub fn failed_logins(name_hash: &str, window_start: i64) -> Item {
    key(
        &format!("{FAILED_LOGINS_PREFIX}{name_hash}"),
        &format!("WINDOW#{window_start:020}"),
    )
}

// --- Search's index (`issues::index`), kept by the table's stream
// consumer: one small item per listing an issue is entered in, a
// document per issue (what the index holds of it) and sharded counters.

/// One listing: `scope` (`GE`, `O:<owner>`, `R:<repo id>`, ...) and `term`
/// (`kio`, `w:<word>`, `l:<label>`, ...); see `issues::index::lists`.
pub fn index_list_pk(scope: &str, term: &str) -> String {
    format!("IX#{scope}#{term}")
}

/// Where an issue sorts in a listing: a time (creation, or last update
/// for the update-ordered listings), then repository and number.
pub fn index_place_sk(time: i64, repo_id: i64, index: i64) -> String {
    format!("{time:020}#{repo_id:020}#{index:020}")
}

/// An issue's index document, beside the issue.
pub fn index_doc(repo_id: i64, index: i64) -> Item {
    key(&repo_pk(repo_id), &format!("{INDEX_DOC_PREFIX}{index:020}"))
}

pub const INDEX_DOC_PREFIX: &str = "IXD#";

/// One shard of a scope's counters.
pub fn index_counts(scope: &str, shard: i64) -> Item {
    key(&format!("IXC#{scope}#{shard}"), "COUNT")
}

/// A re-indexing job of one repository (its issues' documents are
/// recomputed a page at a time; see `issues::index::jobs`).
pub fn index_repo_job(repo_id: i64, what: &str) -> Item {
    key(&repo_pk(repo_id), &format!("{INDEX_JOB_PREFIX}{what}"))
}

/// A re-indexing job of an owner's repositories (it starts one job per
/// repository).
pub fn index_owner_job(owner: &str, what: &str) -> Item {
    key(&owner_pk(owner), &format!("{INDEX_JOB_PREFIX}{what}"))
}

pub const INDEX_JOB_PREFIX: &str = "IXJOB#";

/// Where the next page of a listing starts, for a few minutes after the
/// page before it was served (`hash`: of the caller, route and query).
pub fn listing_cursor(hash: &str, page: u64) -> Item {
    key(&format!("CURSOR#{hash}"), &format!("PAGE#{page:020}"))
}

// --- Writes the search index has yet to apply (`issues::index::pending`):
// a mark per issue in its repository, and one under the user who wrote it,
// put in the write's own transaction and taken away by the stream consumer
// once the index holds the write.

pub const INDEX_PENDING_PREFIX: &str = "IXP#";

/// The mark of issue `index` of a repository.
pub fn index_pending(repo_id: i64, index: i64) -> Item {
    key(
        &repo_pk(repo_id),
        &format!("{INDEX_PENDING_PREFIX}{index:020}"),
    )
}

/// The mark of a write of `login`'s (lower-case) to issue `index` of a
/// repository.
pub fn index_pending_of_writer(login: &str, repo_id: i64, index: i64) -> Item {
    key(
        &owner_pk(login),
        &format!("{INDEX_PENDING_PREFIX}{repo_id:020}#{index:020}"),
    )
}

/// Parked stream changes (`shared::stream::park`): the changes one handler
/// could not handle for one record wait, in stream order, in a partition of
/// their own, named by the handler and a hash of the record's keys (which
/// may hold any character).
pub const PARKED_PREFIX: &str = "PARK#";

/// The queue of `handler`'s parked changes to the item (`record_pk`,
/// `record_sk`).
pub fn parked_pk(handler: &str, record_pk: &str, record_sk: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{record_pk}\u{1f}{record_sk}").as_bytes());
    format!("{PARKED_PREFIX}{handler}#{}", hex::encode(&digest[..16]))
}

/// The queue's head item: who, which record, how many, when due.
pub const PARKED_QUEUE_SK: &str = "Q";

/// Where a queue's changes begin.
pub const PARKED_CHANGE_PREFIX: &str = "C#";

/// A parked change, by its (padded) sequence number.
pub fn parked_change_sk(seq: &str) -> String {
    format!("{PARKED_CHANGE_PREFIX}{seq}")
}

/// How many changes are parked, all queues together (attribute `n`): one
/// strong read per batch tells the consumer whether any change may have to
/// wait behind a parked one.
pub fn parked_count() -> Item {
    key("PARKED", "COUNT")
}

/// Queues filed by due time (`gsi1`), for the sweeper.
pub const PARKED_DUE_PK: &str = "PARKDUE";

/// Queues filed by when their first change was parked (`gsi2`), for the
/// age metric.
pub const PARKED_AGE_PK: &str = "PARKAGE";
