//! Exact counts of the global and owner listings, by kind and state:
//! `X-Total-Count` of a search that reads them unfiltered. Each scope's
//! counts are spread over a few items (`ADD` to the one the issue's number
//! picks, readers sum them all), moved in the same transaction as the document that counts,
//! so a change delivered twice is counted once.

use std::collections::{BTreeMap, HashMap};

use super::{class::Class, doc::Doc, lists::Scope};
use crate::db::{self, Consistency, Db, DbError, Item, Tx, keys};

/// Items per global scope (written by every issue of an audience).
pub const GLOBAL_SHARDS: i64 = 8;
/// Items per owner scope.
pub const OWNER_SHARDS: i64 = 4;

// The consumer's concurrent lanes of one repository take different shards.
const _: () = assert!(crate::stream::dispatch::LANES_PER_PARTITION as i64 <= OWNER_SHARDS);

fn shards(scope: &Scope) -> i64 {
    if scope.sharded() {
        GLOBAL_SHARDS
    } else {
        OWNER_SHARDS
    }
}

/// The counter of a kind and state (`io`: open issues, `pc`: closed pull
/// requests, ...).
pub fn counter_name(is_pull: bool, closed: bool) -> &'static str {
    match (is_pull, closed) {
        (false, false) => "io",
        (false, true) => "ic",
        (true, false) => "po",
        (true, true) => "pc",
    }
}

/// The scopes a document counts in (repositories count in their own
/// counters item, kept by issue writes).
fn counted(d: &Doc) -> Vec<Scope> {
    if d.class == Class::Nobody {
        return Vec::new();
    }
    vec![Scope::Global(d.class), Scope::of_owner(&d.owner, d.private)]
}

/// What replacing `old` with `new` moves, by scope and counter.
pub fn deltas(old: Option<&Doc>, new: Option<&Doc>) -> BTreeMap<(String, &'static str), i64> {
    let mut out = BTreeMap::new();
    for (d, sign) in [(old, -1), (new, 1)] {
        let Some(d) = d else { continue };
        for scope in counted(d) {
            *out.entry((scope.name(), counter_name(d.is_pull, d.closed)))
                .or_insert(0) += sign;
        }
    }
    out.retain(|_, n| *n != 0);
    out
}

/// Adds `deltas` to `tx`, one item per scope: the shard `spread` picks
/// (the issue's number: the consumer files a repository's issues a few at
/// a time, and consecutive numbers take different shards instead of
/// colliding on one).
pub fn add(
    tx: &mut Tx,
    deltas: &BTreeMap<(String, &'static str), i64>,
    spread: i64,
) -> Result<(), DbError> {
    let mut by_scope: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
    for ((scope, name), n) in deltas {
        by_scope.entry(scope).or_default().push((name, *n));
    }
    for (scope, adds) in by_scope {
        let many = if scope.starts_with('G') {
            GLOBAL_SHARDS
        } else {
            OWNER_SHARDS
        };
        let change = adds
            .iter()
            .fold(db::Change::new(), |c, (name, n)| c.add(name, db::n(*n)));
        tx.change(
            keys::index_counts(scope, spread.rem_euclid(many)),
            change,
            None,
        )?;
    }
    Ok(())
}

/// Counts by kind and state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub open_issues: i64,
    pub closed_issues: i64,
    pub open_pulls: i64,
    pub closed_pulls: i64,
}

impl Counts {
    fn add_item(&mut self, item: &Item) {
        self.open_issues += db::number(item, "io");
        self.closed_issues += db::number(item, "ic");
        self.open_pulls += db::number(item, "po");
        self.closed_pulls += db::number(item, "pc");
    }

    pub fn get(&self, is_pull: bool, closed: bool) -> i64 {
        match (is_pull, closed) {
            (false, false) => self.open_issues,
            (false, true) => self.closed_issues,
            (true, false) => self.open_pulls,
            (true, true) => self.closed_pulls,
        }
    }
}

/// The counts of each scope, strongly consistent (as the listings: counts
/// the consumer moved before taking a write's mark away must be read).
pub async fn read(db: &Db, scopes: &[Scope]) -> Result<HashMap<Scope, Counts>, DbError> {
    let mut keys = Vec::new();
    let mut owner_of = HashMap::new();
    for scope in scopes {
        let name = scope.name();
        for shard in 0..shards(scope) {
            keys.push(keys::index_counts(&name, shard));
        }
        owner_of.insert(format!("IXC#{name}#"), scope.clone());
    }
    let mut out: HashMap<Scope, Counts> = scopes
        .iter()
        .map(|s| (s.clone(), Counts::default()))
        .collect();
    for item in db.batch_get_many(keys, None, Consistency::Strong).await? {
        let pk = db::text(&item, "pk");
        let Some(prefix) = pk.rfind('#').map(|at| &pk[..=at]) else {
            continue;
        };
        if let Some(scope) = owner_of.get(prefix) {
            out.entry(scope.clone()).or_default().add_item(&item);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(class: Class, closed: bool) -> Doc {
        Doc {
            class,
            closed,
            owner: "acme".into(),
            ..Doc::default()
        }
    }

    #[test]
    fn a_state_change_moves_one_count_per_scope() {
        let d = deltas(
            Some(&doc(Class::Everyone, false)),
            Some(&doc(Class::Everyone, true)),
        );
        assert_eq!(
            d.into_iter().collect::<Vec<_>>(),
            [
                (("GE".to_string(), "ic"), 1),
                (("GE".to_string(), "io"), -1),
                (("O:acme".to_string(), "ic"), 1),
                (("O:acme".to_string(), "io"), -1),
            ]
        );
    }

    #[test]
    fn an_unchanged_document_moves_nothing_and_hidden_units_count_nowhere() {
        let d = doc(Class::SignedIn, false);
        assert!(deltas(Some(&d), Some(&d)).is_empty());
        assert!(deltas(None, Some(&doc(Class::Nobody, false))).is_empty());
        let made_private = deltas(
            Some(&doc(Class::Everyone, false)),
            Some(&Doc {
                private: true,
                ..doc(Class::Members, false)
            }),
        );
        assert_eq!(made_private.get(&("GM".to_string(), "io")), Some(&1));
        assert_eq!(made_private.get(&("V:acme".to_string(), "io")), Some(&1));
        assert_eq!(made_private.get(&("O:acme".to_string(), "io")), Some(&-1));
    }
}
