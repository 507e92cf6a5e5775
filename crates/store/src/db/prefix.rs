//! Reads of every item under one partition key whose sort key begins with
//! a prefix: small, bounded collections (a user's tokens, a repository's
//! labels or grants).

use super::{Consistency, Db, DbError, Item, Query, keys, size};

impl Db {
    /// All items under `pk` whose sort key begins with `prefix`, strongly
    /// consistent. For small, bounded collections only (a user's tokens, a
    /// team's members).
    pub async fn query_prefix(&self, pk: &str, prefix: &str) -> Result<Vec<Item>, DbError> {
        self.query_prefix_with(pk, prefix, None, Consistency::Strong)
            .await
    }

    /// Like [`Db::query_prefix`], keeping only the named attributes of each
    /// item (`projection` lists them, each as written in the item), so long
    /// texts the caller does not need never reach memory.
    pub async fn query_prefix_projected(
        &self,
        pk: &str,
        prefix: &str,
        projection: Option<&[&str]>,
    ) -> Result<Vec<Item>, DbError> {
        self.query_prefix_with(pk, prefix, projection, Consistency::Strong)
            .await
    }

    /// Like [`Db::query_prefix_projected`], as fresh as `consistency` asks.
    pub async fn query_prefix_with(
        &self,
        pk: &str,
        prefix: &str,
        projection: Option<&[&str]>,
        consistency: Consistency,
    ) -> Result<Vec<Item>, DbError> {
        if !size::key_fits(&keys::key(pk, prefix)) {
            return Ok(Vec::new());
        }
        let mut q = Query::table(pk).prefix(prefix).consistency(consistency);
        if let Some(fields) = projection {
            q = q.fields(fields);
        }
        self.query_all(q).await
    }
}
