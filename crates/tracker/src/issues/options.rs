//! Gitea's request bodies for issues and pull requests, parsed into the
//! commands [`super::ops`] takes, and the `PullReview` reply.

use serde::{Deserialize, Serialize};

use super::{Error, Result, fields};
use crate::{accounts::views::User, labels::LabelRef, text::present};

/// What a create request asks for that only writers may set (dropped for
/// others, so checked only for writers).
#[derive(Clone, Debug, Default)]
pub struct WriterInput {
    pub assignee: Option<String>,
    pub assignees: Option<Vec<String>>,
    pub milestone: Option<i64>,
    pub labels: Option<Vec<i64>>,
    pub due_date: Option<String>,
}

/// A create request with its own fields checked.
#[derive(Clone, Debug, Default)]
pub struct Draft {
    pub is_pull: bool,
    pub title: String,
    pub body: String,
    pub git_ref: String,
    pub closed: bool,
    pub head: String,
    pub base: String,
    pub wanted: WriterInput,
}

/// Gitea's `CreateIssueOption`.
#[derive(Deserialize)]
pub struct CreateIssueOption {
    pub title: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub assignees: Option<Vec<String>>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub milestone: Option<i64>,
    #[serde(default)]
    pub labels: Option<Vec<i64>>,
    #[serde(default)]
    pub closed: Option<bool>,
}

impl TryFrom<CreateIssueOption> for Draft {
    type Error = Error;

    fn try_from(o: CreateIssueOption) -> Result<Self> {
        Ok(Draft {
            is_pull: false,
            title: fields::title(&o.title)?,
            body: fields::body("body", o.body.unwrap_or_default())?,
            git_ref: fields::git_ref(o.git_ref.unwrap_or_default())?,
            closed: o.closed.unwrap_or(false),
            wanted: WriterInput {
                assignee: o.assignee,
                assignees: o.assignees,
                milestone: o.milestone,
                labels: o.labels,
                due_date: o.due_date,
            },
            ..Draft::default()
        })
    }
}

/// Gitea's `CreatePullRequestOption`.
#[derive(Deserialize)]
pub struct CreatePullRequestOption {
    pub title: String,
    pub head: String,
    pub base: String,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub assignees: Option<Vec<String>>,
    #[serde(default)]
    pub milestone: Option<i64>,
    #[serde(default)]
    pub labels: Option<Vec<i64>>,
    #[serde(default)]
    pub due_date: Option<String>,
}

impl TryFrom<CreatePullRequestOption> for Draft {
    type Error = Error;

    fn try_from(o: CreatePullRequestOption) -> Result<Self> {
        let (head, base) = (
            fields::branch("head", &o.head)?,
            fields::branch("base", &o.base)?,
        );
        if head == base {
            return Err(Error::SameBranches);
        }
        Ok(Draft {
            is_pull: true,
            title: fields::title(&o.title)?,
            body: fields::body("body", o.body.unwrap_or_default())?,
            head,
            base,
            wanted: WriterInput {
                assignee: o.assignee,
                assignees: o.assignees,
                milestone: o.milestone,
                labels: o.labels,
                due_date: o.due_date,
            },
            ..Draft::default()
        })
    }
}

/// Gitea's `EditIssueOption`.
#[derive(Deserialize)]
pub struct EditIssueOption {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default, rename = "ref")]
    pub git_ref: Option<String>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub assignees: Option<Vec<String>>,
    #[serde(default)]
    pub milestone: Option<i64>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub due_date: Option<Option<String>>,
    #[serde(default)]
    pub unset_due_date: Option<bool>,
}

/// Gitea's `EditPullRequestOption`. Gitea's Go client sends every field,
/// its zero values included (`"title": ""`, `"milestone": 0`, `"base": ""`,
/// nulls), and Gitea reads those as "no change"; see [`Edit`]'s
/// conversion.
#[derive(Deserialize)]
pub struct EditPullRequestOption {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub base: Option<String>,
    #[serde(default)]
    pub assignee: Option<String>,
    #[serde(default)]
    pub assignees: Option<Vec<String>>,
    #[serde(default)]
    pub milestone: Option<i64>,
    #[serde(default)]
    pub labels: Option<Vec<i64>>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default)]
    pub due_date: Option<String>,
    #[serde(default)]
    pub unset_due_date: Option<bool>,
    #[serde(default)]
    pub allow_maintainer_edit: Option<bool>,
}

/// One edit of an issue or pull request, whichever route asked for it:
/// `None` keeps the field. [`super::ops::edit`] applies the same rules to
/// both.
#[derive(Clone, Debug, Default)]
pub struct Edit {
    /// Blank keeps the title.
    pub title: Option<String>,
    pub body: Option<String>,
    pub git_ref: Option<String>,
    /// `Some(None)`: an explicit `null`.
    pub due_date: Option<Option<String>>,
    pub unset_due_date: Option<bool>,
    /// Replaces the assignees (with `assignee` added).
    pub assignees: Option<Vec<String>>,
    pub assignee: Option<String>,
    /// 0 removes the milestone.
    pub milestone: Option<i64>,
    /// Replaces the labels.
    pub labels: Option<Vec<LabelRef>>,
    pub state: Option<String>,
    /// A pull request's new base branch.
    pub base: Option<String>,
    pub allow_maintainer_edit: Option<bool>,
}

