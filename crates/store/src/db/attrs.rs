//! Item helpers: attribute values, projections and serde conversions.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use serde::{Serialize, de::DeserializeOwned};

use super::{DbError, Item};

/// A projection expression naming `fields` through placeholders (any may be
/// a reserved word, such as `index`), with the placeholders' names.
pub fn projection_of(fields: &[&str]) -> (String, HashMap<String, String>) {
    let names: HashMap<String, String> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| (format!("#p{i}"), f.to_string()))
        .collect();
    let expression = (0..fields.len())
        .map(|i| format!("#p{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    (expression, names)
}

/// A string attribute of an item, `""` when absent or not a string.
pub fn text<'a>(item: &'a Item, name: &str) -> &'a str {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s,
        _ => "",
    }
}

/// A number attribute of an item, 0 when absent or not a number.
pub fn number(item: &Item, name: &str) -> i64 {
    match item.get(name) {
        Some(AttributeValue::N(n)) => n.parse().unwrap_or(0),
        _ => 0,
    }
}

/// A boolean attribute of an item, `false` when absent or not a boolean.
pub fn flag(item: &Item, name: &str) -> bool {
    matches!(item.get(name), Some(AttributeValue::Bool(true)))
}

/// A boolean attribute value.
pub fn b(value: bool) -> AttributeValue {
    AttributeValue::Bool(value)
}

/// A string attribute value.
pub fn s(value: impl Into<String>) -> AttributeValue {
    AttributeValue::S(value.into())
}

/// A number attribute value.
pub fn n(value: impl ToString) -> AttributeValue {
    AttributeValue::N(value.to_string())
}

/// Encodes a record as an item. Empty strings are left out (records give
/// such fields `#[serde(default)]`): DynamoDB Local, which the tests run
/// against, still refuses them, and an absent attribute costs nothing.
pub fn to_item<T: Serialize>(value: &T) -> Result<Item, DbError> {
    let mut item: Item =
        serde_dynamo::to_item(value).map_err(|e| DbError::Decode(e.to_string()))?;
    strip_empty_strings(&mut item);
    Ok(item)
}

fn strip_empty_strings(map: &mut Item) {
    map.retain(|_, v| !matches!(v, AttributeValue::S(s) if s.is_empty()));
    for v in map.values_mut() {
        if let AttributeValue::M(inner) = v {
            strip_empty_strings(inner);
        }
    }
}

pub fn from_item<T: DeserializeOwned>(item: Item) -> Result<T, DbError> {
    serde_dynamo::from_item(item).map_err(|e| DbError::Decode(e.to_string()))
}
