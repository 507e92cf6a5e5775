//! The index's handler of the table's stream: every change to an issue, a
//! comment, a repository, an owner, a label, a milestone or a job is turned
//! into document changes ([`super::apply`]). Changes of one repository's
//! issues, comments and jobs share its partition, so they arrive in order;
//! each document remembers the position of the last change applied and
//! skips one delivered again.

use std::collections::HashMap;

use futures::future::BoxFuture;

use super::{
    apply,
    context::Cache,
    doc::{self, Doc},
    jobs,
};
use crate::{
    accounts::users::UserRecord,
    db::{self, Consistency, Db, DbError, Item, keys},
    issues::{IssueRecord, comments::CommentRecord},
    repos::RepoStats,
    stream::{Change, Handler},
};

/// What a change is about, from its keys.
#[derive(Debug, PartialEq, Eq)]
enum Subject {
    Issue {
        repo_id: i64,
        index: i64,
    },
    Comment {
        repo_id: i64,
    },
    /// A repository's counters item, which carries its visibility and units.
    Repo {
        repo_id: i64,
    },
    RepoJob {
        repo_id: i64,
    },
    RepoLabel {
        repo_id: i64,
        id: i64,
    },
    Milestone {
        repo_id: i64,
        id: i64,
    },
    Owner,
    OwnerJob,
    OrgLabel {
        id: i64,
    },
}

fn subject(pk: &str, sk: &str) -> Option<Subject> {
    let num = |s: &str| s.parse::<i64>().ok();
    if let Some(repo_id) = pk.strip_prefix("REPO#").and_then(num) {
        return if let Some(index) = sk.strip_prefix(keys::ISSUE_PREFIX).and_then(num) {
            Some(Subject::Issue { repo_id, index })
        } else if sk.starts_with(keys::COMMENT_PREFIX) {
            Some(Subject::Comment { repo_id })
        } else if sk == keys::PROFILE {
            Some(Subject::Repo { repo_id })
        } else if sk.starts_with(keys::INDEX_JOB_PREFIX) {
            Some(Subject::RepoJob { repo_id })
        } else if let Some(id) = sk.strip_prefix(keys::LABEL_PREFIX).and_then(num) {
            Some(Subject::RepoLabel { repo_id, id })
        } else {
            sk.strip_prefix(keys::MILESTONE_PREFIX)
                .and_then(num)
                .map(|id| Subject::Milestone { repo_id, id })
        };
    }
    if pk.starts_with("OWNER#") {
        if sk == keys::PROFILE {
            return Some(Subject::Owner);
        }
        if sk.starts_with(keys::INDEX_JOB_PREFIX) {
            return Some(Subject::OwnerJob);
        }
        return sk
            .strip_prefix(keys::LABEL_PREFIX)
            .and_then(num)
            .map(|id| Subject::OrgLabel { id });
    }
    None
}

/// The search index's stream handler (one per batch: it remembers the
/// repositories it read).
#[derive(Default)]
pub struct Indexer {
    cache: Cache,
}

impl Handler for Indexer {
    fn name(&self) -> &'static str {
        "search-index"
    }

    fn wants(&self, change: &Change) -> bool {
        subject(change.pk(), change.sk()).is_some()
    }

    fn handle<'a>(
        &'a self,
        db: &'a Db,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<(), crate::Error>> {
        Box::pin(async move { Ok(self.on(db, change).await?) })
    }
}

/// Recomputes documents, as of one change.
pub struct Refile<'a> {
    cache: &'a Cache,
    /// The change's stream position, when it comes from the documents'
    /// own partition (the repository's), whose changes arrive in order;
    /// positions of other partitions' changes are not comparable with it.
    seq: Option<&'a str>,
}

