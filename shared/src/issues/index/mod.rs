//! Search's index of issues: what lets `GET /repos/issues/search` read one
//! page of what it shows, whatever the number of repositories.
//!
//! Every issue is listed, as one small item per listing, newest first, by
//! kind and state, in:
//! - `A<shard>`: every issue (site admins search these);
//! - `P<shard>`: issues of public repositories (everyone else, merged with
//!   their own few private-visible repositories' listings);
//! - `O:<owner>`: issues of an owner's public repositories (`owner=`);
//! - `U:<login>:<c|a|m>`: issues a user created, is assigned or was
//!   mentioned in (`created`, `assigned`, `mentioned`).
//!
//! Entries move in the same transaction as the issue (while it has room;
//! see [`crate::db::Tx::derived_put`]). A listing is a hint: readers check
//! every entry against the repository's current visibility and the issue
//! itself, so a repository turned private disappears at once, and an entry
//! left stale is skipped, never shown.
//!
//! Counters by kind and state (`ADD`, spread over shards so that
//! concurrent writes seldom touch the same item) give `X-Total-Count` for
//! the `A`, `P` and per-owner (`Q:<owner>`) scopes.

pub mod read;
mod visibility;

pub use visibility::{published, removed, seeded, unpublished};

use std::collections::{BTreeMap, BTreeSet};

use super::IssueRecord;
use crate::{
    db::{self, DbError, Tx, keys},
    repos::RepoRecord,
};

/// Shards of the `A` and `P` listings: a page reads every shard's head.
pub const ENTRY_SHARDS: i64 = 4;
/// Shards of the `A` and `P` counters (written at random, read all).
pub const COUNT_SHARDS: i64 = 8;
/// Shards of an owner's counters.
pub const OWNER_COUNT_SHARDS: i64 = 4;

/// What the index needs of an issue's repository. Whoever loads an issue
/// with its repository sets it ([`IssueRecord::listing`]); without it, a
/// write leaves the repository-dependent listings (`P`, `O`) alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    /// Lower-case owner login.
    pub owner: String,
    /// The repository is public.
    pub public: bool,
}

impl Listing {
    pub fn of(repo: &RepoRecord) -> Self {
        Self {
            owner: crate::name::fold(&repo.owner),
            public: !repo.private,
        }
    }
}

/// A relation of a user to an issue, with its own listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    Created,
    Assigned,
    Mentioned,
}

impl Relation {
    fn code(self) -> char {
        match self {
            Relation::Created => 'c',
            Relation::Assigned => 'a',
            Relation::Mentioned => 'm',
        }
    }
}

/// Scope names (the middle of an index partition key).
pub fn all_scope(shard: i64) -> String {
    format!("A{shard}")
}

pub fn public_scope(shard: i64) -> String {
    format!("P{shard}")
}

pub fn owner_scope(owner: &str) -> String {
    format!("O:{}", crate::name::fold(owner))
}

pub fn user_scope(login: &str, rel: Relation) -> String {
    format!("U:{}:{}", crate::name::fold(login), rel.code())
}

pub fn owner_count_scope(owner: &str, shard: i64) -> String {
    format!("Q{shard}:{}", crate::name::fold(owner))
}

/// The scopes an issue is listed in.
pub fn scopes(i: &IssueRecord) -> BTreeSet<String> {
    let mut out = BTreeSet::from([all_scope(i.id.rem_euclid(ENTRY_SHARDS))]);
    if let Some(l) = i.listing.as_ref().filter(|l| l.public) {
        out.insert(public_scope(i.id.rem_euclid(ENTRY_SHARDS)));
        out.insert(owner_scope(&l.owner));
    }
    out.insert(user_scope(&i.poster, Relation::Created));
    for a in &i.assignees {
        out.insert(user_scope(a, Relation::Assigned));
    }
    for m in i.mentions.iter().chain(&i.comment_mentions) {
        out.insert(user_scope(m, Relation::Mentioned));
    }
    out
}

/// Every entry (partition key, sort key) of an issue.
pub fn entries(i: &IssueRecord) -> BTreeSet<(String, String)> {
    let sk = keys::search_sk(i.created, i.repo_id, i.index);
    scopes(i)
        .into_iter()
        .map(|scope| (keys::search_pk(&scope, i.is_pull, i.closed), sk.clone()))
        .collect()
}

/// Whether a scope depends on the repository (left alone without a
/// [`Listing`]).
fn repository_scope(scope_pk: &str) -> bool {
    scope_pk.starts_with("SX#P") || scope_pk.starts_with("SX#O:")
}

