//! Who made a change: every write that notifies (an issue, a pull request,
//! a comment) carries its actor in the item, so that the table's stream,
//! which webhooks are built from, says who did it (docs/webhooks.md).

use serde::{Deserialize, Serialize};

use aws_sdk_dynamodb::types::AttributeValue;

use super::{DbError, Item};

/// The attribute that holds the actor of an item's last change.
pub const BY: &str = "by";

/// The user on whose behalf a request writes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub id: i64,
    /// The login as the user spells it.
    pub name: String,
}

impl Actor {
    /// The actor an item names, if any (items written before actors were
    /// recorded, or by background work, name none).
    pub fn of(item: &Item) -> Option<Actor> {
        let by = item.get(BY)?.as_m().ok()?;
        super::from_item(by.clone()).ok()
    }

    /// Writes this actor into `item`.
    pub fn stamp(&self, item: &mut Item) -> Result<(), DbError> {
        item.insert(BY.into(), AttributeValue::M(super::to_item(self)?));
        Ok(())
    }
}
