//! What the seeding keeps between its steps: the repositories and `STATE`.

use serde::{Deserialize, Serialize};
use shared::{
    accounts::names::Visibility,
    db::{self, DbError, Item, keys},
    issues::index::class::RepoFacts,
    repos::RepoStats,
};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Repo {
    pub(crate) id: i64,
    pub(crate) owner: String,
    pub(crate) name: String,
    pub(crate) private: bool,
    pub(crate) labels: Vec<(i64, String)>,
    pub(crate) milestones: Vec<(i64, String)>,
    pub(crate) last_index: i64,
    pub(crate) issues: i64,
    pub(crate) closed_issues: i64,
    pub(crate) pulls: i64,
    pub(crate) closed_pulls: i64,
    pub(crate) issue_comments: i64,
    pub(crate) pull_comments: i64,
}

impl Repo {
    pub(crate) fn stats_item(&self) -> Result<Item, DbError> {
        let stats = RepoStats {
            num_issues: self.issues,
            num_closed_issues: self.closed_issues,
            num_pulls: self.pulls,
            num_closed_pulls: self.closed_pulls,
            last_index: self.last_index,
            num_issue_comments: self.issue_comments,
            num_pull_comments: self.pull_comments,
            owner: self.owner.clone(),
            name: self.name.clone(),
            private: Some(self.private),
            has_issues: Some(true),
            has_pull_requests: Some(true),
            ..RepoStats::default()
        };
        let mut item = db::to_item(&stats)?;
        item.extend(keys::repo_stats(self.id));
        Ok(item)
    }

    pub(crate) fn facts(&self) -> RepoFacts {
        RepoFacts {
            id: self.id,
            owner: self.owner.clone(),
            private: self.private,
            owner_visibility: Visibility::Public,
            has_issues: true,
            has_pulls: true,
        }
    }
}

/// What `setup` and each point leave for the next and for `scale.py`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct State {
    pub(crate) now: i64,
    pub(crate) point: usize,
    pub(crate) rng: u64,
    /// `since` (recent) and `before` (old) as the bench asks them.
    pub(crate) since: i64,
    pub(crate) before: i64,
    pub(crate) vocabulary: Vec<String>,
    pub(crate) common_word: String,
    pub(crate) common_share: f64,
    pub(crate) rare_word: String,
    pub(crate) owners: Vec<String>,
    pub(crate) filter_owner: String,
    pub(crate) user: String,
    pub(crate) user500: String,
    pub(crate) team_org: String,
    pub(crate) team: String,
    pub(crate) team_repos: Vec<String>,
    pub(crate) private_org: String,
    pub(crate) private_team: String,
    pub(crate) repos: Vec<Repo>,
    pub(crate) private_repos: Vec<Repo>,
    pub(crate) small: usize,
    pub(crate) big: usize,
    /// Items written and seconds taken, per step.
    pub(crate) steps: Vec<(String, u64, f64)>,
}
