//! Least privilege, written once. Each function declares in its
//! `routes!` table the DynamoDB actions it may call, in IAM's terms
//! ([`Grant`]); `cargo xtask routes` writes them into the function's IAM
//! policy in template.yaml, and [`Db`](super::Db) refuses any call outside
//! them before it is sent. A handler that starts using a new action thus
//! fails its tests locally with a message naming the action, instead of
//! failing on AWS with `AccessDeniedException`.
//!
//! IAM authorises a `TransactWriteItems` item by item: a `Put` needs
//! `dynamodb:PutItem`, an `Update` `UpdateItem`, a `Delete` `DeleteItem`
//! and a `ConditionCheck` `ConditionCheckItem`; there is no action for the
//! transaction itself. A `Query` of a global secondary index is authorised
//! on the index (`<table ARN>/index/<name>`), not on the table.
//!
//! With `DYNAMODB_ACTIONS_LOG` set (scripts/test.sh sets it), every
//! process appends each (function, action, resource) it uses, and each it
//! was refused, to that file, once per process; the script then fails on
//! a granted action no test used, so a grant cannot outgrow the code.

use std::{
    collections::BTreeSet,
    io::Write,
    sync::{Mutex, OnceLock},
};

use super::DbError;

pub use super::permission::{Action, Permission, Resource};

/// The DynamoDB actions one function may call (`routes!` fills in its
/// name). Template.yaml grants exactly these: `table` on the table's ARN,
/// `indexes` on `<table ARN>/index/*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The function's crate (and binary) name.
    pub function: &'static str,
    pub table: &'static [Action],
    pub indexes: &'static [Action],
    /// Granted actions the tests may never reach, each with the reason it
    /// is still needed; scripts/test.sh does not call these unused.
    pub rare: &'static [(Action, &'static str)],
}

impl Grant {
    pub fn allows(&self, p: Permission) -> bool {
        match p.on {
            Resource::Table => self.table.contains(&p.action),
            Resource::Indexes => self.indexes.contains(&p.action),
        }
    }

    /// The first of `needs` the grant does not hold.
    pub fn missing(&self, needs: &[Permission]) -> Option<Permission> {
        needs.iter().copied().find(|&p| !self.allows(p))
    }

    /// Whether the function may not touch the table at all.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty() && self.indexes.is_empty()
    }

    /// Every permission of the grant.
    pub fn permissions(&self) -> impl Iterator<Item = Permission> + '_ {
        let table = self.table.iter().map(|&a| Permission::table(a));
        table.chain(self.indexes.iter().map(|&a| Permission::indexes(a)))
    }
}

/// Declares the DynamoDB grant of a function without a route table (the
/// stream consumer), in the terms of `routes!`'s `dynamodb { .. }`:
/// `shared::grant! { table: &[..], indexes: &[..], rare: &[..] }` makes
/// `pub const DYNAMODB: Grant` named after the crate. `cargo xtask routes`
/// writes it into the function's policy and its `Db` enforces it, as for
/// every function.
#[macro_export]
macro_rules! grant {
    ($($field:ident: $value:expr),* $(,)?) => {
        /// The DynamoDB actions this function may call, in IAM's terms:
        /// `cargo xtask routes` writes them into its policy in
        /// template.yaml, and its `Db` refuses any other call.
        pub const DYNAMODB: $crate::db::Grant = $crate::db::Grant {
            function: env!("CARGO_PKG_NAME"),
            $($field: $value),*
        };
    };
}

/// Lets a call that needs `needs` through if `grant` holds every one of
/// them, noting what the function used; refuses it otherwise, before it is
/// sent.
pub(super) fn enforce(grant: &Grant, needs: &[Permission]) -> Result<(), DbError> {
    if let Some(p) = grant.missing(needs) {
        note(grant.function, p, false);
        tracing::error!(
            function = grant.function,
            needs = %p,
            "a DynamoDB call outside the function's grant"
        );
        return Err(DbError::NotGranted {
            function: grant.function,
            needs: p,
        });
    }
    for &p in needs {
        note(grant.function, p, true);
    }
    Ok(())
}

/// The file `DYNAMODB_ACTIONS_LOG` names, if set.
fn log_path() -> Option<&'static str> {
    static PATH: OnceLock<Option<String>> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::var("DYNAMODB_ACTIONS_LOG")
            .ok()
            .filter(|p| !p.is_empty())
    })
    .as_deref()
}

