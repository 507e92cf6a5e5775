//! Re-indexing jobs: what a change to a repository, an owner, a label or a
//! milestone asks of many issues at once (a repository made private moves
//! every issue to another audience; a renamed label is filed under its new
//! name), and the clean-up of what a deleted issue leaves (its comments
//! and dependencies, [`super::purge`]). A job is one item; the consumer does one page of its work each
//! time the item changes, and each page ends by writing the item again
//! with where the next page starts, so the table's stream carries the job
//! to its end a page at a time, however large, on AWS as under `make dev`.
//! The first page runs at once, with the change that asked for the job, so
//! a small repository is done in one go; only a larger one leaves the item
//! (`cursor`: where to go on). Starting a job again (another change
//! meanwhile) bumps its generation: a page of the older run then neither
//! advances nor ends it, and the job restarts from the beginning.

use super::{
    lists::{self, Scope},
    purge,
    refile::{self, Refile},
};
use crate::{
    db::{
        self, Change, Cond, Consistency, Db, DbError, Item, Query, Returns, keys,
        table::{PK, SK},
    },
    issues::IssueRecord,
};

/// Issues per page of a repository's job.
const PAGE: i32 = 50;

/// Repositories per page of an owner's job (each does a page at once).
const OWNER_PAGE: i32 = 10;

/// What a job does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// Recompute every document of the repository (its audience changed).
    Refile,
    /// Remove every document of the repository (it was deleted).
    Drop,
    /// Recompute the documents of the issues carrying a label.
    Label(i64),
    /// Recompute the documents of the issues in a milestone.
    Milestone(i64),
    /// Remove what a deleted issue leaves ([`purge`]): its
    /// number and how many comments it counted.
    Purge { index: i64, comments: i64 },
}

impl Work {
    fn name(&self) -> String {
        match self {
            Work::Refile => "refile".into(),
            Work::Drop => "drop".into(),
            Work::Label(id) => format!("label-{id}"),
            Work::Milestone(id) => format!("milestone-{id}"),
            Work::Purge { index, comments } => format!("purge-{index}-{comments}"),
        }
    }

    pub fn parse(name: &str) -> Option<Work> {
        let id = |rest: &str| rest.parse().ok();
        if let Some((index, comments)) = name
            .strip_prefix("purge-")
            .and_then(|rest| rest.split_once('-'))
        {
            return Some(Work::Purge {
                index: index.parse().ok()?,
                comments: comments.parse().ok()?,
            });
        }
        match name {
            "refile" => Some(Work::Refile),
            "drop" => Some(Work::Drop),
            _ => name
                .strip_prefix("label-")
                .and_then(id)
                .map(Work::Label)
                .or_else(|| {
                    name.strip_prefix("milestone-")
                        .and_then(id)
                        .map(Work::Milestone)
                }),
        }
    }
}

/// Starts (or restarts) a job on one repository, and does its first page.
pub async fn start_repo(
    db: &Db,
    refile: &Refile<'_>,
    repo_id: i64,
    work: &Work,
) -> Result<(), DbError> {
    let step = start(db, keys::index_repo_job(repo_id, &work.name()), work).await?;
    repo_page(db, refile, repo_id, step).await
}

/// Starts (or restarts) a job on every repository of an owner, and does
/// its first page.
pub async fn start_owner(
    db: &Db,
    refile: &Refile<'_>,
    owner: &str,
    work: &Work,
) -> Result<(), DbError> {
    let step = start(db, keys::index_owner_job(owner, &work.name()), work).await?;
    owner_page(db, refile, &keys::owner_pk(owner), step).await
}

/// A new generation of a job, at its beginning. The item holds no cursor
/// until the first page is done: its change carries nothing to do.
async fn start(db: &Db, key: Item, work: &Work) -> Result<Step, DbError> {
    let change = Change::new().remove("cursor").add("generation", db::n(1));
    let out = db
        .change(key.clone(), change, None, Returns::UpdatedNew)
        .await?;
    Ok(Step {
        key,
        work: work.clone(),
        generation: out.as_ref().map_or(1, |i| db::number(i, "generation")),
        cursor: String::new(),
    })
}

/// Where a job stands.
struct Step {
    key: Item,
    work: Work,
    generation: i64,
    cursor: String,
}

impl Step {
    /// A job's item as its change shows it, when it has a page to do.
    fn of(item: &Item, prefix: &str) -> Option<Step> {
        let sk = db::text(item, "sk");
        let work = Work::parse(sk.strip_prefix(prefix)?)?;
        let cursor = match item.get("cursor") {
            Some(db::Value::S(c)) => c.clone(),
            _ => return None,
        };
        Some(Step {
            key: keys::key(db::text(item, "pk"), sk),
            work,
            generation: db::number(item, "generation"),
            cursor,
        })
    }

