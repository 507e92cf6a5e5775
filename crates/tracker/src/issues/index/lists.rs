//! The listings of the index and which of them an issue is entered in.
//!
//! A listing is one partition (`IX#<scope>#<term>`) of key-only items,
//! newest first by creation time (`<created>#<repo>#<number>`), or by last
//! update for the update-ordered ones. Scopes say whose issues a listing
//! holds:
//! - `G<audience>`: every issue of an audience ([`Class`]) across the
//!   installation; the kind-and-state and update listings are sharded by
//!   issue id, since every write of the audience goes there;
//! - `O:<owner>` / `V:<owner>`: an owner's public / private repositories;
//! - `R:<repo id>`: one repository;
//! - `U:<login>`: issues a user created, is assigned, was mentioned in, was
//!   asked to review, reviewed (every audience: readers check each entry).
//!
//! Terms say what the issues share: kind and state (`kio`: open issues,
//! `kpc`: closed pull requests), last update (`ti`, `tp`), a word (`w:`),
//! a label (`l:<name>`, and `l#<id>` in a repository's scope), a milestone
//! (`m:<lower title>`, and `m#<id>`), a relation (`U` scope: `c`, `a`, `m`,
//! `r`, `v` with kind and state; `R` scope: `uc:<login>`, ...) and a pull
//! request's base branch (`b:<branch>`, `R` scope). Listings that do not
//! carry the state hold issues in every state: readers check the state on
//! the document. The update listings' entries carry the issue's creation
//! time and state ([`Stub`]), so a `since`/`before` window is filtered by
//! state and ordered by creation without the documents (entries written
//! before they did fall back to the document).

use std::collections::BTreeMap;

use super::{class::Class, doc::Doc};
use crate::db::{self, Item, keys};

/// Shards of the global kind-and-state and update listings.
pub const SHARDS: i64 = 4;

/// Whose issues a listing holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Global(Class),
    /// An owner's public repositories.
    Owner(String),
    /// An owner's private repositories.
    Private(String),
    Repo(i64),
}

impl Scope {
    pub fn name(&self) -> String {
        match self {
            Scope::Global(c) => format!("G{}", c.letter()),
            Scope::Owner(o) => format!("O:{o}"),
            Scope::Private(o) => format!("V:{o}"),
            Scope::Repo(id) => format!("R:{id}"),
        }
    }

    /// Global listings of kind and state, and of updates, are sharded.
    pub fn sharded(&self) -> bool {
        matches!(self, Scope::Global(_))
    }

    /// The owner scope of a repository.
    pub fn of_owner(owner: &str, private: bool) -> Scope {
        if private {
            Scope::Private(owner.to_string())
        } else {
            Scope::Owner(owner.to_string())
        }
    }
}

/// A user's relation to an issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    Created,
    Assigned,
    Mentioned,
    ReviewRequested,
    Reviewed,
}

impl Relation {
    pub fn code(self) -> char {
        match self {
            Relation::Created => 'c',
            Relation::Assigned => 'a',
            Relation::Mentioned => 'm',
            Relation::ReviewRequested => 'r',
            Relation::Reviewed => 'v',
        }
    }

