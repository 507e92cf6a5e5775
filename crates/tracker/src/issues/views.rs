//! Gitea's `Issue` and `PullRequest` JSON. Everything an issue refers to
//! (poster, assignees, labels, milestone) is fetched for a whole page of
//! issues in one batched read.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use super::IssueRecord;
use crate::{
    Config, Result,
    accounts::{
        users::{UserRecord, Users},
        views::User,
    },
    auth::Caller,
    db::{self, Consistency, Db, Item, keys},
    labels::{Label, LabelRecord},
    milestones::{Milestone, MilestoneRecord},
    repos::{RepoRecord, access::RepoContext, refs::RefRecord, views::Repository},
    time,
};

/// Keys to read, each once.
#[derive(Default)]
struct Wanted {
    keys: Vec<Item>,
    seen: HashSet<(String, String)>,
}

impl Wanted {
    fn add(&mut self, key: Item) {
        let id = (
            db::text(&key, "pk").to_string(),
            db::text(&key, "sk").to_string(),
        );
        if self.seen.insert(id) {
            self.keys.push(key);
        }
    }
}

/// Users, labels and milestones referred to by a set of issues.
#[derive(Default)]
pub struct Lookup {
    users: Users,
    labels: HashMap<i64, LabelRecord>,
    milestones: HashMap<(i64, i64), MilestoneRecord>,
    /// Branch heads CI reported, by repository and full ref name.
    refs: HashMap<(i64, String), String>,
}

/// The full ref name of a pull request's branch.
fn head_ref(branch: &str) -> String {
    format!("refs/heads/{branch}")
}

impl Lookup {
    /// One batched read (100 keys a call, all in flight at once) for
    /// everything `issues` refer to.
    /// A label id is looked up among the repository's labels and, when it
    /// is not one of them, the owner's (an organisation's labels): a
    /// second read, only for such ids (a key read costs a unit whether or
    /// not it is found).
    pub async fn load(
        db: &Db,
        repos: &HashMap<i64, RepoRecord>,
        issues: &[IssueRecord],
    ) -> Result<Self> {
        let mut wanted = Wanted::default();
        for i in issues {
            for u in std::iter::once(&i.poster)
                .chain(&i.assignees)
                .chain(&i.review_requested)
            {
                wanted.add(keys::owner(u));
            }
            for l in &i.labels {
                wanted.add(keys::repo_label(i.repo_id, *l));
            }
            if i.milestone != 0 {
                wanted.add(keys::milestone(i.repo_id, i.milestone));
            }
            if i.is_pull {
                for b in [&i.head, &i.base].into_iter().filter(|b| !b.is_empty()) {
                    wanted.add(keys::repo_ref(i.repo_id, &head_ref(b)));
                }
            }
        }
        let mut out = Lookup::default();
        out.read(db, wanted.keys).await?;
        let mut of_owners = Wanted::default();
        for i in issues {
            let Some(r) = repos.get(&i.repo_id) else {
                continue;
            };
            for l in i.labels.iter().filter(|l| !out.labels.contains_key(l)) {
                of_owners.add(keys::org_label(&r.owner, *l));
            }
        }
        out.read(db, of_owners.keys).await?;
        Ok(out)
    }

    /// Reads `keys` into the lookup. Strongly consistent: a label or
    /// milestone made just before the issue that carries it shows with it
    /// (see `db::Consistency`).
    async fn read(&mut self, db: &Db, wanted: Vec<Item>) -> Result<()> {
        if wanted.is_empty() {
            return Ok(());
        }
        for item in db.batch_get_many(wanted, None, Consistency::Strong).await? {
            let sk = item
                .get("sk")
                .and_then(|v| v.as_s().ok())
                .cloned()
                .unwrap_or_default();
            if sk == keys::PROFILE {
                self.users.insert(db::from_item(item)?);
            } else if sk.starts_with(keys::LABEL_PREFIX) {
                let l: LabelRecord = db::from_item(item)?;
                self.labels.insert(l.id, l);
            } else if sk.starts_with(keys::MILESTONE_PREFIX) {
                let m: MilestoneRecord = db::from_item(item)?;
                self.milestones.insert((m.repo_id, m.id), m);
            } else if sk.starts_with(keys::REF_PREFIX) {
                let repo = db::text(&item, "pk").trim_start_matches("REPO#").parse();
                let r: RefRecord = db::from_item(item)?;
                if let Ok(repo) = repo {
                    self.refs.insert((repo, r.name), r.sha);
                }
            }
        }
        Ok(())
    }

