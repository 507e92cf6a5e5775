//! Labels of a repository (under its id) or of an organisation (under its
//! name; usable in all its repositories).
//!
//! - [`model`]: the record, its scope, name and colour rules, edits, and
//!   how an issue names labels (pure, unit-tested);
//! - [`store`]: keys and reads and writes;
//! - [`views`]: Gitea's `Label` and its option bodies.

pub mod model;
pub mod store;
pub mod views;

use crate::db::{Db, DbError};

pub use model::{LabelEdit, LabelRecord, LabelRef, NewLabel, Scope};
pub use store::{list, list_page, usable_in};
pub use views::Label;

/// What went wrong with a label request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid label name {0:?}")]
    Name(String),
    #[error("invalid colour {0:?}")]
    Color(String),
    #[error("description longer than {max} characters")]
    DescriptionTooLong { max: usize },
    /// No label with this id in the scope of the path.
    #[error("no label {0}")]
    NoSuch(i64),
    /// An issue names a label its repository cannot use.
    #[error("unknown label {0:?}")]
    Unknown(LabelRef),
    /// Removed meanwhile.
    #[error("label gone")]
    Gone,
    #[error(transparent)]
    Db(#[from] DbError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub async fn create(db: &Db, scope: Scope, new: NewLabel) -> Result<LabelRecord> {
    store::create(db, scope, new).await
}

/// The label `id` of a scope.
pub async fn find(db: &Db, scope: &Scope, id: i64) -> Result<LabelRecord> {
    store::get(db, scope, id).await?.ok_or(Error::NoSuch(id))
}

/// Stores `label` (found with [`find`]) as `edit` changes it.
pub async fn edit(db: &Db, label: LabelRecord, edit: LabelEdit) -> Result<LabelRecord> {
    let label = edit.apply(label);
    store::save(db, &label).await?;
    Ok(label)
}

pub async fn delete(db: &Db, scope: &Scope, id: i64) -> Result<()> {
    store::delete(db, &find(db, scope, id).await?).await
}

/// The ids of the labels named `names` in any of `scopes`.
pub async fn ids_named(db: &Db, scopes: &[Scope], names: &[String]) -> Result<Vec<i64>> {
    let mut ids = Vec::new();
    for s in scopes {
        ids.extend(
            list(db, s)
                .await?
                .into_iter()
                .filter(|l| names.contains(&l.name))
                .map(|l| l.id)
                .filter(|id| !ids.contains(id))
                .collect::<Vec<_>>(),
        );
    }
    Ok(ids)
}
