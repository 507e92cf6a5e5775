//! What the consumer reads besides an issue to file it: its repository's
//! facts (owner, visibility, units), the names of the labels it may carry
//! and its milestone's title. Read once per repository per batch of
//! changes, and forgotten when a change to one of them comes by.

use std::{collections::HashMap, sync::Arc};

use super::class::RepoFacts;
use crate::{
    accounts::users::UserRecord,
    db::{self, Db, DbError, keys},
    labels::LabelRecord,
    milestones::MilestoneRecord,
    repos::{RepoRecord, RepoStats},
    stream::memo::Memo,
};

/// A repository as the index sees it, with its labels and milestones.
#[derive(Clone, Debug)]
pub struct RepoContext {
    pub facts: RepoFacts,
    pub label_names: HashMap<i64, String>,
    pub milestone_titles: HashMap<i64, String>,
}

/// Repositories read during one batch (`None`: the repository is gone).
#[derive(Default)]
pub struct Cache(Memo<i64, Option<Arc<RepoContext>>>);

impl Cache {
    /// Forgets what was read of a repository (one of its facts changed).
    pub fn forget(&self, repo_id: i64) {
        self.0.forget(&repo_id);
    }

    /// Forgets every repository (an owner's visibility or labels changed).
    pub fn clear(&self) {
        self.0.clear();
    }

    pub async fn get(&self, db: &Db, repo_id: i64) -> Result<Option<Arc<RepoContext>>, DbError> {
        self.0
            .get(repo_id, || async move {
                Ok(load(db, repo_id).await?.map(Arc::new))
            })
            .await
    }
}

/// Reads a repository's facts, labels and milestones (strongly
/// consistent: they decide what is written).
pub async fn load(db: &Db, repo_id: i64) -> Result<Option<RepoContext>, DbError> {
    let Some(stats) = db.get_as::<RepoStats>(keys::repo_stats(repo_id)).await? else {
        return Ok(None);
    };
    let repo = match stats.summary(repo_id) {
        Some(r) => r,
        // Counters written before they carried the settings.
        None => match db
            .get_as::<RepoRecord>(keys::repo_name(&stats.owner, &stats.name))
            .await?
        {
            Some(r) if r.id == repo_id => r,
            _ => return Ok(None),
        },
    };
    let repo_pk = keys::repo_pk(repo_id);
    let owner_pk = keys::owner_pk(&repo.owner);
    let (owner, repo_labels, org_labels, milestones) = tokio::try_join!(
        db.get_as::<UserRecord>(keys::owner(&repo.owner)),
        db.query_prefix(&repo_pk, keys::LABEL_PREFIX),
        db.query_prefix(&owner_pk, keys::LABEL_PREFIX),
        db.query_prefix_projected(
            &repo_pk,
            keys::MILESTONE_PREFIX,
            Some(&["id", "repo_id", "title", "created", "updated"])
        ),
    )?;
    let Some(owner) = owner else { return Ok(None) };
    let mut label_names = HashMap::new();
    for item in repo_labels.into_iter().chain(org_labels) {
        let l: LabelRecord = db::from_item(item)?;
        label_names.insert(l.id, l.name);
    }
    let mut milestone_titles = HashMap::new();
    for item in milestones {
        let m: MilestoneRecord = db::from_item(item)?;
        milestone_titles.insert(m.id, m.title);
    }
    Ok(Some(RepoContext {
        facts: RepoFacts {
            id: repo_id,
            owner: owner.lower_name(),
            private: repo.private,
            owner_visibility: owner.visibility,
            has_issues: repo.has_issues,
            has_pulls: repo.has_pull_requests,
        },
        label_names,
        milestone_titles,
    }))
}