impl Refile<'_> {
    /// Files issue `index` of a repository as `issue` says (`None`: it is
    /// gone), unless its document already reflects this change or a later
    /// version of the issue.
    pub async fn run(
        &self,
        db: &Db,
        repo_id: i64,
        index: i64,
        issue: Option<IssueRecord>,
    ) -> Result<(), DbError> {
        let old = apply::load(db, repo_id, index).await?;
        if let (Some(d), Some(seq)) = (&old, self.seq)
            && d.seq.as_str() >= seq
        {
            return Ok(());
        }
        let new = match issue {
            None => None,
            Some(i) if old.as_ref().is_some_and(|d| d.version > i.version) => return Ok(()),
            Some(i) => match self.cache.get(db, repo_id).await? {
                // The repository is gone: its deletion's job drops the rest.
                None => None,
                Some(cx) => {
                    let context = doc::Context {
                        repo: &cx.facts,
                        label_names: &cx.label_names,
                        milestone_title: cx.milestone_titles.get(&i.milestone).map(String::as_str),
                    };
                    let mut d = Doc::derive(&i, &context, old.as_ref());
                    if let Some(seq) = self.seq {
                        d.seq = seq.to_string();
                    }
                    Some(d)
                }
            },
        };
        if old.is_none() && new.is_none() {
            return Ok(());
        }
        apply::apply(db, old.as_ref(), new).await
    }
}

impl Indexer {
    async fn on(&self, db: &Db, change: &Change) -> Result<(), DbError> {
        let Some(what) = subject(change.pk(), change.sk()) else {
            return Ok(());
        };
        let own_partition = change.pk().starts_with("REPO#");
        let refile = Refile {
            cache: &self.cache,
            seq: own_partition.then_some(change.seq.as_str()),
        };
        match what {
            Subject::Issue { repo_id, index } => {
                let issue = change
                    .new
                    .clone()
                    .map(db::from_item::<IssueRecord>)
                    .transpose()?;
                refile.run(db, repo_id, index, issue).await
            }
            Subject::Comment { repo_id } => comment(db, change, repo_id).await,
            Subject::Repo { repo_id } => {
                // Issue writes move its counters all the time; only a
                // change of visibility or units, or its deletion, matters.
                let facts = |i: &Option<Item>| {
                    i.clone()
                        .map(db::from_item::<RepoStats>)
                        .transpose()
                        .map(|s| s.map(|s| (s.private, s.has_issues, s.has_pull_requests)))
                };
                let work = match (&change.old, &change.new) {
                    (Some(_), None) => Some(jobs::Work::Drop),
                    (Some(_), Some(_)) if facts(&change.old)? != facts(&change.new)? => {
                        Some(jobs::Work::Refile)
                    }
                    _ => None,
                };
                if let Some(work) = work {
                    self.cache.forget(repo_id);
                    jobs::start_repo(db, &refile, repo_id, &work).await?;
                }
                Ok(())
            }
            Subject::RepoJob { repo_id } => match &change.new {
                Some(item) => jobs::repo_step(db, &refile, repo_id, item).await,
                None => Ok(()),
            },
            Subject::RepoLabel { repo_id, id } => {
                self.cache.forget(repo_id);
                if renamed(change, "name") {
                    jobs::start_repo(db, &refile, repo_id, &jobs::Work::Label(id)).await?;
                }
                Ok(())
            }
            Subject::Milestone { repo_id, id } => {
                self.cache.forget(repo_id);
                if renamed(change, "title") {
                    jobs::start_repo(db, &refile, repo_id, &jobs::Work::Milestone(id)).await?;
                }
                Ok(())
            }
            Subject::Owner => {
                let visibility = |i: &Option<Item>| {
                    i.clone()
                        .map(db::from_item::<UserRecord>)
                        .transpose()
                        .map(|u| u.map(|u| u.visibility))
                };
                let (old, new) = (visibility(&change.old)?, visibility(&change.new)?);
                if old.is_some() && new.is_some() && old != new {
                    self.cache.clear();
                    jobs::start_owner(db, &refile, &owner_of(change), &jobs::Work::Refile).await?;
                }
                Ok(())
            }
            Subject::OwnerJob => match &change.new {
                Some(item) => jobs::owner_step(db, &refile, change.pk(), item).await,
                None => Ok(()),
            },
            Subject::OrgLabel { id } => {
                self.cache.clear();
                if renamed(change, "name") {
                    jobs::start_owner(db, &refile, &owner_of(change), &jobs::Work::Label(id))
                        .await?;
                }
                Ok(())
            }
        }
    }
}

