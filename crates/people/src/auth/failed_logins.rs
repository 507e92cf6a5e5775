//! Failed password sign-ins, counted per user name, so that guessing a
//! password over Basic authentication stops after a few tries whatever
//! route, instance or address the guesses come from (a route throttle
//! sees none of that).
//!
//! The policy ([`POLICY`]): time is cut into fixed windows of 15 minutes
//! (aligned on Unix time); once a name has 10 failed passwords in the
//! current window, every further password for it is refused with 429 and
//! `Retry-After` (the seconds left in the window) *without being checked*,
//! so a guess costs nothing and learns nothing. What stays open:
//!
//! - tokens, also in Basic's password field, are never counted nor
//!   refused (they are tried before the password), so a stranger who
//!   locks a name out does not stop its owner's API clients;
//! - the lock ends with its window, so it lasts 15 minutes at most;
//! - a successful sign-in does not reset the count: the window's end
//!   does, and a reset would need a write on every password request.
//!
//! Unknown names are counted like known ones, at the same cost, so the
//! answers do not tell which names exist. A fixed window lets through at
//! most twice the limit around a window's edge, and concurrent guesses
//! that all read the count before any of them adds to it are each checked
//! (so a burst can pass the limit by as many requests as run at once);
//! every failure is still counted by an atomic `ADD`, so the lock then
//! holds for the rest of the window.
//!
//! Storage (docs/data-model.md): one item per name and window,
//! `LOGINFAIL#<SHA-256 of the folded name>` / `WINDOW#<start:020>`, holding
//! `n` and `ttl` (the window's end). The name is hashed because it is
//! whatever a stranger typed: the key stays short, whatever its length.
//! Only the current window's item is ever read, so an expired one that
//! DynamoDB's TTL has not yet deleted changes nothing. The partition is
//! not one the stream consumer's filter passes.

use super::token;
use crate::{
    db::{self, Db, DbError, Returns, keys, table::TTL},
    name::fold,
};

/// How many failed passwords a name may have per window, and how long a
/// window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub most: i64,
    pub window_secs: i64,
}

/// The policy in force: 10 failures per 15 minutes.
pub const POLICY: Policy = Policy {
    most: 10,
    window_secs: 15 * 60,
};

/// One fixed window of [`Policy::window_secs`], `[start, end)` in Unix
/// seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: i64,
    pub end: i64,
}

impl Policy {
    /// The window `now` falls in.
    pub fn window(self, now: i64) -> Window {
        let start = now - now.rem_euclid(self.window_secs);
        Window {
            start,
            end: start + self.window_secs,
        }
    }

    /// With `failures` counted in the window of `now`: `None` when a
    /// password may be checked, else the seconds until it may (at least 1,
    /// at most the window's length).
    pub fn wait(self, failures: i64, now: i64) -> Option<u64> {
        if failures < self.most {
            return None;
        }
        let left = self.window(now).end - now;
        Some(left.clamp(1, self.window_secs) as u64)
    }
}

/// The key of `name`'s counter for `window`.
pub fn key(name: &str, window: Window) -> db::Item {
    // The same SHA-256 (hex) that token secrets are stored by.
    keys::failed_logins(&token::hash(&fold(name)), window.start)
}

/// The failed passwords counted for `name` in `window` (strongly
/// consistent: it decides whether a password is checked).
pub async fn count(db: &Db, name: &str, window: Window) -> Result<i64, DbError> {
    let item = db.get(key(name, window)).await?;
    Ok(item.map_or(0, |i| db::number(&i, "n")))
}

/// Counts one failed password for `name` in `window`: one `ADD`, so
/// concurrent failures all count; the item expires with its window.
pub async fn record(db: &Db, name: &str, window: Window) -> Result<(), DbError> {
    let change = db::Change::new()
        .add("n", db::n(1))
        .set(TTL, db::n(window.end));
    db.change(key(name, window), change, None, Returns::Nothing)
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_fixed_and_aligned() {
        let p = POLICY;
        assert_eq!(p.window(0), Window { start: 0, end: 900 });
        assert_eq!(p.window(899), Window { start: 0, end: 900 });
        assert_eq!(
            p.window(900),
            Window {
                start: 900,
                end: 1800
            }
        );
        assert_eq!(
            p.window(1_700_000_123).start % 900,
            0,
            "aligned on Unix time"
        );
    }

    #[test]
    fn the_limit_locks_until_the_window_ends() {
        let p = POLICY;
        let rows: &[(i64, i64, Option<u64>)] = &[
            (0, 1000, None),
            (9, 1000, None),
            // The 10th failure was counted: the 11th attempt waits.
            (10, 1000, Some(800)),
            (25, 1000, Some(800)),
            (10, 900, Some(900)),
            (10, 1799, Some(1)),
        ];
        for &(failures, now, wait) in rows {
            assert_eq!(p.wait(failures, now), wait, "{failures} at {now}");
        }
    }

    #[test]
    fn names_are_counted_case_insensitively_and_by_hash() {
        let w = POLICY.window(1000);
        assert_eq!(key("Alice", w), key("alice", w));
        assert_ne!(key("alice", w), key("bob", w));
        let long = "x".repeat(100_000);
        let pk = db::text(&key(&long, w), "pk").to_string();
        assert_eq!(pk.len(), "LOGINFAIL#".len() + 64, "{pk}");
    }
}
