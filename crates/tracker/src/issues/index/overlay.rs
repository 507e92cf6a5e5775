//! The index as the table is now: the issues whose writes the consumer has
//! yet to apply ([`super::pending`]'s marks), read as they are and laid
//! over what the index says of them. A listing passes over the index's
//! entries of those issues and places each by its current document
//! instead; counts move by the difference. So a write shows in the next
//! listing whatever the stream's delay, while everything else still costs
//! what the index costs.
//!
//! What is read: the marks (one strongly consistent query), then, only
//! when there are any, the marked issues with their documents (one batch),
//! and for those the index is behind on, their repositories' labels and
//! milestones (one wave). Marks whose write the index holds already (the
//! consumer is about to take them away) cost the batch and no more.

use std::collections::{BTreeMap, HashMap, HashSet};

use futures::future::try_join_all;

use super::{
    class::Class,
    context, counts,
    doc::{self, Doc},
    lists::Scope,
    pending,
    query::{AnyOf, Checks, Filter},
};
use crate::{
    db::{self, Consistency, Db, keys},
    issues::{Error, IssueRecord, Result},
};

/// What the overlay reads of a marked issue: all but its body (and the
/// excerpt of a pull request's last review).
const ISSUE_FACTS: [&str; 32] = [
    "pk",
    "sk",
    "id",
    "repo_id",
    "index",
    "is_pull",
    "title",
    "ref",
    "poster",
    "assignees",
    "labels",
    "milestone",
    "closed",
    "closed_at",
    "due",
    "created",
    "updated",
    "content_version",
    "version",
    "mentions",
    "head",
    "base",
    "allow_maintainer_edit",
    "merged",
    "merged_at",
    "review_requested",
    "reviewed",
    "comments",
    "is_locked",
    "lock_reason",
    "comment_mentions",
    "ixw",
];

/// Most repositories whose issues one overlay derives documents for.
const MOST_REPOS: usize = 8;

/// One issue the index is behind on.
#[derive(Clone, Debug)]
struct Behind {
    /// Its document as of now (`None`: deleted, or listed nowhere).
    now: Option<Doc>,
    /// Its document as the index holds it.
    indexed: Option<Doc>,
}

/// Issues the index is behind on, by `(repo id, number)`.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    behind: HashMap<(i64, i64), Behind>,
}

/// Whose marks a listing lays over the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marks {
    /// Nobody's (a caller who wrote nothing: an anonymous search).
    None,
    /// A repository's: every write to its issues (its own listings).
    Repo(i64),
    /// A user's: their own writes, wherever (their searches).
    Writer(String),
}

impl Overlay {
    /// Reads the marks named and what they mark.
    pub async fn load(db: &Db, marks: &Marks) -> Result<Overlay> {
        let marked = match marks {
            Marks::None => return Ok(Overlay::default()),
            Marks::Repo(id) => pending::of_repo(db, *id, pending::MOST_IN_REPO).await?,
            Marks::Writer(login) => pending::of_writer(db, login, pending::MOST_OF_WRITER).await?,
        };
        let Some(marked) = marked else {
            return Err(Error::IndexBehind);
        };
        if marked.is_empty() {
            return Ok(Overlay::default());
        }
        Self::of_marked(db, &marked).await
    }

    async fn of_marked(db: &Db, marked: &[(i64, i64)]) -> Result<Overlay> {
        let issue_keys = marked.iter().map(|(r, n)| keys::issue(*r, *n)).collect();
        let doc_keys = marked
            .iter()
            .map(|(r, n)| keys::index_doc(*r, *n))
            .collect();
        // Issues without their bodies (up to 64K characters each, which
        // only `q`'s words need, and `q` may trail): what is sent back
        // stays small whatever the issues hold.
        let (issue_items, doc_items) = tokio::try_join!(
            db.batch_get_many(issue_keys, Some(&ISSUE_FACTS), Consistency::Strong),
            db.batch_get_many(doc_keys, None, Consistency::Strong),
        )?;
        let mut issues: HashMap<(i64, i64), IssueRecord> = HashMap::new();
        let mut docs: HashMap<(i64, i64), Doc> = HashMap::new();
        for item in doc_items {
            let d = Doc::from_item(item)?;
            docs.insert((d.repo_id, d.index), d);
        }
        for item in issue_items {
            let i: IssueRecord = db::from_item(item)?;
            issues.insert((i.repo_id, i.index), i);
        }
        // The issues whose documents do not reflect them.
        let stale: Vec<(i64, i64)> = marked
            .iter()
            .copied()
            .filter(|k| match (issues.get(k), docs.get(k)) {
                (None, None) => false,
                (Some(i), Some(d)) => d.version != i.version,
                _ => true,
            })
            .collect();
        let repos: HashSet<i64> = stale
            .iter()
            .filter(|k| issues.contains_key(k))
            .map(|(r, _)| *r)
            .collect();
        if repos.len() > MOST_REPOS {
            return Err(Error::IndexBehind);
        }
        let contexts: HashMap<i64, Option<context::RepoContext>> = try_join_all(
            repos
                .into_iter()
                .map(|id| async move { Ok::<_, Error>((id, context::load(db, id).await?)) }),
        )
        .await?
        .into_iter()
        .collect();
        let mut behind = HashMap::new();
        for key in stale {
            let indexed = docs.remove(&key);
            let now = issues.remove(&key).and_then(|i| {
                let cx = contexts.get(&key.0)?.as_ref()?;
                let context = doc::Context {
                    repo: &cx.facts,
                    label_names: &cx.label_names,
                    milestone_title: cx.milestone_titles.get(&i.milestone).map(String::as_str),
                };
                let mut d = Doc::derive(&i, &context, indexed.as_ref());
                // The body was not read: its words as the index has them.
                if let Some(old) = &indexed {
                    for w in &old.words {
                        if !d.words.contains(w) {
                            d.words.push(w.clone());
                        }
                    }
                }
                Some(d)
            });
            behind.insert(key, Behind { now, indexed });
        }
        Ok(Overlay { behind })
    }