    /// A lookup of records the caller already holds (a create renders
    /// what its checks read).
    pub fn of(
        users: impl IntoIterator<Item = UserRecord>,
        labels: impl IntoIterator<Item = LabelRecord>,
        milestones: impl IntoIterator<Item = MilestoneRecord>,
    ) -> Self {
        Lookup {
            users: users.into_iter().collect(),
            labels: labels.into_iter().map(|l| (l.id, l)).collect(),
            milestones: milestones
                .into_iter()
                .map(|m| ((m.repo_id, m.id), m))
                .collect(),
            refs: HashMap::new(),
        }
    }

    /// The labels `i` carries that still exist, by name (then id), as
    /// Gitea lists them.
    fn labels_of(&self, i: &IssueRecord, config: &Config) -> Vec<Label> {
        let mut found: Vec<&LabelRecord> =
            i.labels.iter().filter_map(|l| self.labels.get(l)).collect();
        found.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
        found.into_iter().map(|l| Label::new(l, config)).collect()
    }

    /// A user, or Gitea's Ghost for one that no longer exists.
    fn user(&self, login: &str) -> UserRecord {
        self.users.get(login).clone()
    }
}

#[derive(Serialize)]
pub struct RepositoryMeta {
    pub id: i64,
    pub name: String,
    pub owner: String,
    pub full_name: String,
}

#[derive(Serialize)]
pub struct PullRequestMeta {
    pub merged: bool,
    pub merged_at: Option<String>,
    pub draft: bool,
    pub html_url: String,
}

/// Gitea's `Issue`.
#[derive(Serialize)]
pub struct Issue {
    pub id: i64,
    pub url: String,
    pub html_url: String,
    pub number: i64,
    pub user: User,
    pub original_author: String,
    pub original_author_id: i64,
    pub title: String,
    pub body: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub assets: Vec<()>,
    pub labels: Vec<Label>,
    pub milestone: Option<Milestone>,
    pub assignee: Option<User>,
    pub assignees: Option<Vec<User>>,
    pub state: &'static str,
    pub is_locked: bool,
    pub comments: i64,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    pub due_date: Option<String>,
    pub time_estimate: i64,
    pub pull_request: Option<PullRequestMeta>,
    pub repository: RepositoryMeta,
    pub pin_order: i64,
}

fn opt_time(secs: i64, config: &Config) -> Option<String> {
    (secs > 0).then(|| time::render(secs, config.display_tz))
}

impl Issue {
    pub fn new(i: &IssueRecord, repo: &RepoRecord, lookup: &Lookup, config: &Config) -> Self {
        let full = repo.full_name();
        let kind = if i.is_pull { "pulls" } else { "issues" };
        let html_url = config.url(&format!("{full}/{kind}/{}", i.index));
        let assignees: Vec<User> = i
            .assignees
            .iter()
            .map(|a| User::embedded(&lookup.user(a), config))
            .collect();
        Self {
            id: i.id,
            url: config.url(&format!("api/v1/repos/{full}/issues/{}", i.index)),
            number: i.index,
            user: User::embedded(&lookup.user(&i.poster), config),
            original_author: String::new(),
            original_author_id: 0,
            title: i.title.clone(),
            body: i.body.clone(),
            git_ref: i.git_ref.clone(),
            assets: Vec::new(),
            labels: lookup.labels_of(i, config),
            milestone: lookup
                .milestones
                .get(&(i.repo_id, i.milestone))
                .map(|m| Milestone::new(m, config)),
            assignee: i
                .assignees
                .first()
                .map(|a| User::embedded(&lookup.user(a), config)),
            assignees: (!assignees.is_empty()).then_some(assignees),
            state: if i.closed { "closed" } else { "open" },
            is_locked: i.is_locked,
            comments: i.comments,
            created_at: time::render(i.created, config.display_tz),
            updated_at: time::render(i.updated, config.display_tz),
            closed_at: if i.closed {
                opt_time(i.closed_at, config)
            } else {
                None
            },
            due_date: opt_time(i.due, config),
            time_estimate: 0,
            pull_request: i.is_pull.then(|| PullRequestMeta {
                merged: i.merged,
                merged_at: opt_time(i.merged_at, config),
                draft: false,
                html_url: html_url.clone(),
            }),
            html_url,
            repository: RepositoryMeta {
                id: repo.id,
                name: repo.name.clone(),
                owner: repo.owner.clone(),
                full_name: full,
            },
            pin_order: 0,
        }
    }

    /// Renders a page of issues of one or more repositories.
    pub async fn many(
        db: &Db,
        repos: &HashMap<i64, RepoRecord>,
        issues: &[IssueRecord],
        config: &Config,
    ) -> Result<Vec<Issue>> {
        let lookup = Lookup::load(db, repos, issues).await?;
        Ok(issues
            .iter()
            .filter_map(|i| {
                repos
                    .get(&i.repo_id)
                    .map(|r| Issue::new(i, r, &lookup, config))
            })
            .collect())
    }