    /// The users an issue has this relation with.
    pub fn of(self, d: &Doc) -> Vec<&str> {
        fn list(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        match self {
            Relation::Created => vec![d.poster.as_str()],
            Relation::Assigned => list(&d.assignees),
            Relation::Mentioned => list(&d.mentions),
            Relation::ReviewRequested => list(&d.review_requested),
            Relation::Reviewed => list(&d.reviewed),
        }
    }

    pub const ALL: [Relation; 5] = [
        Relation::Created,
        Relation::Assigned,
        Relation::Mentioned,
        Relation::ReviewRequested,
        Relation::Reviewed,
    ];
}

fn kind_state(is_pull: bool, closed: bool) -> String {
    format!(
        "{}{}",
        if is_pull { 'p' } else { 'i' },
        if closed { 'c' } else { 'o' }
    )
}

/// Kind and state (`kio`, `kic`, `kpo`, `kpc`).
pub fn base_term(is_pull: bool, closed: bool) -> String {
    format!("k{}", kind_state(is_pull, closed))
}

/// Last update, by kind (`ti`, `tp`).
pub fn updated_term(is_pull: bool) -> String {
    format!("t{}", if is_pull { 'p' } else { 'i' })
}

pub fn word_term(word: &str) -> String {
    format!("w:{word}")
}

pub fn label_name_term(name: &str) -> String {
    format!("l:{name}")
}

pub fn label_id_term(id: i64) -> String {
    format!("l#{id}")
}

pub fn milestone_title_term(title: &str) -> String {
    format!("m:{}", title.to_lowercase())
}

pub fn milestone_id_term(id: i64) -> String {
    format!("m#{id}")
}

/// A relation in a user's own listings (`U` scope), by kind and state.
pub fn user_term(rel: Relation, is_pull: bool, closed: bool) -> String {
    format!("{}{}", rel.code(), kind_state(is_pull, closed))
}

/// A relation within a repository (`R` scope), any kind and state.
pub fn repo_relation_term(rel: Relation, login: &str) -> String {
    format!("u{}:{login}", rel.code())
}

pub fn branch_term(branch: &str) -> String {
    format!("b:{branch}")
}

/// The shard of a sharded listing an issue goes to.
pub fn shard_of(issue_id: i64) -> i64 {
    issue_id.rem_euclid(SHARDS)
}

/// A listing's partition key; `shard` for sharded ones.
pub fn list_pk(scope: &Scope, term: &str, shard: Option<i64>) -> String {
    match shard {
        Some(s) if scope.sharded() => keys::index_list_pk(&scope.name(), &format!("{term}.{s}")),
        _ => keys::index_list_pk(&scope.name(), term),
    }
}

/// A relation listing's partition key.
pub fn user_pk(login: &str, rel: Relation, is_pull: bool, closed: bool) -> String {
    keys::index_list_pk(&format!("U:{login}"), &user_term(rel, is_pull, closed))
}

/// A repository's listing of one issue's comments (`edited`: those edited,
/// by last update), oldest first.
pub fn issue_comments_pk(repo_id: i64, index: i64, edited: bool) -> String {
    let term = format!("{}:{index}", if edited { 'e' } else { 'c' });
    list_pk(&Scope::Repo(repo_id), &term, None)
}

/// A repository's listing of its comments on one kind (`edited`: those
/// edited, by last update), oldest first.
pub fn kind_comments_pk(repo_id: i64, is_pull: bool, edited: bool) -> String {
    let term = format!(
        "{}{}",
        if edited { 'e' } else { 'c' },
        if is_pull { 'p' } else { 'i' }
    );
    list_pk(&Scope::Repo(repo_id), &term, None)
}

/// What a listing entry carries beside its key: a comment's, and an
/// issue's in the listings by update (`lists::entries`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stub {
    /// The other time (update time in the listings by creation, creation
    /// time in those by update).
    pub t: i64,
    /// The issue's number.
    pub issue: i64,
    /// The issue is closed (`c`, kept only when true; comments never).
    pub closed: bool,
}

impl Stub {
    /// The entry's item.
    pub fn item(&self, pk: &str, sk: &str) -> Item {
        let mut item = keys::key(pk, sk);
        item.insert("t".into(), db::n(self.t));
        item.insert("i".into(), db::n(self.issue));
        if self.closed {
            item.insert("c".into(), db::b(true));
        }
        item
    }
}

/// An entry's item: its key, and what it carries.
pub fn entry_item(pk: &str, sk: &str, stub: Option<&Stub>) -> Item {
    stub.map_or_else(|| keys::key(pk, sk), |s| s.item(pk, sk))
}