    pub fn is_empty(&self) -> bool {
        self.behind.is_empty()
    }

    /// The issues whose index entries a listing passes over.
    pub fn hidden(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.behind.keys().copied()
    }

    /// The current documents of those issues that are listed somewhere.
    pub fn current(&self) -> impl Iterator<Item = &Doc> {
        self.behind
            .values()
            .filter_map(|b| b.now.as_ref())
            .filter(|d| d.class != Class::Nobody)
    }

    /// The current document of an issue laid over the index.
    pub fn doc(&self, repo_id: i64, index: i64) -> Option<&Doc> {
        self.behind.get(&(repo_id, index))?.now.as_ref()
    }

    /// What the index's counters lack, by scope name and counter.
    pub fn count_deltas(&self) -> BTreeMap<(String, &'static str), i64> {
        let mut out = BTreeMap::new();
        for b in self.behind.values() {
            for (k, n) in counts::deltas(b.indexed.as_ref(), b.now.as_ref()) {
                *out.entry(k).or_insert(0) += n;
            }
        }
        out
    }

    /// Whether an issue laid over the index carries one of the names a
    /// filter asks for (it is then in use, whatever the index says).
    pub fn carries(&self, filter: Filter, checks: &Checks) -> bool {
        let names = |any: &Option<AnyOf>| match any {
            Some(AnyOf::Names(n)) => n.clone(),
            _ => Vec::new(),
        };
        self.current().any(|d| match filter {
            Filter::Labels => {
                let wanted = names(&checks.labels);
                d.labels.iter().any(|l| wanted.contains(&l.name))
            }
            Filter::Milestones => names(&checks.milestones).iter().any(|t| {
                d.milestone
                    .as_ref()
                    .is_some_and(|m| m.title == t.to_lowercase())
            }),
            _ => false,
        })
    }
}

/// Whether a document is listed in a scope (as `lists::entries` files it).
pub fn in_scope(d: &Doc, scope: &Scope) -> bool {
    d.class != Class::Nobody
        && match scope {
            Scope::Global(c) => d.class == *c,
            Scope::Owner(o) => !d.private && &d.owner == o,
            Scope::Private(o) => d.private && &d.owner == o,
            Scope::Repo(id) => d.repo_id == *id,
        }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::issues::index::lists;

    #[test]
    fn a_document_is_in_the_scopes_its_entries_are_filed_in() {
        let d = Doc {
            repo_id: 7,
            index: 1,
            class: Class::Everyone,
            owner: "acme".into(),
            ..Doc::default()
        };
        let filed: HashSet<String> = lists::entries(&d).into_keys().map(|(pk, _)| pk).collect();
        for scope in [
            Scope::Global(Class::Everyone),
            Scope::Global(Class::Members),
            Scope::Owner("acme".into()),
            Scope::Private("acme".into()),
            Scope::Owner("other".into()),
            Scope::Repo(7),
            Scope::Repo(8),
        ] {
            let listed = filed
                .iter()
                .any(|pk| pk.starts_with(&format!("IX#{}#", scope.name())));
            assert_eq!(in_scope(&d, &scope), listed, "{scope:?}");
        }
    }

    #[test]
    fn counts_move_by_what_the_index_lacks() {
        let open = Doc {
            repo_id: 7,
            index: 1,
            class: Class::Everyone,
            owner: "acme".into(),
            ..Doc::default()
        };
        let closed = Doc {
            closed: true,
            ..open.clone()
        };
        let o = Overlay {
            behind: HashMap::from([
                (
                    (7, 1),
                    Behind {
                        now: Some(closed),
                        indexed: Some(open.clone()),
                    },
                ),
                (
                    (7, 2),
                    Behind {
                        now: Some(Doc {
                            index: 2,
                            ..open.clone()
                        }),
                        indexed: None,
                    },
                ),
            ]),
        };
        let d = o.count_deltas();
        assert_eq!(d.get(&("GE".to_string(), "io")), Some(&0));
        assert_eq!(d.get(&("GE".to_string(), "ic")), Some(&1));
        assert_eq!(d.get(&("O:acme".to_string(), "ic")), Some(&1));
        assert_eq!(o.current().count(), 2);
        assert_eq!(o.hidden().count(), 2);
    }
}
