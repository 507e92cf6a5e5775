//! How many objects of each kind a team may hold. Coolify's list endpoints
//! are not paged, so a list must fit one Lambda response (6 MB) however
//! large its objects are: with at most [`MAX_PER_TEAM`] of a kind, even the
//! summary of each (uuid, names) fits. The counts live on one item per
//! team, moved in the same transaction as the create or delete, on
//! condition that a create stays within the limit.

use crate::{
    db::{self, Change, Cond, DbError, Tx},
    deploy::{error::Object, team::Team},
};

/// Most objects of one kind per team.
pub const MAX_PER_TEAM: i64 = 1000;

/// What is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Applications,
    Projects,
    Servers,
    Keys,
    ProviderApps,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Applications,
        Kind::Projects,
        Kind::Servers,
        Kind::Keys,
        Kind::ProviderApps,
    ];

    /// The counter's attribute on the team's counts item.
    pub fn attribute(self) -> &'static str {
        match self {
            Kind::Applications => "applications",
            Kind::Projects => "projects",
            Kind::Servers => "servers",
            Kind::Keys => "private_keys",
            Kind::ProviderApps => "provider_apps",
        }
    }

    /// The objects counted.
    pub fn object(self) -> Object {
        match self {
            Kind::Applications => Object::Application,
            Kind::Projects => Object::Project,
            Kind::Servers => Object::Server,
            Kind::Keys => Object::PrivateKey,
            Kind::ProviderApps => Object::ProviderApp,
        }
    }

    /// The `kind` attribute of the counted items.
    pub fn item_kind(self) -> &'static str {
        match self {
            Kind::Applications => "application",
            Kind::Projects => "project",
            Kind::Servers => "server",
            Kind::Keys => "ssh_key",
            Kind::ProviderApps => "provider_app",
        }
    }
}

/// Sort key of the team's counts item.
pub const COUNTS_SK: &str = "COUNTS";

/// Counts one more object of `kind` in `tx`, failing the transaction at
/// this position when the team already holds the maximum. Returns the
/// position.
pub fn add(tx: &mut Tx, team: &Team, kind: Kind) -> Result<usize, DbError> {
    let at = tx.len();
    tx.change(
        team.key(COUNTS_SK),
        Change::new().add(kind.attribute(), db::n(1)),
        Some(Cond::below(kind.attribute(), db::n(MAX_PER_TEAM))),
    )?;
    Ok(at)
}

/// Counts one object of `kind` less in `tx`.
pub fn remove(tx: &mut Tx, team: &Team, kind: Kind) -> Result<(), DbError> {
    tx.change(
        team.key(COUNTS_SK),
        Change::new().add(kind.attribute(), db::n(-1)),
        None,
    )?;
    Ok(())
}
