//! A TransactWriteItems call under construction: domain code lists its
//! writes and their conditions, then hands the [`Tx`] to [`Db::transact`].
//! Failed conditions are reported by position, in the order added.
//!
//! [`Db::transact`]: super::Db::transact

use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    ConditionCheck, Delete, Put, ReturnValuesOnConditionCheckFailure, TransactWriteItem, Update,
};

use super::{
    Action, DbError, Item, Permission,
    expr::{Change, Cond, Placeholders},
    size,
};

#[derive(Clone, Debug)]
pub struct Tx {
    table: Arc<str>,
    pub(super) items: Vec<TransactWriteItem>,
}

fn built<T>(r: Result<T, aws_sdk_dynamodb::error::BuildError>) -> Result<T, DbError> {
    r.map_err(|e| DbError::Service(e.to_string()))
}

impl Tx {
    pub(crate) fn new(table: Arc<str>) -> Self {
        Self {
            table,
            items: Vec::new(),
        }
    }

    /// Number of writes so far (the index the next one will have).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Appends `other`'s writes (on the same table) after these.
    pub fn extend(&mut self, other: Tx) {
        self.items.extend(other.items);
    }

    fn push_put(&mut self, item: Item, cond: Option<Cond>) -> Result<&mut Self, DbError> {
        size::check_item(&item)?;
        let mut p = Placeholders::default();
        let condition = cond.map(|c| c.render(&mut p));
        let b = Put::builder()
            .table_name(&*self.table)
            .set_item(Some(item))
            .set_condition_expression(condition)
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values());
        let put = built(b.build())?;
        self.items
            .push(TransactWriteItem::builder().put(put).build());
        Ok(self)
    }

    fn push_delete(&mut self, key: Item, cond: Option<Cond>) -> Result<&mut Self, DbError> {
        let mut p = Placeholders::default();
        let condition = cond.map(|c| c.render(&mut p));
        let b = Delete::builder()
            .table_name(&*self.table)
            .set_key(Some(key))
            .set_condition_expression(condition)
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values());
        let d = built(b.build())?;
        self.items
            .push(TransactWriteItem::builder().delete(d).build());
        Ok(self)
    }

    /// Writes `item`, replacing whatever is there.
    pub fn put(&mut self, item: Item) -> Result<&mut Self, DbError> {
        self.push_put(item, None)
    }

    /// Writes `item` if `cond` holds.
    pub fn put_when(&mut self, item: Item, cond: Cond) -> Result<&mut Self, DbError> {
        self.push_put(item, Some(cond))
    }

    /// Writes `item` only if nothing has its key yet (uniqueness guards).
    pub fn put_if_absent(&mut self, item: Item) -> Result<&mut Self, DbError> {
        self.push_put(item, Some(Cond::absent()))
    }

    /// Removes the item under `key` (no error if it is gone).
    pub fn delete(&mut self, key: Item) -> Result<&mut Self, DbError> {
        self.push_delete(key, None)
    }

    /// Removes the item under `key` if `cond` holds.
    pub fn delete_when(&mut self, key: Item, cond: Cond) -> Result<&mut Self, DbError> {
        self.push_delete(key, Some(cond))
    }

    /// Removes the item under `key`, failing the transaction if it is absent.
    pub fn delete_existing(&mut self, key: Item) -> Result<&mut Self, DbError> {
        self.push_delete(key, Some(Cond::exists()))
    }

    /// Fails the transaction unless `cond` holds on the item under `key`.
    pub fn check(&mut self, key: Item, cond: Cond) -> Result<&mut Self, DbError> {
        let mut p = Placeholders::default();
        let condition = cond.render(&mut p);
        let c = built(
            ConditionCheck::builder()
                .table_name(&*self.table)
                .set_key(Some(key))
                .condition_expression(condition)
                .set_expression_attribute_names(p.names())
                .set_expression_attribute_values(p.values())
                .build(),
        )?;
        self.items
            .push(TransactWriteItem::builder().condition_check(c).build());
        Ok(self)
    }

    /// Fails the transaction unless the item under `key` exists.
    pub fn require(&mut self, key: Item) -> Result<&mut Self, DbError> {
        self.check(key, Cond::exists())
    }

    /// Applies `change` to the item under `key`, if `cond` (when given)
    /// holds. A failed condition hands the item back as it was (at no
    /// cost): the caller may retry from it without reading it again.
    pub fn change(
        &mut self,
        key: Item,
        change: Change,
        cond: Option<Cond>,
    ) -> Result<&mut Self, DbError> {
        change.check_size()?;
        let mut p = Placeholders::default();
        let expression = change.render(&mut p);
        let condition = cond.map(|c| c.render(&mut p));
        let u = Update::builder()
            .table_name(&*self.table)
            .set_key(Some(key))
            .update_expression(expression)
            .set_return_values_on_condition_check_failure(
                condition
                    .as_ref()
                    .map(|_| ReturnValuesOnConditionCheckFailure::AllOld),
            )
            .set_condition_expression(condition)
            .set_expression_attribute_names(p.names())
            .set_expression_attribute_values(p.values());
        self.items.push(
            TransactWriteItem::builder()
                .update(built(u.build())?)
                .build(),
        );
        Ok(self)
    }
}

/// What IAM checks for a transaction: the action of each of its items
/// (`dynamodb:PutItem` for a `Put`, ..., `dynamodb:ConditionCheckItem`
/// for a `ConditionCheck`), each once.
pub(super) fn permissions(items: &[TransactWriteItem]) -> Vec<Permission> {
    let mut needs: Vec<Permission> = items
        .iter()
        .filter_map(|i| {
            let action = if i.put.is_some() {
                Action::PutItem
            } else if i.update.is_some() {
                Action::UpdateItem
            } else if i.delete.is_some() {
                Action::DeleteItem
            } else if i.condition_check.is_some() {
                Action::ConditionCheckItem
            } else {
                return None;
            };
            Some(Permission::table(action))
        })
        .collect();
    needs.sort();
    needs.dedup();
    needs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_needs_the_action_of_each_item_once() {
        let key = || crate::db::keys::key("P", "S");
        let mut tx = Tx::new("t".into());
        tx.put(key()).unwrap();
        tx.put_if_absent(key()).unwrap();
        tx.require(key()).unwrap();
        tx.change(key(), Change::new().set("a", crate::db::s("x")), None)
            .unwrap();
        assert_eq!(
            permissions(&tx.items),
            [
                Permission::table(Action::PutItem),
                Permission::table(Action::UpdateItem),
                Permission::table(Action::ConditionCheckItem),
            ]
        );
        tx.delete(key()).unwrap();
        assert!(permissions(&tx.items).contains(&Permission::table(Action::DeleteItem)));
    }
}
