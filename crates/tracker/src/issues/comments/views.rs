//! Gitea's `Comment` JSON and the request bodies of the comment and lock
//! routes. Unlike the rest of the tracker's bodies, these refuse unknown
//! fields: each has one or two, and a misspelt `body` would otherwise be a
//! blank comment's 422 with a less useful message.

use serde::{Deserialize, Serialize};

use super::model::CommentRecord;
use crate::{
    Config, Result,
    accounts::{
        users::{UserRecord, users_of},
        views::User,
    },
    db::Db,
    repos::RepoRecord,
    time,
};

/// Gitea's `CreateIssueCommentOption`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateIssueCommentOption {
    pub body: String,
}

/// Gitea's `EditIssueCommentOption`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditIssueCommentOption {
    pub body: String,
}

/// Gitea's `LockIssueOption`.
#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockIssueOption {
    #[serde(default)]
    pub lock_reason: Option<String>,
}

/// Gitea's `Comment`, fields in its order.
#[derive(Serialize)]
pub struct Comment {
    pub id: i64,
    pub html_url: String,
    /// The pull request's web page for comments on pull requests, else "".
    pub pull_request_url: String,
    /// The issue's web page for comments on issues, else "".
    pub issue_url: String,
    pub user: User,
    pub original_author: String,
    pub original_author_id: i64,
    pub body: String,
    pub assets: Vec<()>,
    pub created_at: String,
    pub updated_at: String,
}

impl Comment {
    pub fn new(c: &CommentRecord, repo: &RepoRecord, poster: &UserRecord, config: &Config) -> Self {
        let kind = if c.is_pull { "pulls" } else { "issues" };
        let page = config.url(&format!("{}/{kind}/{}", repo.full_name(), c.index));
        let (issue_url, pull_request_url) = if c.is_pull {
            (String::new(), page.clone())
        } else {
            (page.clone(), String::new())
        };
        Self {
            id: c.id,
            html_url: format!("{page}#issuecomment-{}", c.id),
            pull_request_url,
            issue_url,
            // Gitea builds the poster without a viewer (placeholder e-mail).
            user: User::embedded(poster, config),
            original_author: String::new(),
            original_author_id: 0,
            body: c.body.clone(),
            assets: Vec::new(),
            created_at: time::render(c.created, config.display_tz),
            updated_at: time::render(c.updated, config.display_tz),
        }
    }

    /// Renders comments of one repository, their authors read in one
    /// batched read (100 keys a call, all at once); an author who no longer
    /// exists is Gitea's Ghost.
    pub async fn many(
        db: &Db,
        repo: &RepoRecord,
        comments: &[CommentRecord],
        config: &Config,
    ) -> Result<Vec<Comment>> {
        let users = users_of(db, comments.iter().map(|c| c.poster.as_str())).await?;
        Ok(comments
            .iter()
            .map(|c| Comment::new(c, repo, users.get(&c.poster), config))
            .collect())
    }

    pub async fn one(
        db: &Db,
        repo: &RepoRecord,
        comment: &CommentRecord,
        config: &Config,
    ) -> Result<Comment> {
        let mut all = Self::many(db, repo, std::slice::from_ref(comment), config).await?;
        all.pop()
            .ok_or_else(|| crate::Error::Internal("a comment rendered to nothing".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_follow_the_kind() {
        let config =
            Config::from_lookup(|k| (k == "ROOT_URL").then(|| "http://h.test/".to_string()))
                .unwrap();
        let repo = RepoRecord {
            id: 1,
            owner: "Ann".into(),
            name: "web".into(),
            description: String::new(),
            website: String::new(),
            private: false,
            archived: false,
            archived_at: 0,
            has_issues: true,
            has_pull_requests: true,
            enable_issue_dependencies: true,
            enable_time_tracker: true,
            allow_only_contributors_to_track_time: true,
            default_branch: "main".into(),
            created: 0,
            updated: 0,
            topics: Default::default(),
        };
        let mut c = CommentRecord {
            id: 9,
            repo_id: 1,
            index: 4,
            poster: "ann".into(),
            body: "hi".into(),
            created: 0,
            updated: 60,
            ..CommentRecord::default()
        };
        let v =
            serde_json::to_value(Comment::new(&c, &repo, &UserRecord::ghost(), &config)).unwrap();
        assert_eq!(
            v["html_url"],
            "http://h.test/Ann/web/issues/4#issuecomment-9"
        );
        assert_eq!(v["issue_url"], "http://h.test/Ann/web/issues/4");
        assert_eq!(v["pull_request_url"], "");
        assert_eq!(v["assets"], serde_json::json!([]));
        assert_eq!(v["updated_at"], "1970-01-01T00:01:00Z");
        c.is_pull = true;
        let v =
            serde_json::to_value(Comment::new(&c, &repo, &UserRecord::ghost(), &config)).unwrap();
        assert_eq!(
            v["html_url"],
            "http://h.test/Ann/web/pulls/4#issuecomment-9"
        );
        assert_eq!(v["issue_url"], "");
        assert_eq!(v["pull_request_url"], "http://h.test/Ann/web/pulls/4");
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 11);
    }
}