/// Every entry (partition and sort key) of an issue's document, with what
/// it carries beside its key (the update listings' only).
pub fn entries(d: &Doc) -> BTreeMap<(String, String), Option<Stub>> {
    let mut out = BTreeMap::new();
    if d.class == Class::Nobody {
        return out;
    }
    let created = keys::index_place_sk(d.created, d.repo_id, d.index);
    let updated = keys::index_place_sk(d.updated, d.repo_id, d.index);
    let shard = Some(shard_of(d.id));
    let stub = Stub {
        t: d.created,
        issue: d.index,
        closed: d.closed,
    };
    let scopes = [
        Scope::Global(d.class),
        Scope::of_owner(&d.owner, d.private),
        Scope::Repo(d.repo_id),
    ];
    for scope in &scopes {
        let repo = matches!(scope, Scope::Repo(_));
        let mut put = |term: String, sharded: bool, sk: &str, carries: Option<Stub>| {
            out.insert(
                (
                    list_pk(scope, &term, sharded.then_some(shard).flatten()),
                    sk.to_string(),
                ),
                carries,
            );
        };
        put(updated_term(d.is_pull), true, &updated, Some(stub));
        let mut add = |term: String, sharded: bool, sk: &str| put(term, sharded, sk, None);
        add(base_term(d.is_pull, d.closed), true, &created);
        for w in d.terms() {
            add(word_term(w), false, &created);
        }
        // By name everywhere (a search names labels and milestones); by
        // id too in the repository (its own listings name ids, and a
        // rename's job finds the issues to refile there).
        for l in &d.labels {
            add(label_name_term(&l.name), false, &created);
            if repo {
                add(label_id_term(l.id), false, &created);
            }
        }
        if let Some(m) = &d.milestone {
            add(milestone_title_term(&m.title), false, &created);
            if repo {
                add(milestone_id_term(m.id), false, &created);
            }
        }
        if repo {
            for rel in [Relation::Created, Relation::Assigned, Relation::Mentioned] {
                for login in rel.of(d) {
                    add(repo_relation_term(rel, login), false, &created);
                }
            }
            if d.is_pull && !d.base.is_empty() {
                add(branch_term(&d.base), false, &created);
            }
        }
    }
    for rel in Relation::ALL {
        for login in rel.of(d) {
            out.insert(
                (user_pk(login, rel, d.is_pull, d.closed), created.clone()),
                None,
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issues::index::doc::{LabelTerm, MilestoneTerm};

    fn doc() -> Doc {
        Doc {
            repo_id: 7,
            index: 3,
            id: 42,
            created: 100,
            updated: 200,
            class: Class::Everyone,
            owner: "acme".into(),
            poster: "alice".into(),
            assignees: vec!["bob".into()],
            labels: vec![LabelTerm {
                id: 5,
                name: "bug".into(),
            }],
            milestone: Some(MilestoneTerm {
                id: 2,
                title: "v1".into(),
            }),
            words: vec!["crash".into(), "3".into()],
            ..Doc::default()
        }
    }

    fn pks(d: &Doc) -> std::collections::BTreeSet<String> {
        entries(d).into_keys().map(|(pk, _)| pk).collect()
    }

    #[test]
    fn an_issue_is_listed_in_its_audience_owner_and_repository() {
        let got = pks(&doc());
        for want in [
            "IX#GE#kio.2",
            "IX#GE#ti.2",
            "IX#GE#w:crash",
            "IX#GE#l:bug",
            "IX#GE#m:v1",
            "IX#O:acme#kio",
            "IX#O:acme#w:3",
            "IX#R:7#kio",
            "IX#R:7#l#5",
            "IX#R:7#l:bug",
            "IX#R:7#m#2",
            "IX#R:7#m:v1",
            "IX#R:7#uc:alice",
            "IX#R:7#ua:bob",
            "IX#U:alice#cio",
            "IX#U:bob#aio",
        ] {
            assert!(got.contains(want), "missing {want} in {got:#?}");
        }
        assert!(!got.iter().any(|p| p.starts_with("IX#V:")));
        assert!(!got.iter().any(|p| p.starts_with("IX#GE#uc")));
        assert!(!got.iter().any(|p| p.starts_with("IX#GE#l#")));
    }

    #[test]
    fn private_repositories_use_the_private_owner_scope() {
        let d = Doc {
            private: true,
            class: Class::Members,
            closed: true,
            ..doc()
        };
        let got = pks(&d);
        assert!(got.contains("IX#GM#kic.2"));
        assert!(got.contains("IX#V:acme#kic"));
        assert!(!got.iter().any(|p| p.starts_with("IX#O:")));
    }

    #[test]
    fn disabled_units_list_nothing() {
        let d = Doc {
            class: Class::Nobody,
            ..doc()
        };
        assert!(entries(&d).is_empty());
    }

    #[test]
    fn update_listings_sort_by_update_time_and_carry_creation_and_state() {
        let d = Doc {
            closed: true,
            ..doc()
        };
        let e = entries(&d);
        let at = |pk: &str| e.iter().find(|((p, _), _)| p == pk).unwrap();
        let ((_, sk), stub) = at("IX#R:7#ti");
        assert!(sk.starts_with("00000000000000000200#"));
        let want = Stub {
            t: 100,
            issue: 3,
            closed: true,
        };
        assert_eq!(*stub, Some(want));
        let ((_, sk), stub) = at("IX#R:7#kic");
        assert!(sk.starts_with("00000000000000000100#"));
        assert_eq!(*stub, None);
    }
}