/// Appends `<used|denied> <function> <Action> <table|indexes>` to the
/// actions log, the first time this process sees it. One short line per
/// `write` to a file opened for appending: lines from concurrent processes
/// do not interleave.
fn note(function: &'static str, p: Permission, allowed: bool) {
    static SEEN: Mutex<BTreeSet<(&str, Permission, bool)>> = Mutex::new(BTreeSet::new());
    // This crate's own tests make refused calls on purpose.
    if cfg!(test) {
        return;
    }
    let Some(path) = log_path() else {
        return;
    };
    if !SEEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert((function, p, allowed))
    {
        return;
    }
    let line = format!(
        "{} {function} {} {}\n",
        if allowed { "used" } else { "denied" },
        p.action.name(),
        p.on.name()
    );
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        tracing::warn!(path, error = %e, "could not append to DYNAMODB_ACTIONS_LOG");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRANT: Grant = Grant {
        function: "f",
        table: &[Action::GetItem, Action::PutItem],
        indexes: &[Action::Query],
        rare: &[],
    };

    #[test]
    fn a_grant_allows_its_actions_on_their_resource_only() {
        let rows = [
            (Permission::table(Action::GetItem), true),
            (Permission::table(Action::PutItem), true),
            (Permission::indexes(Action::Query), true),
            (Permission::table(Action::Query), false),
            (Permission::indexes(Action::GetItem), false),
            (Permission::table(Action::Scan), false),
            (Permission::table(Action::ConditionCheckItem), false),
        ];
        for (p, want) in rows {
            assert_eq!(GRANT.allows(p), want, "{p}");
        }
    }

    #[test]
    fn a_call_needs_every_permission_it_names() {
        let put_and_check = [
            Permission::table(Action::PutItem),
            Permission::table(Action::ConditionCheckItem),
        ];
        assert_eq!(
            GRANT.missing(&put_and_check),
            Some(Permission::table(Action::ConditionCheckItem))
        );
        assert_eq!(GRANT.missing(&put_and_check[..1]), None);
    }

    /// A handle whose client could reach no database: what it refuses is
    /// refused before anything is sent.
    fn offline(grant: &'static Grant) -> crate::db::Db {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
            .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
            .endpoint_url("http://127.0.0.1:9")
            .build();
        crate::db::Db::with_client(aws_sdk_dynamodb::Client::from_conf(config), "t").granted(grant)
    }

    #[tokio::test]
    async fn the_db_refuses_what_the_grant_lacks_naming_function_and_action() {
        static READS: Grant = Grant {
            function: "reader",
            table: &[Action::GetItem],
            indexes: &[],
            rare: &[],
        };
        let db = offline(&READS);
        let mut tx = db.tx();
        tx.require(crate::db::keys::key("P", "S")).unwrap();
        let refused = db.transact(tx).await.unwrap_err();
        assert!(
            matches!(
                refused,
                DbError::NotGranted {
                    function: "reader",
                    needs: Permission {
                        action: Action::ConditionCheckItem,
                        on: Resource::Table
                    }
                }
            ),
            "{refused:?}"
        );
        let message = refused.to_string();
        assert!(
            message.contains("reader") && message.contains("dynamodb:ConditionCheckItem"),
            "{message}"
        );
        let scan = db.scan_segment(0, 1, &["pk"]).await.unwrap_err();
        assert!(matches!(scan, DbError::NotGranted { .. }), "{scan:?}");
        let query = db
            .query(|q| q.index_name("gsi1").key_condition_expression("gsi1pk = :p"))
            .await
            .unwrap_err();
        assert!(
            matches!(query, DbError::NotGranted { needs, .. } if needs == Permission::indexes(Action::Query)),
            "{query:?}"
        );
        assert_eq!(db.metrics().round_trips, 0, "nothing was sent");
    }

    #[test]
    fn names_round_trip() {
        for a in Action::ALL {
            assert_eq!(Action::parse(a.name()), Some(a));
            assert_eq!(a.iam(), format!("dynamodb:{}", a.name()));
        }
        for r in [Resource::Table, Resource::Indexes] {
            assert_eq!(Resource::parse(r.name()), Some(r));
        }
    }
}
