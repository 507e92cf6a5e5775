//! What a search or listing asks of the index, in the index's terms:
//! where to read ([`Source`]s), what every shown issue must satisfy
//! ([`Checks`], tested on documents) and in which order. Pure.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use super::{
    doc::Doc,
    lists::{self, Relation, Scope},
};

/// Kinds a caller may read: issues, pull requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kinds {
    pub issues: bool,
    pub pulls: bool,
}

impl Kinds {
    pub const BOTH: Kinds = Kinds {
        issues: true,
        pulls: true,
    };

    pub fn has(&self, is_pull: bool) -> bool {
        if is_pull { self.pulls } else { self.issues }
    }

    pub fn union(self, other: Kinds) -> Kinds {
        Kinds {
            issues: self.issues || other.issues,
            pulls: self.pulls || other.pulls,
        }
    }

    pub fn any(&self) -> bool {
        self.issues || self.pulls
    }
}

/// One scope a caller reads, with what they may read there.
#[derive(Clone, Debug)]
pub struct Source {
    pub scope: Scope,
    pub kinds: Kinds,
    /// Only these repositories' entries, each with its kinds (the caller
    /// was given some of an owner's repositories, not all).
    pub only: Option<Arc<HashMap<i64, Kinds>>>,
}

impl Source {
    pub fn new(scope: Scope, kinds: Kinds) -> Self {
        Self {
            scope,
            kinds,
            only: None,
        }
    }

    /// Whether an entry of `repo_id` (of kind `is_pull`, when known) may be
    /// shown from this source.
    pub fn admits(&self, repo_id: i64, is_pull: Option<bool>) -> bool {
        let kinds = match &self.only {
            None => self.kinds,
            Some(only) => match only.get(&repo_id) {
                Some(k) => *k,
                None => return false,
            },
        };
        match is_pull {
            Some(p) => kinds.has(p),
            None => kinds.any(),
        }
    }
}

/// Labels or milestones asked for: by name (searches) or by id (a
/// repository's listings); any of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyOf {
    Names(Vec<String>),
    Ids(Vec<i64>),
}

impl AnyOf {
    fn label_terms(&self) -> Vec<String> {
        match self {
            AnyOf::Names(n) => n.iter().map(|n| lists::label_name_term(n)).collect(),
            AnyOf::Ids(i) => i.iter().map(|i| lists::label_id_term(*i)).collect(),
        }
    }

    fn milestone_terms(&self) -> Vec<String> {
        match self {
            AnyOf::Names(n) => n.iter().map(|n| lists::milestone_title_term(n)).collect(),
            AnyOf::Ids(i) => i.iter().map(|i| lists::milestone_id_term(*i)).collect(),
        }
    }
}

/// What every shown issue must satisfy. `None` and empty lists do not
/// filter.
#[derive(Clone, Debug, Default)]
pub struct Checks {
    pub kinds: Vec<bool>,
    pub states: Vec<bool>,
    pub labels: Option<AnyOf>,
    pub milestones: Option<AnyOf>,
    /// Every one of these words (normalised).
    pub words: Vec<String>,
    /// Updated at or after / at or before (Unix seconds).
    pub since: Option<i64>,
    pub before: Option<i64>,
    /// The caller's relations (search) or a named user's (listings).
    pub relations: Vec<(Relation, String)>,
    /// Lower-case owner login.
    pub owner: Option<String>,
    /// A pull request's base branch.
    pub base: Option<String>,
}

impl Checks {
    pub fn matches(&self, d: &Doc) -> bool {
        self.matches_kind_state(d.is_pull, d.closed)
            && self.labels.as_ref().is_none_or(|l| match l {
                AnyOf::Names(n) => d.labels.iter().any(|x| n.contains(&x.name)),
                AnyOf::Ids(i) => d.labels.iter().any(|x| i.contains(&x.id)),
            })
            && self.milestones.as_ref().is_none_or(|m| {
                d.milestone.as_ref().is_some_and(|x| match m {
                    AnyOf::Names(n) => n.iter().any(|t| t.to_lowercase() == x.title),
                    AnyOf::Ids(i) => i.contains(&x.id),
                })
            })
            && self.words.iter().all(|w| d.has_word(w))
            && self.since.is_none_or(|s| d.updated >= s)
            && self.before.is_none_or(|b| d.updated <= b)
            && self
                .relations
                .iter()
                .all(|(rel, who)| rel.of(d).contains(&who.as_str()))
            && self.owner.as_ref().is_none_or(|o| &d.owner == o)
            && self.base.as_ref().is_none_or(|b| &d.base == b)
    }

