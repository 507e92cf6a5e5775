//! The body of a delivery, in Gitea's shapes (`modules/structs/hook.go`):
//! `IssuePayload`, `IssueCommentPayload` and `PullRequestPayload`, made of
//! the API's own views (the repository as its owner sees it, as Gitea's
//! notifier renders it; users as embedded, without e-mail addresses).
//! Rendered once per event and stored, so every hook and every attempt
//! sends the same bytes.

use serde::Serialize;

use super::happened::{Changes, Detail, Happening, Subject};
use crate::{
    Config,
    accounts::{users::UserRecord, views::User},
    db::{Db, DbError, keys},
    issues::{
        self, IssueRecord,
        comments::views::Comment,
        views::{Issue, PullRequest},
    },
    repos::{RepoRecord, RepoStats, access::Permission, views::Repository},
};

/// The most bytes a stored payload takes (DynamoDB's items end at 400 KB).
/// A comment's payload carries its issue too: past this, the issue's body
/// is left out (the comment's never is: comments and bodies are each
/// bounded well below it).
pub const MAX_PAYLOAD_BYTES: usize = 300 * 1024;

/// A repository as payloads show it.
#[derive(Clone, Debug)]
pub struct RepoFacts {
    pub repo: RepoRecord,
    pub stats: RepoStats,
    pub owner: UserRecord,
}

impl RepoFacts {
    /// A repository as a record has it (one that is gone, or just made),
    /// with its owner read (`None`: the owner is gone too).
    pub async fn of(db: &Db, repo: RepoRecord) -> Result<Option<RepoFacts>, DbError> {
        let owner = db.get_as::<UserRecord>(keys::owner(&repo.owner)).await?;
        Ok(owner.map(|owner| RepoFacts {
            repo,
            stats: RepoStats::default(),
            owner,
        }))
    }

    /// Reads repository `id` (`None`: it is gone).
    pub async fn load(db: &Db, id: i64) -> Result<Option<RepoFacts>, DbError> {
        let Some(stats) = db.get_as::<RepoStats>(keys::repo_stats(id)).await? else {
            return Ok(None);
        };
        let (repo, owner) = tokio::try_join!(
            db.get_as::<RepoRecord>(keys::repo_name(&stats.owner, &stats.name)),
            db.get_as::<UserRecord>(keys::owner(&stats.owner)),
        )?;
        Ok(match (repo, owner) {
            (Some(repo), Some(owner)) if repo.id == id => Some(RepoFacts { repo, stats, owner }),
            _ => None,
        })
    }
}

#[derive(Serialize)]
struct IssuePayload<'a> {
    action: &'a str,
    number: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<&'a Changes>,
    issue: Issue,
    repository: Repository,
    sender: User,
    commit_id: &'a str,
}

#[derive(Serialize)]
struct PullRequestPayload<'a> {
    action: &'a str,
    number: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<&'a Changes>,
    pull_request: PullRequest,
    #[serde(skip_serializing_if = "Option::is_none")]
    requested_reviewer: Option<User>,
    repository: Repository,
    sender: User,
    commit_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<ReviewPayload<'a>>,
}

/// Gitea's `ReviewPayload`.
#[derive(Serialize)]
struct ReviewPayload<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
struct RepositoryPayload<'a> {
    action: &'a str,
    repository: Repository,
    /// Gitea sends the owner here, organisation or user.
    organization: User,
    sender: User,
}

#[derive(Serialize)]
struct IssueCommentPayload<'a> {
    action: &'a str,
    issue: Issue,
    #[serde(skip_serializing_if = "Option::is_none")]
    pull_request: Option<PullRequest>,
    comment: Comment,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<&'a Changes>,
    repository: Repository,
    sender: User,
    is_pull: bool,
}