    /// Moves the job on to `next`, or ends it; a newer generation wins.
    async fn finish(self, db: &Db, next: Option<String>) -> Result<(), DbError> {
        let current = Cond::eq("generation", db::n(self.generation));
        let done = match next {
            Some(cursor) => db
                .change(
                    self.key,
                    Change::new().set("cursor", db::s(cursor)),
                    Some(current),
                    Returns::Nothing,
                )
                .await
                .map(|_| ()),
            None => db.delete_when(self.key, current).await,
        };
        match done {
            Err(DbError::ConditionFailed) => Ok(()),
            other => other,
        }
    }
}

/// The next page of a repository's job, as its item's change shows it.
pub async fn repo_step(
    db: &Db,
    refile: &Refile<'_>,
    repo_id: i64,
    item: &Item,
) -> Result<(), DbError> {
    match Step::of(item, keys::INDEX_JOB_PREFIX) {
        Some(step) => repo_page(db, refile, repo_id, step).await,
        None => Ok(()),
    }
}

/// The next page of an owner's job, as its item's change shows it.
pub async fn owner_step(
    db: &Db,
    refile: &Refile<'_>,
    owner_pk: &str,
    item: &Item,
) -> Result<(), DbError> {
    match Step::of(item, keys::INDEX_JOB_PREFIX) {
        Some(step) => owner_page(db, refile, owner_pk, step).await,
        None => Ok(()),
    }
}

/// One page of a repository's job.
async fn repo_page(db: &Db, refile: &Refile<'_>, repo_id: i64, step: Step) -> Result<(), DbError> {
    let (numbers, next) = match &step.work {
        Work::Purge { index, comments } => {
            let next = purge::page(db, repo_id, *index, *comments, &step.cursor).await?;
            return step.finish(db, next).await;
        }
        Work::Refile | Work::Drop => {
            page(
                db,
                &keys::repo_pk(repo_id),
                Some(keys::INDEX_DOC_PREFIX),
                &step.cursor,
            )
            .await?
        }
        Work::Label(id) => {
            let pk = lists::list_pk(&Scope::Repo(repo_id), &lists::label_id_term(*id), None);
            page(db, &pk, None, &step.cursor).await?
        }
        Work::Milestone(id) => {
            let pk = lists::list_pk(&Scope::Repo(repo_id), &lists::milestone_id_term(*id), None);
            page(db, &pk, None, &step.cursor).await?
        }
    };
    let issues: Vec<(i64, Option<IssueRecord>)> = if step.work == Work::Drop {
        numbers.iter().map(|n| (*n, None)).collect()
    } else {
        refile::read_issues(db, repo_id, &numbers).await?
    };
    for (number, issue) in issues {
        refile.run(db, repo_id, number, issue).await?;
    }
    step.finish(db, next).await
}

/// One page of an owner's job: starts the same job on a page of the
/// owner's repositories (each doing its own first page at once).
async fn owner_page(
    db: &Db,
    refile: &Refile<'_>,
    owner_pk: &str,
    step: Step,
) -> Result<(), DbError> {
    let q = Query::table(owner_pk)
        .prefix(keys::REPO_NAME_PREFIX)
        .fields(&[PK, SK, "id"])
        .limit(OWNER_PAGE)
        .consistency(Consistency::Eventual)
        .after(after(owner_pk, &step.cursor));
    let out = db.query_page(q).await?;
    for item in out.items {
        let id = db::number(&item, "id");
        if id != 0 {
            start_repo(db, refile, id, &step.work).await?;
        }
    }
    let next = out.next.map(|k| db::text(&k, SK).to_string());
    step.finish(db, next).await
}

fn after(pk: &str, cursor: &str) -> Option<Item> {
    (!cursor.is_empty()).then(|| keys::key(pk, cursor))
}

/// A page of issue numbers from `pk` after `cursor`: from documents'
/// sort keys (`prefix`) or listing entries (the number ends the key).
async fn page(
    db: &Db,
    pk: &str,
    prefix: Option<&str>,
    cursor: &str,
) -> Result<(Vec<i64>, Option<String>), DbError> {
    let mut q = Query::table(pk)
        .fields(&[PK, SK])
        .limit(PAGE)
        .consistency(Consistency::Eventual)
        .after(after(pk, cursor));
    if let Some(p) = prefix {
        q = q.prefix(p);
    }
    let out = db.query_page(q).await?;
    let numbers = out
        .items
        .iter()
        .filter_map(|i| match i.get("sk") {
            Some(db::Value::S(sk)) => sk.rsplit('#').next()?.parse().ok(),
            _ => None,
        })
        .collect();
    let next = out.next.map(|k| db::text(&k, SK).to_string());
    Ok((numbers, next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_names_round_trip() {
        for w in [
            Work::Refile,
            Work::Drop,
            Work::Label(5),
            Work::Milestone(12),
            Work::Purge {
                index: 7,
                comments: 600,
            },
        ] {
            assert_eq!(Work::parse(&w.name()), Some(w));
        }
        assert_eq!(Work::parse("label-x"), None);
        assert_eq!(Work::parse("other"), None);
        assert_eq!(Work::parse("purge-7"), None);
    }
}