/// The counter name of a kind and state (`io`: open issues, `pc`: closed
/// pull requests, ...).
pub fn counter_name(is_pull: bool, closed: bool) -> &'static str {
    match (is_pull, closed) {
        (false, false) => "io",
        (false, true) => "ic",
        (true, false) => "po",
        (true, true) => "pc",
    }
}

/// The counter scopes an issue counts in (the shard chosen by the caller).
fn counted_in(i: &IssueRecord, shard: i64, owner_shard: i64) -> Vec<String> {
    let mut out = vec![all_scope(shard)];
    if let Some(l) = i.listing.as_ref().filter(|l| l.public) {
        out.push(public_scope(shard));
        out.push(owner_count_scope(&l.owner, owner_shard));
    }
    out
}

/// Adds to `tx` what an issue going from `before` to `after` (either may be
/// absent) changes in the index: entries removed and added, and counters.
pub fn moves(
    tx: &mut Tx,
    before: Option<&IssueRecord>,
    after: Option<&IssueRecord>,
) -> Result<(), DbError> {
    let known = before.or(after).is_some_and(|i| i.listing.is_some());
    let of = |i: Option<&IssueRecord>| {
        i.map(entries)
            .unwrap_or_default()
            .into_iter()
            .filter(|(pk, _)| known || !repository_scope(pk))
            .collect::<BTreeSet<_>>()
    };
    let (old, new) = (of(before), of(after));
    for (pk, sk) in old.difference(&new) {
        tx.derived_delete(keys::key(pk, sk));
    }
    for (pk, sk) in new.difference(&old) {
        tx.derived_put(keys::key(pk, sk))?;
    }
    // Any shard will do for a counter: only the sum is read.
    let shard = rand::random_range(0..COUNT_SHARDS);
    let owner_shard = rand::random_range(0..OWNER_COUNT_SHARDS);
    let mut deltas: BTreeMap<(String, &'static str), i64> = BTreeMap::new();
    for (i, sign) in [(before, -1), (after, 1)] {
        let Some(i) = i else { continue };
        for scope in counted_in(i, shard, owner_shard) {
            *deltas
                .entry((scope, counter_name(i.is_pull, i.closed)))
                .or_default() += sign;
        }
    }
    let mut by_scope: BTreeMap<String, Vec<(&'static str, i64)>> = BTreeMap::new();
    for ((scope, name), d) in deltas.into_iter().filter(|(_, d)| *d != 0) {
        by_scope.entry(scope).or_default().push((name, d));
    }
    for (scope, adds) in by_scope {
        add_to_counter(tx, &scope, &adds)?;
    }
    Ok(())
}

/// `ADD`s each named count's delta to one counter item of `scope`.
pub(crate) fn add_to_counter(
    tx: &mut Tx,
    scope: &str,
    adds: &[(&'static str, i64)],
) -> Result<(), DbError> {
    let expression = adds
        .iter()
        .map(|(name, _)| format!("{name} :{name}"))
        .collect::<Vec<_>>()
        .join(", ");
    let values: Vec<(String, aws_sdk_dynamodb::types::AttributeValue)> = adds
        .iter()
        .map(|(name, d)| (format!(":{name}"), db::n(*d)))
        .collect();
    let values: Vec<(&str, _)> = values
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    tx.update(
        keys::search_counts(scope),
        &format!("ADD {expression}"),
        &values,
        None,
    )?;
    Ok(())
}

/// Counts by kind and state, summed over counter items.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub open_issues: i64,
    pub closed_issues: i64,
    pub open_pulls: i64,
    pub closed_pulls: i64,
}

impl Counts {
    pub fn add_item(&mut self, item: &db::Item) {
        let n = |name: &str| -> i64 {
            item.get(name)
                .and_then(|v| v.as_n().ok())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0)
        };
        self.open_issues += n("io");
        self.closed_issues += n("ic");
        self.open_pulls += n("po");
        self.closed_pulls += n("pc");
    }

    pub fn get(&self, is_pull: bool, closed: bool) -> i64 {
        match (is_pull, closed) {
            (false, false) => self.open_issues,
            (false, true) => self.closed_issues,
            (true, false) => self.open_pulls,
            (true, true) => self.closed_pulls,
        }
    }
}

/// The counter items of the whole installation (`all`) or of public
/// repositories.
pub fn total_keys(all: bool) -> Vec<db::Item> {
    (0..COUNT_SHARDS)
        .map(|s| keys::search_counts(&if all { all_scope(s) } else { public_scope(s) }))
        .collect()
}

/// The counter items of an owner's public repositories.
pub fn owner_total_keys(owner: &str) -> Vec<db::Item> {
    (0..OWNER_COUNT_SHARDS)
        .map(|s| keys::search_counts(&owner_count_scope(owner, s)))
        .collect()
}

#[cfg(test)]
mod tests;
