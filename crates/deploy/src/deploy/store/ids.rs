//! Coolify's numeric ids. Coolify's clients link records by them (an
//! application's `environment_id` to its environment's `id`), so every
//! project, environment and application carries one beside its uuid.
//! Each team has one sequence per kind on its `IDS` item; an id is taken
//! by an atomic `ADD` that returns the new value, just before the create's
//! transaction: concurrent creates get distinct ids, and a create that
//! fails leaves a gap, as Coolify's auto-increment does. An id never
//! changes or returns to use.
//!
//! Records written before ids existed have none until `check-data
//! --repair` gives them one ([`crate::deploy::store::ids::assign`]); until
//! then they render without `id` (and an application without
//! `environment_id`), which clients read as "unknown" rather than match.

use crate::{
    db::{self, Change, Cond, Db, Item, Returns},
    deploy::{
        error::{Error, Result},
        team::Team,
    },
};

/// Sort key of the team's sequences item.
pub const IDS_SK: &str = "IDS";

/// What is numbered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seq {
    Project,
    Environment,
    Application,
}

impl Seq {
    /// The sequence's attribute on the team's `IDS` item.
    pub fn attribute(self) -> &'static str {
        match self {
            Seq::Project => "project",
            Seq::Environment => "environment",
            Seq::Application => "application",
        }
    }

    /// The sequence of items of this `kind`, if they are numbered.
    pub fn of_kind(kind: &str) -> Option<Seq> {
        match kind {
            "project" => Some(Seq::Project),
            "environment" => Some(Seq::Environment),
            "application" => Some(Seq::Application),
            _ => None,
        }
    }
}

/// Takes the next id of each of `seqs` (distinct kinds) in one write.
pub async fn next(db: &Db, team: &Team, seqs: &[Seq]) -> Result<Vec<i64>> {
    next_in(db, &team.key(IDS_SK), seqs).await
}

/// As [`next`], on the sequences item `key` (the repair names the team by
/// its partition).
pub async fn next_in(db: &Db, key: &Item, seqs: &[Seq]) -> Result<Vec<i64>> {
    let change = seqs
        .iter()
        .fold(Change::new(), |c, s| c.add(s.attribute(), db::n(1)));
    let new = db
        .change(key.clone(), change, None, Returns::UpdatedNew)
        .await?
        .unwrap_or_default();
    seqs.iter()
        .map(|s| {
            new.get(s.attribute())
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse().ok())
                .ok_or(Error::Internal("an id sequence returned no number"))
        })
        .collect()
}

/// Gives the item under `key` the id `id` unless it has one; returns the
/// id it holds afterwards (its own if it had one, or `None` if it is gone).
/// `extra` is written with it (an application's bumped `version`).
pub async fn assign(db: &Db, key: Item, id: i64, extra: Change) -> Result<Option<i64>> {
    let change = extra.set("id", db::n(id));
    match db
        .change(
            key.clone(),
            change,
            Some(Cond::exists().and(Cond::lacks("id"))),
            Returns::Nothing,
        )
        .await
    {
        Ok(_) => Ok(Some(id)),
        Err(db::DbError::ConditionFailed) => Ok(db.get(key).await?.and_then(|i| number(&i, "id"))),
        Err(e) => Err(e.into()),
    }
}

/// A numeric attribute of an item.
pub fn number(item: &Item, attribute: &str) -> Option<i64> {
    item.get(attribute)
        .and_then(|v| v.as_n().ok())
        .and_then(|n| n.parse().ok())
}
