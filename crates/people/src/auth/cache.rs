//! What a token resolved to, kept per instance for a short time so a warm
//! instance authenticates repeat callers without a database call.
//!
//! The trade-off is API Gateway's authorizer cache's: a token revoked, or
//! a membership removed, on another instance keeps working here until its
//! entry expires (at most `TOKEN_CACHE_TTL_SECONDS`, 30 s or less; 0 turns
//! the cache off). Changes made through this instance drop the entries of
//! the user concerned at once. Passwords are never cached.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use super::{Api, Caller};

/// Entries one instance keeps; past it, expired ones go first, then all.
const CAPACITY: usize = 4_096;

#[derive(Debug)]
pub struct TokenCache {
    ttl: Duration,
    entries: Mutex<HashMap<(String, Api), Entry>>,
}

#[derive(Debug)]
struct Entry {
    caller: Caller,
    user: String,
    at: Instant,
}

impl TokenCache {
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The caller a token hash resolved to on `api`, if still fresh.
    pub fn get(&self, hash: &str, api: Api) -> Option<Caller> {
        if self.ttl.is_zero() {
            return None;
        }
        let mut entries = self.lock();
        let key = (hash.to_string(), api);
        match entries.get(&key) {
            Some(e) if e.at.elapsed() < self.ttl => Some(e.caller.clone()),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    pub fn put(&self, hash: &str, api: Api, caller: &Caller) {
        let Some(principal) = caller.principal().filter(|_| !self.ttl.is_zero()) else {
            return;
        };
        let mut entries = self.lock();
        if entries.len() >= CAPACITY {
            entries.retain(|_, e| e.at.elapsed() < self.ttl);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(
            (hash.to_string(), api),
            Entry {
                caller: caller.clone(),
                user: crate::name::fold(&principal.user.name),
                at: Instant::now(),
            },
        );
    }

    /// Drops every entry of a user: their token was revoked or their
    /// memberships changed on this instance.
    pub fn forget_user(&self, user: &str) {
        let user = crate::name::fold(user);
        self.lock().retain(|_, e| e.user != user);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, Api), Entry>> {
        // A panic while holding the lock leaves nothing half-written.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::principal::fixtures::token;

    #[test]
    fn fresh_entries_hit_and_expire() {
        let cache = TokenCache::new(Duration::from_millis(40));
        let who = token(&["read:issue"]);
        cache.put("h", Api::Tracker, &who);
        assert!(cache.get("h", Api::Tracker).is_some());
        assert!(cache.get("h", Api::Deploy).is_none(), "per API");
        std::thread::sleep(Duration::from_millis(50));
        assert!(cache.get("h", Api::Tracker).is_none(), "expired");
    }

    #[test]
    fn zero_ttl_keeps_nothing_and_forgetting_is_per_user() {
        let off = TokenCache::new(Duration::ZERO);
        off.put("h", Api::Tracker, &token(&["all"]));
        assert!(off.get("h", Api::Tracker).is_none());
        let cache = TokenCache::new(Duration::from_secs(30));
        let who = token(&["all"]);
        let name = who.principal().unwrap().user.name.clone();
        cache.put("h", Api::Tracker, &who);
        cache.put("anon", Api::Tracker, &Caller::Anonymous);
        assert!(cache.get("anon", Api::Tracker).is_none(), "only users");
        cache.forget_user("someone-else");
        assert!(cache.get("h", Api::Tracker).is_some());
        cache.forget_user(&name.to_uppercase());
        assert!(cache.get("h", Api::Tracker).is_none());
    }
}