    pub fn matches_kind_state(&self, is_pull: bool, closed: bool) -> bool {
        self.kinds.contains(&is_pull) && self.states.contains(&closed)
    }

    /// Only kind and state (and the owner, which sources already
    /// restrict): the kind-and-state listings answer it without documents.
    pub fn is_plain(&self) -> bool {
        self.by_time_and_state() && self.since.is_none() && self.before.is_none()
    }

    /// Only kind, state and update times (and the owner): an issue's entry
    /// in an update listing read within the times answers it, with the
    /// state it carries.
    pub fn by_time_and_state(&self) -> bool {
        self.labels.is_none()
            && self.milestones.is_none()
            && self.words.is_empty()
            && self.relations.is_empty()
            && self.base.is_none()
    }

    /// The listings that hold a superset of the matches, each a union of
    /// terms, with the filter they serve: candidates for the walk.
    pub fn term_drivers(&self, in_repo: bool) -> Vec<(Filter, Vec<String>)> {
        let mut out = Vec::new();
        for w in &self.words {
            out.push((Filter::Word, vec![lists::word_term(w)]));
        }
        if let Some(l) = &self.labels {
            out.push((Filter::Labels, l.label_terms()));
        }
        if let Some(m) = &self.milestones {
            out.push((Filter::Milestones, m.milestone_terms()));
        }
        if in_repo {
            for (rel, who) in &self.relations {
                if matches!(
                    rel,
                    Relation::Created | Relation::Assigned | Relation::Mentioned
                ) {
                    out.push((Filter::Relation, vec![lists::repo_relation_term(*rel, who)]));
                }
            }
            if let Some(b) = &self.base {
                out.push((Filter::Branch, vec![lists::branch_term(b)]));
            }
        }
        out
    }

    /// Drops a filter by names that no issue the caller may see carries
    /// (see `find`): Gitea discards names it does not know.
    pub fn discard(&mut self, filter: Filter) {
        match filter {
            Filter::Labels => self.labels = None,
            Filter::Milestones => self.milestones = None,
            _ => {}
        }
    }

    /// Whether `filter` names labels or milestones by name (searches),
    /// which are discarded when no visible issue carries any of them.
    pub fn discardable(&self, filter: Filter) -> bool {
        match filter {
            Filter::Labels => matches!(self.labels, Some(AnyOf::Names(_))),
            Filter::Milestones => matches!(self.milestones, Some(AnyOf::Names(_))),
            _ => false,
        }
    }
}

/// A filter that names listings of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    Word,
    Labels,
    Milestones,
    Relation,
    Branch,
}

/// The order of a listing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Newest first (creation time, repository, number).
    #[default]
    Newest,
    Oldest,
    /// Last updated first.
    RecentUpdate,
    LeastUpdate,
    /// Last closed first; open ones (never closed) last. No listing keeps
    /// this order: every match is read and sorted.
    RecentClose,
    /// Most comments first, then newest (read and sorted, as above).
    MostComment,
    LeastComment,
}

impl Order {
    /// Whether it reads the update-ordered listings.
    pub fn by_update(self) -> bool {
        matches!(self, Order::RecentUpdate | Order::LeastUpdate)
    }

    /// Whether no listing keeps this order: matches are sorted by their
    /// documents.
    pub fn by_document(self) -> bool {
        matches!(
            self,
            Order::RecentClose | Order::MostComment | Order::LeastComment
        )
    }

    /// For the orders sorted by documents: where `d` sorts (ascending).
    pub fn document_key(self, d: &Doc) -> (i64, i64, i64, i64) {
        let newest = (-d.created, -d.repo_id, -d.index);
        let closed_at = if d.closed { d.closed_at } else { 0 };
        match self {
            Order::RecentClose => (-closed_at, newest.0, newest.1, newest.2),
            Order::MostComment => (-d.comments, newest.0, newest.1, newest.2),
            Order::LeastComment => (d.comments, newest.0, newest.1, newest.2),
            _ => (0, newest.0, newest.1, newest.2),
        }
    }

    /// Whether it reads listings forwards (oldest first).
    pub fn forward(self) -> bool {
        matches!(self, Order::Oldest | Order::LeastUpdate)
    }
}