impl From<EditIssueOption> for Edit {
    fn from(o: EditIssueOption) -> Self {
        Edit {
            title: o.title,
            body: o.body,
            git_ref: o.git_ref,
            due_date: o.due_date,
            unset_due_date: o.unset_due_date,
            assignees: o.assignees,
            assignee: o.assignee,
            milestone: o.milestone,
            state: o.state,
            ..Edit::default()
        }
    }
}

impl From<EditPullRequestOption> for Edit {
    /// Gitea's reading: an empty `base` or `assignee`, `milestone` 0 and
    /// `null`s change nothing (a pull request's milestone is removed
    /// through `PATCH /issues/{index}`); `labels` replaces them all.
    fn from(o: EditPullRequestOption) -> Self {
        Edit {
            title: o.title,
            body: o.body,
            due_date: o.due_date.map(Some),
            unset_due_date: o.unset_due_date,
            assignees: o.assignees,
            assignee: o.assignee.filter(|a| !a.is_empty()),
            milestone: o.milestone.filter(|m| *m != 0),
            labels: o
                .labels
                .map(|ids| ids.into_iter().map(LabelRef::Id).collect()),
            state: o.state,
            base: o.base.filter(|b| !b.is_empty()),
            allow_maintainer_edit: o.allow_maintainer_edit,
            ..Edit::default()
        }
    }
}

/// Gitea's `EditDeadlineOption` (null removes the deadline).
#[derive(Deserialize)]
pub struct EditDeadlineOption {
    #[serde(default)]
    pub due_date: Option<String>,
}

/// Gitea's `IssueLabelsOption`: labels by id or by name.
#[derive(Deserialize)]
pub struct IssueLabelsOption {
    #[serde(default)]
    pub labels: Vec<LabelRef>,
}

/// Gitea's `IssueMeta`: the other issue of a dependency.
#[derive(Deserialize)]
pub struct IssueMeta {
    pub owner: String,
    pub repo: String,
    pub index: i64,
}

/// Gitea's `PullReviewRequestOptions`.
#[derive(Deserialize)]
pub struct PullReviewRequestOptions {
    #[serde(default)]
    pub reviewers: Vec<String>,
}

/// Gitea's `CreatePullReviewOptions`.
#[derive(Deserialize)]
pub struct CreatePullReviewOptions {
    pub event: String,
    #[serde(default)]
    pub body: Option<String>,
}

/// Gitea's `PullReview` (the fields a record without code can fill).
#[derive(Serialize)]
pub struct PullReview {
    pub id: i64,
    pub user: User,
    pub state: String,
    pub body: String,
    pub commit_id: String,
    pub stale: bool,
    pub official: bool,
    pub dismissed: bool,
    pub html_url: String,
    pub pull_request_url: String,
    pub submitted_at: String,
    pub updated_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pull(head: &str, base: &str) -> CreatePullRequestOption {
        CreatePullRequestOption {
            title: " t ".into(),
            head: head.into(),
            base: base.into(),
            body: None,
            assignee: None,
            assignees: None,
            milestone: None,
            labels: None,
            due_date: None,
        }
    }

    #[test]
    fn pulls_need_two_branches() {
        let d = Draft::try_from(pull(" feat ", "main")).unwrap();
        assert_eq!(
            (d.is_pull, d.head.as_str(), d.title.as_str()),
            (true, "feat", "t")
        );
        assert!(matches!(
            Draft::try_from(pull("main", " main")),
            Err(Error::SameBranches)
        ));
        assert!(matches!(
            Draft::try_from(pull("a b", "main")),
            Err(Error::Branch { field: "head", .. })
        ));
    }

    #[test]
    fn pull_edits_read_zero_values_as_no_change() {
        // What Gitea's Go client sends when only the title is set.
        let o: EditPullRequestOption = serde_json::from_str(
            r#"{"title":"t","body":null,"base":"","assignee":"","assignees":null,
            "milestone":0,"labels":null,"state":null,"due_date":null,
            "unset_due_date":null,"allow_maintainer_edit":null}"#,
        )
        .unwrap();
        let e = Edit::from(o);
        assert_eq!(e.title.as_deref(), Some("t"));
        assert!(e.body.is_none() && e.base.is_none() && e.assignee.is_none());
        assert!(e.assignees.is_none() && e.milestone.is_none() && e.labels.is_none());
        assert!(e.due_date.is_none() && e.state.is_none() && e.allow_maintainer_edit.is_none());
        let o: EditPullRequestOption =
            serde_json::from_str(r#"{"labels":[],"milestone":3,"base":"dev"}"#).unwrap();
        let e = Edit::from(o);
        assert_eq!(e.labels, Some(Vec::new()));
        assert_eq!((e.milestone, e.base.as_deref()), (Some(3), Some("dev")));
    }

    #[test]
    fn issue_edits_keep_explicit_nulls() {
        let o: EditIssueOption =
            serde_json::from_str(r#"{"due_date":null,"milestone":0}"#).unwrap();
        let e = Edit::from(o);
        assert_eq!((e.due_date, e.milestone), (Some(None), Some(0)));
    }

    #[test]
    fn issue_options_check_their_own_fields_first() {
        let o: CreateIssueOption =
            serde_json::from_str(r#"{"title":"  ","milestone":99,"due_date":"bad"}"#).unwrap();
        assert!(matches!(Draft::try_from(o), Err(Error::Title(_))));
        let o: CreateIssueOption =
            serde_json::from_str(r#"{"title":"x","closed":true,"due_date":"bad"}"#).unwrap();
        let d = Draft::try_from(o).unwrap();
        assert!(d.closed && !d.is_pull);
        assert_eq!(d.wanted.due_date.as_deref(), Some("bad"));
    }
}
