//! The typed single-item writes and queries: what callers outside the
//! store use instead of SDK builders (see `expr` for the expressions).

use aws_sdk_dynamodb::{
    operation::query::QueryOutput,
    types::{ReturnConsumedCapacity, ReturnValue, Select},
};

use super::{
    Action, Consistency, Db, DbError, Item, Permission,
    error::Op,
    expr::{Change, Cond, Placeholders, Query, Returns},
};

/// One page of a query or scan: its items, when there may be more the key
/// to go on after, and what it cost.
#[derive(Clone, Debug, Default)]
pub struct Page {
    pub items: Vec<Item>,
    pub next: Option<Item>,
    pub read_units: f64,
}

fn units(consumed: Option<&aws_sdk_dynamodb::types::ConsumedCapacity>) -> f64 {
    consumed.and_then(|c| c.capacity_units).unwrap_or(0.0)
}

impl Db {
    /// Writes `item`, replacing whatever has its key.
    pub async fn put_item(&self, item: Item) -> Result<(), DbError> {
        self.put(|b| b.set_item(Some(item))).await
    }

    /// Reads one item as fresh as `consistency` asks (see [`Consistency`]
    /// for when a read may be eventual).
    pub async fn get_with_consistency(
        &self,
        key: Item,
        consistency: Consistency,
    ) -> Result<Option<Item>, DbError> {
        self.get_with(|g| {
            g.set_key(Some(key))
                .consistent_read(consistency == Consistency::Strong)
        })
        .await
    }

    /// Writes `item` if `cond` holds; [`DbError::ConditionFailed`] if not.
    pub async fn put_when(&self, item: Item, cond: Cond) -> Result<(), DbError> {
        let mut p = Placeholders::default();
        let condition = cond.render(&mut p);
        self.put(|b| {
            b.set_item(Some(item))
                .condition_expression(condition)
                .set_expression_attribute_names(p.names())
                .set_expression_attribute_values(p.values())
        })
        .await
    }

    /// Removes the item under `key` if `cond` holds.
    pub async fn delete_when(&self, key: Item, cond: Cond) -> Result<(), DbError> {
        let mut p = Placeholders::default();
        let condition = cond.render(&mut p);
        self.delete(|b| {
            b.set_key(Some(key))
                .condition_expression(condition)
                .set_expression_attribute_names(p.names())
                .set_expression_attribute_values(p.values())
        })
        .await
    }

    /// Applies `change` to the item under `key` (creating it when there is
    /// none, unless `cond` says otherwise), and hands back what `returns`
    /// asks for.
    pub async fn change(
        &self,
        key: Item,
        change: Change,
        cond: Option<Cond>,
        returns: Returns,
    ) -> Result<Option<Item>, DbError> {
        change.check_size()?;
        let mut p = Placeholders::default();
        let expression = change.render(&mut p);
        let condition = cond.map(|c| c.render(&mut p));
        let returns = match returns {
            Returns::Nothing => ReturnValue::None,
            Returns::UpdatedNew => ReturnValue::UpdatedNew,
            Returns::AllNew => ReturnValue::AllNew,
        };
        self.update(|b| {
            b.set_key(Some(key))
                .update_expression(expression)
                .set_condition_expression(condition)
                .set_expression_attribute_names(p.names())
                .set_expression_attribute_values(p.values())
                .return_values(returns)
        })
        .await
    }

    /// One page of `q`.
    pub async fn query_page(&self, q: Query) -> Result<Page, DbError> {
        let out = self.query_once(&q, false).await?;
        Ok(Page {
            read_units: units(out.consumed_capacity.as_ref()),
            items: out.items.unwrap_or_default(),
            next: out.last_evaluated_key.filter(|k| !k.is_empty()),
        })
    }

    /// Sends one page of `q`; with `count`, DynamoDB counts its matches
    /// instead of returning them.
    async fn query_once(&self, q: &Query, count: bool) -> Result<QueryOutput, DbError> {
        let mut p = Placeholders::default();
        let key = q.key_condition(&mut p);
        let projection = if count { None } else { q.projection(&mut p) };
        self.query(|b| {
            let b = b
                .set_index_name(q.index.map(|i| i.name.to_owned()))
                .key_condition_expression(key)
                .set_projection_expression(projection)
                .set_expression_attribute_names(p.names())
                .set_expression_attribute_values(p.values())
                .scan_index_forward(q.forward)
                .set_limit(q.limit)
                .consistent_read(q.index.is_none() && q.consistency == Consistency::Strong)
                .set_exclusive_start_key(q.start.clone());
            if count { b.select(Select::Count) } else { b }
        })
        .await
    }

    /// One strongly consistent page of segment `segment` of `segments` of
    /// a parallel scan, whole items, after `start`. For the operators'
    /// tools, which reduce each page before reading the next: no request
    /// path scans.
    pub async fn scan_page(
        &self,
        segment: i32,
        segments: i32,
        start: Option<Item>,
    ) -> Result<Page, DbError> {
        let call = self
            .clients
            .retrying
            .scan()
            .table_name(self.table())
            .segment(segment)
            .total_segments(segments)
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .set_exclusive_start_key(start)
            .send();
        let out = self
            .record(Permission::table(Action::Scan), Op::Read, call)
            .await?;
        Ok(Page {
            read_units: units(out.consumed_capacity.as_ref()),
            items: out.items.unwrap_or_default(),
            next: out.last_evaluated_key.filter(|k| !k.is_empty()),
        })
    }

    /// Every item of `q`, page after page. For small, bounded collections
    /// only.
    pub async fn query_all(&self, q: Query) -> Result<Vec<Item>, DbError> {
        let mut items = Vec::new();
        let mut start = q.start.clone();
        loop {
            let page = self.query_page(q.clone().after(start)).await?;
            items.extend(page.items);
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok(items),
            }
        }
    }

    /// The first `n` items of `q`, page after page (each page asks for
    /// what is still wanted, at most 1,000): what a listing reads to show
    /// a window that ends at `n`.
    pub async fn query_first(&self, q: Query, n: usize) -> Result<Vec<Item>, DbError> {
        let mut items = Vec::new();
        let mut start = q.start.clone();
        while items.len() < n {
            let left = (n - items.len()).min(1_000) as i32;
            let page = self
                .query_page(q.clone().limit(left).after(start.take()))
                .await?;
            items.extend(page.items);
            match page.next {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        Ok(items)
    }

    /// How many items `q` matches, if at most `max`; `None` past it. The
    /// pages stop once `max` is passed, so the cost is bounded by `max`
    /// items whatever the range holds.
    pub async fn count_at_most(&self, q: Query, max: i64) -> Result<Option<i64>, DbError> {
        let mut total = 0i64;
        let mut start = q.start.clone();
        loop {
            let left = (max + 1 - total).clamp(1, i64::from(i32::MAX)) as i32;
            let page = q.clone().limit(left).after(start.take());
            let out = self.query_once(&page, true).await?;
            total += i64::from(out.count);
            if total > max {
                return Ok(None);
            }
            match out.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(k) => start = Some(k),
                None => return Ok(Some(total)),
            }
        }
    }

    /// How many items `q` matches, counted page by page (each page reads
    /// at most `q`'s limit).
    pub async fn count(&self, q: Query) -> Result<i64, DbError> {
        let mut total = 0;
        let mut start = q.start.clone();
        loop {
            let out = self
                .query_once(&q.clone().after(start.take()), true)
                .await?;
            total += i64::from(out.count);
            match out.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(k) => start = Some(k),
                None => return Ok(total),
            }
        }
    }
}
