//! The index's handler of the table's stream: every change to an issue, a
//! comment, a repository, an owner, a label, a milestone or a job is turned
//! into document changes ([`super::apply`]); a deleted issue also starts
//! the job that removes what it leaves ([`jobs::Work::Purge`]). Changes of one repository's
//! issues, comments and jobs share its partition, so they arrive in order;
//! each document remembers the position of the last change applied and
//! skips one delivered again.

use std::{
    collections::{HashMap, HashSet},
    sync::Mutex,
};

use futures::future::BoxFuture;

use super::{
    apply,
    context::Cache,
    doc::Doc,
    jobs, pending,
    refile::{Refile, read_issues},
};
use crate::{
    accounts::users::UserRecord,
    db::{self, Db, DbError, Item, keys},
    issues::IssueRecord,
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
/// repositories it read, and the documents it read ahead).
#[derive(Default)]
pub struct Indexer {
    cache: Cache,
    /// The batch's issues' documents, read at once before its lanes
    /// (`None`: not filed); each lane takes its own.
    docs: Mutex<HashMap<(i64, i64), Option<Doc>>>,
}

impl Handler for Indexer {
    fn name(&self) -> &'static str {
        "search-index"
    }

    fn wants(&self, change: &Change) -> bool {
        subject(change.pk(), change.sk()).is_some()
    }

    /// A comment's changes share its issue's queue: while either is
    /// parked, the other's later changes wait behind it, so a comment is
    /// neither counted before its issue is filed nor passed over.
    fn record(&self, change: &Change) -> (String, String) {
        match issue_of(change).map(|(repo_id, index)| keys::issue(repo_id, index)) {
            Some(key) => (db::text(&key, "pk").into(), db::text(&key, "sk").into()),
            None => (change.pk().to_string(), change.sk().to_string()),
        }
    }

    fn handle<'a>(&'a self, db: &'a Db, change: &'a Change) -> crate::stream::Handled<'a> {
        Box::pin(async move { Ok(self.on(db, change).await?) })
    }

    /// The documents of the batch's issues, in one read per hundred.
    fn prepare<'a>(&'a self, db: &'a Db, changes: &'a [&'a Change]) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let issues: HashSet<(i64, i64)> = changes.iter().filter_map(|c| issue_of(c)).collect();
            if issues.is_empty() {
                return;
            }
            match apply::load_many(db, &issues).await {
                Ok(docs) => *self.docs.lock().unwrap_or_else(|p| p.into_inner()) = docs,
                Err(e) => {
                    tracing::warn!(error = %e, "documents not read ahead; each lane reads its own")
                }
            }
        })
    }

    /// An issue's lane (its own and its comments' changes) at once.
    fn handle_run<'a>(
        &'a self,
        db: &'a Db,
        changes: &'a [&'a Change],
    ) -> Option<crate::stream::Handled<'a>> {
        let of_issues = changes.iter().all(|c| issue_of(c).is_some());
        of_issues.then(|| -> crate::stream::Handled<'a> {
            Box::pin(async move { Ok(self.issue_run(db, changes).await?) })
        })
    }
}

