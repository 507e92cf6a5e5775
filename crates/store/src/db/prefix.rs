//! Reads of every item under one partition key whose sort key begins with
//! a prefix: small, bounded collections (a user's tokens, a repository's
//! labels or grants).

use super::{Consistency, Db, DbError, Item, keys, project, s, size};

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
        let mut items = Vec::new();
        if !size::key_fits(&keys::key(pk, prefix)) {
            return Ok(items);
        }
        let mut cursor = None;
        loop {
            let out = self
                .query(|mut q| {
                    q = q
                        .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
                        .expression_attribute_values(":pk", s(pk))
                        .expression_attribute_values(":p", s(prefix))
                        .consistent_read(consistency.strong())
                        .set_exclusive_start_key(cursor.take());
                    project(q, projection)
                })
                .await?;
            items.extend(out.items.unwrap_or_default());
            match out.last_evaluated_key {
                Some(k) if !k.is_empty() => cursor = Some(k),
                _ => return Ok(items),
            }
        }
    }
}
