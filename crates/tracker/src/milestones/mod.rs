//! Milestones of a repository, under the repository's id.
//!
//! - [`model`]: the record, the create and edit commands, the list filter
//!   and Gitea's order (pure, unit-tested);
//! - [`store`]: keys, the transaction of a create, the UpdateExpression of
//!   an edit;
//! - [`views`]: Gitea's `Milestone` and its option bodies.
//!
//! Deleting a milestone also detaches its issues: see
//! [`crate::issues::delete_milestone`].

pub mod model;
pub mod store;
pub mod views;

use crate::{db::DbError, text::TextError};

pub use model::{Edit, ListFilter, MilestoneRecord, NewMilestone};
pub use store::{delete, find, get, with_descriptions};
pub use views::Milestone;

/// What went wrong with a milestone request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid title: {0:?}")]
    Title(TextError),
    #[error("description longer than {max} characters")]
    DescriptionTooLong { max: usize },
    #[error("invalid due_on: {0}")]
    DueOn(String),
    /// Neither a number nor a title of this repository's milestones.
    #[error("no milestone {0:?}")]
    NoSuch(String),
    /// Removed meanwhile.
    #[error("milestone gone")]
    Gone,
    #[error(transparent)]
    Db(#[from] DbError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Creates a milestone.
pub async fn create(
    db: &crate::db::Db,
    repo_id: i64,
    new: NewMilestone,
) -> Result<MilestoneRecord> {
    store::create(db, repo_id, new).await
}

/// The milestones a listing shows, filtered and in Gitea's order, without
/// descriptions ([`with_descriptions`] fills them in for one page).
pub async fn list(
    db: &crate::db::Db,
    repo_id: i64,
    filter: &ListFilter,
) -> Result<Vec<MilestoneRecord>> {
    let all = store::list(db, repo_id, crate::db::Consistency::Eventual).await?;
    Ok(filter.select(all))
}

/// Every milestone of a repository, without descriptions.
pub async fn all(db: &crate::db::Db, repo_id: i64) -> Result<Vec<MilestoneRecord>> {
    store::list(db, repo_id, crate::db::Consistency::Strong).await
}

/// Applies an edit to the milestone named by `id_or_title`. The option is
/// checked once the milestone is found (a missing one is reported first).
pub async fn edit(
    db: &crate::db::Db,
    repo_id: i64,
    id_or_title: &str,
    option: views::EditMilestoneOption,
    tz: crate::time::Zone,
) -> Result<MilestoneRecord> {
    let m = find(db, repo_id, id_or_title).await?;
    let edit = option.parse(tz)?;
    store::update(db, &m, edit.apply(&m, crate::time::now())).await
}
