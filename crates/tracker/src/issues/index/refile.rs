//! Recomputing an issue's document as of one change: what the stream
//! consumer does for each issue change and what jobs do for each issue of
//! a page.

use std::collections::HashMap;

use super::{
    apply,
    context::Cache,
    doc::{self, Doc},
};
use crate::{
    db::{self, Consistency, Db, DbError, keys},
    issues::IssueRecord,
};

/// Recomputes documents, as of one change.
pub struct Refile<'a> {
    cache: &'a Cache,
    /// The change's stream position, when it comes from the documents'
    /// own partition (the repository's), whose changes arrive in order;
    /// positions of other partitions' changes are not comparable with it.
    seq: Option<&'a str>,
}

impl<'a> Refile<'a> {
    /// `seq`: the change's stream position, when it comes from the
    /// documents' own partition.
    pub fn new(cache: &'a Cache, seq: Option<&'a str>) -> Self {
        Self { cache, seq }
    }

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
        let new = self.next(db, repo_id, old.clone(), issue).await?;
        if new == old {
            return Ok(());
        }
        apply::apply(db, old.as_ref(), new, Vec::new()).await
    }

    /// What the document `filed` of an issue of a repository becomes with
    /// this change: `issue` as it now is (`None`: gone), unless `filed`
    /// already reflects this change or a later version of it.
    pub async fn next(
        &self,
        db: &Db,
        repo_id: i64,
        filed: Option<Doc>,
        issue: Option<IssueRecord>,
    ) -> Result<Option<Doc>, DbError> {
        if let (Some(d), Some(seq)) = (&filed, self.seq)
            && d.seq.as_str() >= seq
        {
            return Ok(filed);
        }
        let Some(i) = issue else {
            return Ok(None);
        };
        if filed.as_ref().is_some_and(|d| d.version > i.version) {
            return Ok(filed);
        }
        // The repository is gone: its deletion's job drops the rest.
        let Some(cx) = self.cache.get(db, repo_id).await? else {
            return Ok(None);
        };
        let context = doc::Context {
            repo: &cx.facts,
            label_names: &cx.label_names,
            milestone_title: cx.milestone_titles.get(&i.milestone).map(String::as_str),
        };
        let mut d = Doc::derive(&i, &context, filed.as_ref());
        if let Some(seq) = self.seq {
            d.seq = seq.to_string();
        }
        Ok(Some(d))
    }
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