/// The owner name of an `OWNER#` partition.
fn owner_of(change: &Change) -> String {
    change.pk().trim_start_matches("OWNER#").to_string()
}

/// Whether an existing item's `field` changed, or the item went.
fn renamed(change: &Change, field: &str) -> bool {
    match (&change.old, &change.new) {
        (Some(old), Some(new)) => db::text(old, field) != db::text(new, field),
        (Some(_), None) => true,
        _ => false,
    }
}

/// A comment's words move into or out of its issue's document.
async fn comment(db: &Db, change: &Change, repo_id: i64) -> Result<(), DbError> {
    let body = |i: &Option<Item>| -> Result<Option<CommentRecord>, DbError> {
        i.clone().map(db::from_item::<CommentRecord>).transpose()
    };
    let (old, new) = (body(&change.old)?, body(&change.new)?);
    let Some(index) = new.as_ref().or(old.as_ref()).map(|c| c.index) else {
        return Ok(());
    };
    if old.as_ref().map(|c| &c.body) == new.as_ref().map(|c| &c.body) {
        return Ok(());
    }
    let Some(current) = apply::load(db, repo_id, index).await? else {
        // The issue is gone (or not filed yet: `check-data` files it).
        return Ok(());
    };
    if current.seq.as_str() >= change.seq.as_str() {
        return Ok(());
    }
    let mut next = current.clone();
    if let Some(c) = &old {
        next.count_comment(&c.body, -1);
    }
    if let Some(c) = &new {
        next.count_comment(&c.body, 1);
    }
    next.seq = change.seq.clone();
    apply::apply(db, Some(&current), Some(next)).await
}

/// Issues of a repository by number, read fresh (`None`: gone).
pub async fn read_issues(
    db: &Db,
    repo_id: i64,
    numbers: &[i64],
) -> Result<Vec<(i64, Option<IssueRecord>)>, DbError> {
    let keys = numbers.iter().map(|n| keys::issue(repo_id, *n)).collect();
    let mut found: HashMap<i64, IssueRecord> = HashMap::new();
    for item in db.batch_get_many(keys, None, Consistency::Strong).await? {
        let i: IssueRecord = db::from_item(item)?;
        found.insert(i.index, i);
    }
    Ok(numbers.iter().map(|n| (*n, found.remove(n))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_told_apart_by_their_keys() {
        let s = |pk: &str, sk: &str| subject(pk, sk);
        assert_eq!(
            s("REPO#7", "ISSUE#00000000000000000003"),
            Some(Subject::Issue {
                repo_id: 7,
                index: 3
            })
        );
        assert_eq!(
            s("REPO#7", "COMMENT#00000000000000000009"),
            Some(Subject::Comment { repo_id: 7 })
        );
        assert_eq!(s("REPO#7", "PROFILE"), Some(Subject::Repo { repo_id: 7 }));
        assert_eq!(
            s("REPO#7", "IXJOB#refile"),
            Some(Subject::RepoJob { repo_id: 7 })
        );
        assert_eq!(
            s("REPO#7", "LABEL#00000000000000000005"),
            Some(Subject::RepoLabel { repo_id: 7, id: 5 })
        );
        assert_eq!(
            s("REPO#7", "MILESTONE#00000000000000000002"),
            Some(Subject::Milestone { repo_id: 7, id: 2 })
        );
        assert_eq!(s("OWNER#acme", "PROFILE"), Some(Subject::Owner));
        assert_eq!(s("OWNER#acme", "IXJOB#refile"), Some(Subject::OwnerJob));
        assert_eq!(
            s("OWNER#acme", "LABEL#00000000000000000004"),
            Some(Subject::OrgLabel { id: 4 })
        );
        assert_eq!(
            s("REPO#7", "IXD#00000000000000000003"),
            None,
            "documents are the index's own"
        );
        assert_eq!(s("REPO#7", "ACCESS#USER#bob"), None);
        assert_eq!(s("IX#GE#kio.1", "x"), None);
        assert_eq!(s("OWNER#acme", "REPO#web"), None);
    }
}
