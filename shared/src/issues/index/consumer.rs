//! The index's handler of the table's stream: every change to an issue, a
//! comment, a repository, an owner, a label, a milestone or a job is turned
//! into document changes ([`super::apply`]); a deleted issue also starts
//! the job that removes what it leaves ([`jobs::Work::Purge`]). Changes of one repository's
//! issues, comments and jobs share its partition, so they arrive in order;
//! each document remembers the position of the last change applied and
//! skips one delivered again.

use futures::future::BoxFuture;

use super::{
    apply,
    context::Cache,
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

    /// A comment's changes share its issue's queue: while either is
    /// parked, the other's later changes wait behind it, so a comment is
    /// neither counted before its issue is filed nor passed over.
    fn record(&self, change: &Change) -> (String, String) {
        let of_issue = match subject(change.pk(), change.sk()) {
            Some(Subject::Comment { repo_id }) => body(&change.new)
                .or(body(&change.old))
                .map(|(index, _)| keys::issue(repo_id, index)),
            _ => None,
        };
        match of_issue {
            Some(key) => (db::text(&key, "pk").into(), db::text(&key, "sk").into()),
            None => (change.pk().to_string(), change.sk().to_string()),
        }
    }

    /// An issue's write is passed over for a later write of it in the same
    /// batch by the same writer: documents are derived from the later
    /// image, and the later write's marks replaced this one's (a delete,
    /// and another writer's write, which leaves this writer's mark, are
    /// not such).
    fn superseded_by(&self, change: &Change, later: &Change) -> bool {
        let is_issue = matches!(
            subject(change.pk(), change.sk()),
            Some(Subject::Issue { .. })
        );
        match (&change.new, &later.new) {
            (Some(now), Some(next)) => {
                is_issue
                    && change.keys == later.keys
                    && db::text(now, pending::WRITER) == db::text(next, pending::WRITER)
            }
            _ => false,
        }
    }

    fn handle<'a>(
        &'a self,
        db: &'a Db,
        change: &'a Change,
    ) -> BoxFuture<'a, Result<(), crate::Error>> {
        Box::pin(async move { Ok(self.on(db, change).await?) })
    }
}

impl Indexer {
    async fn on(&self, db: &Db, change: &Change) -> Result<(), DbError> {
        let Some(what) = subject(change.pk(), change.sk()) else {
            return Ok(());
        };
        let own_partition = change.pk().starts_with("REPO#");
        let refile = Refile::new(&self.cache, own_partition.then_some(change.seq.as_str()));
        match what {
            Subject::Issue { repo_id, index } => {
                let issue = change
                    .new
                    .clone()
                    .map(db::from_item::<IssueRecord>)
                    .transpose()?;
                let deleted = issue.is_none();
                refile.run(db, repo_id, index, issue).await?;
                if let (Some(old), true) = (&change.old, deleted) {
                    // Deleted: what it leaves goes, a page at a time.
                    let comments = db::number(old, "comments").max(0);
                    let work = jobs::Work::Purge { index, comments };
                    jobs::start_repo(db, &refile, repo_id, &work).await?;
                }
                // The index holds this write now: listings may read it there.
                pending::clear(db, change, repo_id, index).await
            }
            Subject::Comment { repo_id } => comment(db, &refile, change, repo_id).await,
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
async fn comment(
    db: &Db,
    refile: &Refile<'_>,
    change: &Change,
    repo_id: i64,
) -> Result<(), DbError> {
    let (old, new) = (body(&change.old), body(&change.new));
    let Some(index) = new.or(old).map(|(index, _)| index) else {
        return Ok(());
    };
    if old.map(|(_, b)| b) == new.map(|(_, b)| b) {
        return Ok(());
    }
    let current = match apply::load(db, repo_id, index).await? {
        Some(d) => d,
        None => {
            // Not filed yet (its issue's writes in this batch were passed
            // over for a later one): filed now as it is, or gone.
            let issue = read_issues(db, repo_id, &[index])
                .await?
                .pop()
                .and_then(|(_, issue)| issue);
            if issue.is_none() {
                return Ok(());
            }
            refile.run(db, repo_id, index, issue).await?;
            let Some(d) = apply::load(db, repo_id, index).await? else {
                return Ok(());
            };
            d
        }
    };
    let counted = match current.cseq.as_str() {
        "" => current.seq.as_str(),
        cseq => cseq,
    };
    if counted >= change.seq.as_str() {
        return Ok(());
    }
    let mut next = current.clone();
    if let Some((_, body)) = old {
        next.count_comment(body, -1);
    }
    if let Some((_, body)) = new {
        next.count_comment(body, 1);
    }
    next.cseq = change.seq.clone();
    apply::apply(db, Some(&current), Some(next)).await
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
        // A later write of the issue by the same writer supersedes one.
        let write = |seq: &str, writer: Option<&str>| {
            let image = writer.map(|w| {
                let mut i = keys::issue(7, 3);
                i.insert(pending::WRITER.into(), db::s(w));
                i
            });
            Change {
                seq: crate::stream::pad_seq(seq),
                kind: crate::stream::ChangeKind::Modify,
                keys: keys::issue(7, 3),
                old: Some(keys::issue(7, 3)),
                new: image,
                at_ms: 0,
            }
        };
        let (first, again) = (write("1", Some("ann")), write("2", Some("ann")));
        assert!(indexer.superseded_by(&first, &again));
        assert!(
            !indexer.superseded_by(&first, &write("2", Some("bob"))),
            "ann's mark of the first write stays: it is cleared by its own change"
        );
        assert!(
            !indexer.superseded_by(&first, &write("2", None)),
            "a delete"
        );
        let comment = change("COMMENT#00000000000000000009", Some(3));
        assert!(!indexer.superseded_by(&comment, &comment));
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