    /// Renders one issue.
    pub async fn one(
        db: &Db,
        repo: &RepoRecord,
        issue: &IssueRecord,
        config: &Config,
    ) -> Result<Issue> {
        let repos = HashMap::from([(repo.id, repo.clone())]);
        let lookup = Lookup::load(db, &repos, std::slice::from_ref(issue)).await?;
        Ok(Issue::new(issue, repo, &lookup, config))
    }
}

/// A branch end of a pull request. `sha` is the head CI last reported
/// for the branch (`POST /git/refs`), empty when none was; `repo` is the
/// repository as its GET renders it (records are same-repository).
#[derive(Serialize)]
pub struct Branch {
    pub label: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    pub sha: String,
    pub repo_id: i64,
    pub repo: Value,
}

/// Gitea's `PullRequest` (the fields a record without git can fill).
#[derive(Serialize)]
pub struct PullRequest {
    pub id: i64,
    pub url: String,
    pub number: i64,
    pub user: User,
    pub title: String,
    pub body: String,
    pub labels: Vec<Label>,
    pub milestone: Option<Milestone>,
    pub assignee: Option<User>,
    pub assignees: Option<Vec<User>>,
    pub requested_reviewers: Vec<User>,
    pub state: &'static str,
    pub draft: bool,
    pub is_locked: bool,
    pub comments: i64,
    pub html_url: String,
    pub diff_url: String,
    pub patch_url: String,
    pub mergeable: bool,
    pub merged: bool,
    pub merged_at: Option<String>,
    pub merge_commit_sha: Option<String>,
    pub allow_maintainer_edit: bool,
    pub base: Branch,
    pub head: Branch,
    pub due_date: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    pub pin_order: i64,
}

impl PullRequest {
    /// Renders one pull request of `repo` (`repo_json`: its rendering).
    pub async fn one(
        db: &Db,
        repo: &RepoRecord,
        repo_json: &Value,
        pr: &IssueRecord,
        config: &Config,
    ) -> Result<PullRequest> {
        let repos = HashMap::from([(repo.id, repo.clone())]);
        let lookup = Lookup::load(db, &repos, std::slice::from_ref(pr)).await?;
        Ok(PullRequest::new(pr, repo, repo_json, &lookup, config))
    }

    /// Renders pull requests of the repository `access` resolved, for the
    /// caller: the repository's counters (for `base.repo`) and what the
    /// pulls refer to are read at once.
    pub async fn in_repo(
        db: &Db,
        access: &RepoContext,
        caller: &Caller,
        prs: &[IssueRecord],
        config: &Config,
    ) -> Result<Vec<PullRequest>> {
        let repos = HashMap::from([(access.repo.id, access.repo.clone())]);
        let (repo_json, lookup) = tokio::join!(
            Repository::rendered(db, access, caller, config),
            Lookup::load(db, &repos, prs)
        );
        let (repo_json, lookup) = (repo_json?, lookup?);
        Ok(prs
            .iter()
            .map(|p| PullRequest::new(p, &access.repo, &repo_json, &lookup, config))
            .collect())
    }

    pub fn new(
        pr: &IssueRecord,
        repo: &RepoRecord,
        repo_json: &Value,
        lookup: &Lookup,
        config: &Config,
    ) -> Self {
        let issue = Issue::new(pr, repo, lookup, config);
        let branch = |name: &str| Branch {
            label: name.to_string(),
            git_ref: name.to_string(),
            sha: lookup
                .refs
                .get(&(repo.id, head_ref(name)))
                .cloned()
                .unwrap_or_default(),
            repo_id: repo.id,
            repo: repo_json.clone(),
        };
        PullRequest {
            id: issue.id,
            url: issue.html_url.clone(),
            number: issue.number,
            user: issue.user,
            title: issue.title,
            body: issue.body,
            labels: issue.labels,
            milestone: issue.milestone,
            assignee: issue.assignee,
            assignees: issue.assignees,
            requested_reviewers: pr
                .review_requested
                .iter()
                .map(|u| User::embedded(&lookup.user(u), config))
                .collect(),
            state: issue.state,
            draft: false,
            is_locked: pr.is_locked,
            comments: pr.comments,
            diff_url: format!("{}.diff", issue.html_url),
            patch_url: format!("{}.patch", issue.html_url),
            html_url: issue.html_url,
            mergeable: !pr.merged && !pr.closed,
            merged: pr.merged,
            merged_at: issue.pull_request.and_then(|p| p.merged_at),
            merge_commit_sha: None,
            allow_maintainer_edit: pr.allow_maintainer_edit,
            base: branch(&pr.base),
            head: branch(&pr.head),
            due_date: issue.due_date,
            created_at: issue.created_at,
            updated_at: issue.updated_at,
            closed_at: issue.closed_at,
            pin_order: 0,
        }
    }
}
