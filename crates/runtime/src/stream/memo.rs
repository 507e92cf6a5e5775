//! Reads a handler keeps for one batch, made once per key: lanes run side
//! by side ([`dispatch`](super::dispatch)), and the first lane to ask for
//! a key reads it while the others wait for that read instead of making
//! their own.

use std::{
    collections::HashMap,
    future::Future,
    hash::Hash,
    sync::{Arc, Mutex},
};

use tokio::sync::OnceCell;

use crate::db::DbError;

pub struct Memo<K, V>(Mutex<HashMap<K, Arc<OnceCell<V>>>>);

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    /// The value of `key`, read by `load` unless this batch read it
    /// already (a failed read is not kept: the next ask reads again).
    pub async fn get<F, Fut>(&self, key: K, load: F) -> Result<V, DbError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, DbError>>,
    {
        let cell = self.lock().entry(key).or_default().clone();
        cell.get_or_try_init(load).await.cloned()
    }

    /// Forgets one key (what it holds changed).
    pub fn forget(&self, key: &K) {
        self.lock().remove(key);
    }

    /// Forgets every key.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Arc<OnceCell<V>>>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn side_by_side_asks_read_once_and_failures_are_not_kept() {
        let memo: Memo<&str, usize> = Memo::default();
        let reads = AtomicUsize::new(0);
        let load = || async {
            reads.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            Ok(7)
        };
        let (a, b) = tokio::join!(memo.get("k", load), memo.get("k", load));
        assert_eq!((a.unwrap(), b.unwrap()), (7, 7));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
        memo.forget(&"k");
        memo.get("k", load).await.unwrap();
        assert_eq!(reads.load(Ordering::SeqCst), 2);

        let failed = memo
            .get("x", || async { Err(DbError::Unavailable("down".into())) })
            .await;
        assert!(failed.is_err());
        assert_eq!(memo.get("x", load).await.unwrap(), 7, "read again");
    }
}