/// Distinct values, in order.
pub fn distinct<T: Clone + Eq + std::hash::Hash>(v: &[T]) -> Vec<T> {
    let mut seen = HashSet::new();
    v.iter()
        .filter(|x| seen.insert((*x).clone()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issues::index::doc::{LabelTerm, MilestoneTerm};

    fn doc() -> Doc {
        Doc {
            is_pull: false,
            closed: false,
            updated: 500,
            owner: "acme".into(),
            poster: "alice".into(),
            labels: vec![LabelTerm {
                id: 5,
                name: "bug".into(),
            }],
            milestone: Some(MilestoneTerm {
                id: 2,
                title: "v1.0".into(),
            }),
            words: vec!["crash".into(), "start".into()],
            ..Doc::default()
        }
    }

    fn open_issues() -> Checks {
        Checks {
            kinds: vec![false],
            states: vec![false],
            ..Checks::default()
        }
    }

    #[test]
    fn documents_are_checked_field_by_field() {
        let d = doc();
        let ok = |c: Checks| c.matches(&d);
        assert!(ok(open_issues()));
        assert!(!ok(Checks {
            states: vec![true],
            ..open_issues()
        }));
        assert!(ok(Checks {
            labels: Some(AnyOf::Names(vec!["ui".into(), "bug".into()])),
            ..open_issues()
        }));
        assert!(!ok(Checks {
            labels: Some(AnyOf::Ids(vec![6])),
            ..open_issues()
        }));
        assert!(ok(Checks {
            milestones: Some(AnyOf::Names(vec!["V1.0".into()])),
            ..open_issues()
        }));
        assert!(ok(Checks {
            words: vec!["crash".into(), "start".into()],
            ..open_issues()
        }));
        assert!(!ok(Checks {
            words: vec!["crash".into(), "stop".into()],
            ..open_issues()
        }));
        assert!(ok(Checks {
            since: Some(500),
            before: Some(500),
            ..open_issues()
        }));
        assert!(!ok(Checks {
            since: Some(501),
            ..open_issues()
        }));
        assert!(ok(Checks {
            relations: vec![(Relation::Created, "alice".into())],
            owner: Some("acme".into()),
            ..open_issues()
        }));
        assert!(!ok(Checks {
            relations: vec![(Relation::Assigned, "alice".into())],
            ..open_issues()
        }));
    }

    #[test]
    fn document_orders_break_ties_newest_first() {
        let d = |index: i64, created: i64, closed_at: i64, comments: i64| Doc {
            index,
            created,
            closed: closed_at > 0,
            closed_at,
            comments,
            ..Doc::default()
        };
        let all = [
            d(1, 10, 0, 0),
            d(2, 20, 40, 2),
            d(3, 20, 0, 1),
            d(4, 30, 35, 2),
        ];
        let sorted = |o: Order| {
            let mut v = all.to_vec();
            v.sort_by_key(|x| o.document_key(x));
            v.iter().map(|x| x.index).collect::<Vec<_>>()
        };
        assert_eq!(sorted(Order::RecentClose), [2, 4, 3, 1]);
        assert_eq!(sorted(Order::MostComment), [4, 2, 3, 1]);
        assert_eq!(sorted(Order::LeastComment), [1, 3, 4, 2]);
    }

    #[test]
    fn restricted_sources_admit_only_their_repositories_and_kinds() {
        let s = Source {
            only: Some(Arc::new(HashMap::from([(
                7,
                Kinds {
                    issues: true,
                    pulls: false,
                },
            )]))),
            ..Source::new(Scope::Private("acme".into()), Kinds::BOTH)
        };
        assert!(s.admits(7, Some(false)));
        assert!(!s.admits(7, Some(true)));
        assert!(s.admits(7, None));
        assert!(!s.admits(8, Some(false)));
    }

    #[test]
    fn filters_name_the_listings_that_can_drive_a_walk() {
        let c = Checks {
            words: vec!["crash".into()],
            labels: Some(AnyOf::Names(vec!["bug".into(), "ui".into()])),
            relations: vec![(Relation::Created, "bob".into())],
            ..open_issues()
        };
        assert_eq!(
            c.term_drivers(false),
            vec![
                (Filter::Word, vec!["w:crash".to_string()]),
                (Filter::Labels, vec!["l:bug".into(), "l:ui".into()])
            ]
        );
        assert_eq!(
            c.term_drivers(true).last().unwrap(),
            &(Filter::Relation, vec!["uc:bob".to_string()])
        );
        assert!(c.discardable(Filter::Labels) && !c.discardable(Filter::Word));
    }
}