/// Renders `h`'s payload as JSON bytes (`None` is kept for subjects a
/// later release may find gone).
pub async fn render(
    db: &Db,
    config: &Config,
    facts: &RepoFacts,
    h: &Happening,
) -> Result<Option<Vec<u8>>, crate::Error> {
    let repository = Repository::new(
        &facts.repo,
        &facts.owner,
        &facts.stats,
        &Permission::full(),
        &crate::auth::Caller::Anonymous,
        config,
    );
    let sender = sender(db, config, h).await?;
    // A pull request's `base.repo` and `head.repo`.
    let repo_json = || {
        serde_json::to_value(&repository)
            .map_err(|e| crate::Error::Internal(format!("a repository did not render: {e}")))
    };
    let json = match &h.subject {
        Subject::Repo(_) => serde_json::to_vec(&RepositoryPayload {
            action: h.action,
            repository,
            organization: User::embedded(&facts.owner, config),
            sender,
        }),
        Subject::Issue(issue) if issue.is_pull => {
            let requested_reviewer = match &h.detail {
                Some(Detail::Reviewer(login)) => Some(user(db, config, login).await?),
                _ => None,
            };
            let review = match &h.detail {
                Some(Detail::Review { kind, content }) => Some(ReviewPayload {
                    kind: kind.name(),
                    content,
                }),
                _ => None,
            };
            serde_json::to_vec(&PullRequestPayload {
                action: h.action,
                number: issue.index,
                changes: h.changes.as_ref(),
                pull_request: PullRequest::one(db, &facts.repo, &repo_json()?, issue, config)
                    .await?,
                requested_reviewer,
                repository,
                sender,
                commit_id: "",
                review,
            })
        }
        Subject::Issue(issue) => serde_json::to_vec(&IssuePayload {
            action: h.action,
            number: issue.index,
            changes: h.changes.as_ref(),
            issue: Issue::one(db, &facts.repo, issue, config).await?,
            repository,
            sender,
            commit_id: "",
        }),
        Subject::Comment(comment) => {
            // The issue as it is now; one deleted since is shown by its
            // number alone, so the comment's event is not lost.
            let issue = issues::get(db, comment.repo_id, comment.index)
                .await?
                .unwrap_or_else(|| IssueRecord {
                    repo_id: comment.repo_id,
                    index: comment.index,
                    is_pull: comment.is_pull,
                    closed: true,
                    ..IssueRecord::default()
                });
            let pull_request = match issue.is_pull {
                true => {
                    Some(PullRequest::one(db, &facts.repo, &repo_json()?, &issue, config).await?)
                }
                false => None,
            };
            let mut payload = IssueCommentPayload {
                action: h.action,
                issue: Issue::one(db, &facts.repo, &issue, config).await?,
                pull_request,
                comment: Comment::one(db, &facts.repo, comment, config).await?,
                changes: h.changes.as_ref(),
                repository,
                sender,
                is_pull: issue.is_pull,
            };
            match serde_json::to_vec(&payload) {
                Ok(json) if json.len() > MAX_PAYLOAD_BYTES => {
                    payload.issue.body.clear();
                    if let Some(p) = payload.pull_request.as_mut() {
                        p.body.clear();
                    }
                    serde_json::to_vec(&payload)
                }
                rendered => rendered,
            }
        }
    }
    .map_err(|e| crate::Error::Internal(format!("a webhook payload did not render: {e}")))?;
    Ok(Some(json))
}

/// Who did it: the change's actor, else (records from before actors were
/// kept) the poster; Gitea's Ghost when that user is gone.
async fn sender(db: &Db, config: &Config, h: &Happening) -> Result<User, DbError> {
    let login = match (&h.actor, &h.subject) {
        (Some(a), _) => a.name.clone(),
        (None, Subject::Issue(i)) => i.poster.clone(),
        (None, Subject::Comment(c)) => c.poster.clone(),
        (None, Subject::Repo(r)) => r.owner.clone(),
    };
    user(db, config, &login).await
}

/// A user as payloads embed them; Gitea's Ghost when they are gone.
async fn user(db: &Db, config: &Config, login: &str) -> Result<User, DbError> {
    let user = db
        .get_as::<UserRecord>(keys::owner(login))
        .await?
        .unwrap_or_else(UserRecord::ghost);
    Ok(User::embedded(&user, config))
}