impl Indexer {
    /// One issue's changes (its own and its comments', in stream order):
    /// its document is read once, carried through each change, and written
    /// once; then the writes' marks go, and a deleted issue's leftovers
    /// start going.
    async fn issue_run(&self, db: &Db, changes: &[&Change]) -> Result<(), DbError> {
        let Some((repo_id, index)) = changes.first().and_then(|c| issue_of(c)) else {
            return Ok(());
        };
        let ahead = self
            .docs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&(repo_id, index));
        if let Some(filed) = ahead {
            match self.file(db, changes, repo_id, index, filed).await {
                // Rewritten since it was read ahead (a job of the batch):
                // read it again.
                Err(e) if e.failed_condition().is_some() => {}
                done => return done,
            }
        }
        let filed = apply::load(db, repo_id, index).await?;
        self.file(db, changes, repo_id, index, filed).await
    }

    /// [`Self::issue_run`] from the document `filed`, as read.
    async fn file(
        &self,
        db: &Db,
        changes: &[&Change],
        repo_id: i64,
        index: i64,
        filed: Option<Doc>,
    ) -> Result<(), DbError> {
        let mut now = filed.clone();
        let mut writes = Vec::new();
        let mut deleted = None;
        for &change in changes {
            let refile = Refile::new(&self.cache, Some(change.seq.as_str()));
            if change.sk().starts_with(keys::COMMENT_PREFIX) {
                now = comment(db, &refile, change, repo_id, now).await?;
                continue;
            }
            let issue = change
                .new
                .clone()
                .map(db::from_item::<IssueRecord>)
                .transpose()?;
            if issue.is_none() {
                deleted = change.old.as_ref().map(|old| (change, old));
            }
            now = refile.next(db, repo_id, now, issue).await?;
            writes.push(change);
        }
        // The index holds these writes once the document is written: their
        // marks go with it, and listings read the index for them.
        let marks = pending::marks(db, &writes, repo_id, index).await?;
        if now != filed {
            apply::apply(db, filed.as_ref(), now, marks).await?;
        } else {
            pending::clear(db, marks).await?;
        }
        if let Some((change, old)) = deleted {
            // Deleted: what it leaves goes, a page at a time.
            let comments = db::number(old, "comments").max(0);
            let work = jobs::Work::Purge { index, comments };
            let refile = Refile::new(&self.cache, Some(change.seq.as_str()));
            jobs::start_repo(db, &refile, repo_id, &work).await?;
        }
        Ok(())
    }

    async fn on(&self, db: &Db, change: &Change) -> Result<(), DbError> {
        let Some(what) = subject(change.pk(), change.sk()) else {
            return Ok(());
        };
        let own_partition = change.pk().starts_with("REPO#");
        let refile = Refile::new(&self.cache, own_partition.then_some(change.seq.as_str()));
        match what {
            Subject::Issue { .. } | Subject::Comment { .. } => self.issue_run(db, &[change]).await,
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

/// `now`, the document of a comment's issue, with the comment's words
/// moved in or out by its change.
async fn comment(
    db: &Db,
    refile: &Refile<'_>,
    change: &Change,
    repo_id: i64,
    now: Option<Doc>,
) -> Result<Option<Doc>, DbError> {
    let (old, new) = (body(&change.old), body(&change.new));
    let Some(index) = new.or(old).map(|(index, _)| index) else {
        return Ok(now);
    };
    if old.map(|(_, b)| b) == new.map(|(_, b)| b) {
        return Ok(now);
    }
    let mut d = match now {
        Some(d) => d,
        None => {
            // Not filed yet, or gone: filed now as it is.
            let issue = read_issues(db, repo_id, &[index])
                .await?
                .pop()
                .and_then(|(_, issue)| issue);
            match refile.next(db, repo_id, None, issue).await? {
                Some(d) => d,
                None => return Ok(None),
            }
        }
    };
    let counted = match d.cseq.as_str() {
        "" => d.seq.as_str(),
        cseq => cseq,
    };
    if counted >= change.seq.as_str() {
        return Ok(Some(d));
    }
    if let Some((_, body)) = old {
        d.count_comment(body, -1);
    }
    if let Some((_, body)) = new {
        d.count_comment(body, 1);
    }
    d.cseq = change.seq.clone();
    Ok(Some(d))
}

/// The issue (repository, number) a change is about, for an issue's or a
/// comment's change.
fn issue_of(change: &Change) -> Option<(i64, i64)> {
    match subject(change.pk(), change.sk())? {
        Subject::Issue { repo_id, index } => Some((repo_id, index)),
        Subject::Comment { repo_id } => body(&change.new)
            .or(body(&change.old))
            .map(|(index, _)| (repo_id, index)),
        _ => None,
    }
}

/// A comment's issue number and body, as its image has them.
fn body(image: &Option<Item>) -> Option<(i64, &str)> {
    image
        .as_ref()
        .map(|i| (db::number(i, "index"), db::text(i, "body")))
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

    #[test]
    fn a_comments_changes_keep_order_with_its_issues() {
        let change = |sk: &str, index: Option<i64>| {
            let image = index.map(|n| {
                let mut i = keys::key("REPO#7", sk);
                i.insert("index".into(), db::n(n));
                i
            });
            Change {
                seq: crate::stream::pad_seq("1"),
                kind: crate::stream::ChangeKind::Remove,
                keys: keys::key("REPO#7", sk),
                old: image,
                new: None,
                at_ms: 0,
            }
        };
        let issue = keys::issue(7, 3);
        let issue = (
            db::text(&issue, "pk").to_string(),
            db::text(&issue, "sk").to_string(),
        );
        let indexer = Indexer::default();
        assert_eq!(
            indexer.record(&change("COMMENT#00000000000000000009", Some(3))),
            issue
        );
        assert_eq!(indexer.record(&change(&issue.1, Some(3))), issue);
        // Anything else keeps its own order.
        assert_eq!(
            indexer.record(&change("LABEL#00000000000000000005", None)),
            (
                "REPO#7".to_string(),
                "LABEL#00000000000000000005".to_string()
            )
        );
    }
}
