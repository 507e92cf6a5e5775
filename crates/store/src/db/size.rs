//! DynamoDB's 400 KB item limit, checked before a write is sent, so an
//! oversized write is a client error naming its largest field rather than
//! a failed call. Sizes follow DynamoDB's rules: an attribute is its name's
//! UTF-8 bytes plus its value; strings and binaries by their bytes, numbers
//! about one byte per two digits plus one, booleans and nulls one byte,
//! lists and maps three bytes plus one per element.

use aws_sdk_dynamodb::types::AttributeValue;

use super::{DbError, Item};

/// The largest item DynamoDB stores.
pub const ITEM_LIMIT: usize = 400 * 1024;
/// The longest partition and sort keys DynamoDB takes, in bytes.
pub const PARTITION_KEY_LIMIT: usize = 2048;
pub const SORT_KEY_LIMIT: usize = 1024;

/// Whether a key can name an item at all: longer keys (a name from a path
/// or a query that no record could have) are refused by DynamoDB, so they
/// are answered as "nothing there" without asking.
pub fn key_fits(key: &Item) -> bool {
    let len = |name: &str| {
        key.get(name)
            .and_then(|v| v.as_s().ok())
            .map_or(0, String::len)
    };
    len("pk") <= PARTITION_KEY_LIMIT && len("sk") <= SORT_KEY_LIMIT
}

fn number(n: &str) -> usize {
    let digits = n
        .trim_start_matches(['-', '+'])
        .split(['e', 'E'])
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .skip_while(|c| *c == '0')
        .count();
    (digits.div_ceil(2) + 1).min(21)
}

/// Bytes one value takes.
pub fn value(v: &AttributeValue) -> usize {
    match v {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(items) => 3 + items.iter().map(|i| value(i) + 1).sum::<usize>(),
        AttributeValue::M(map) => {
            3 + map
                .iter()
                .map(|(k, v)| k.len() + value(v) + 1)
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// Bytes of a whole item (or of the attributes an update writes).
pub fn item<'a>(attrs: impl IntoIterator<Item = (&'a String, &'a AttributeValue)>) -> usize {
    attrs.into_iter().map(|(k, v)| k.len() + value(v)).sum()
}

/// Fails with [`DbError::ItemTooLarge`], naming the largest attribute,
/// when `attrs` pass the limit.
pub fn check<'a>(
    attrs: impl IntoIterator<Item = (&'a String, &'a AttributeValue)> + Clone,
) -> Result<(), DbError> {
    let total = item(attrs.clone());
    if total <= ITEM_LIMIT {
        return Ok(());
    }
    let attribute = attrs
        .into_iter()
        .max_by_key(|(k, v)| k.len() + value(v))
        .map(|(k, _)| k.clone())
        .unwrap_or_default();
    Err(DbError::ItemTooLarge {
        attribute,
        bytes: total,
    })
}

/// [`check`] for a whole item.
pub fn check_item(item: &Item) -> Result<(), DbError> {
    check(item.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{n, s};

    #[test]
    fn follows_dynamodbs_rules() {
        assert_eq!(value(&s("héllo")), 6);
        assert_eq!(value(&n(0)), 1);
        assert_eq!(value(&n(12345)), 4);
        assert_eq!(value(&n("-1.5")), 2);
        assert_eq!(value(&AttributeValue::Bool(true)), 1);
        assert_eq!(value(&AttributeValue::L(vec![s("ab"), n(7)])), 3 + 3 + 3);
        let item = Item::from([("pk".to_string(), s("REPO#1"))]);
        assert_eq!(super::item(&item), 8);
    }

    #[test]
    fn names_the_largest_attribute() {
        let mut item = Item::from([("title".to_string(), s("t"))]);
        item.insert("body".into(), s("x".repeat(ITEM_LIMIT)));
        match check_item(&item) {
            Err(DbError::ItemTooLarge { attribute, bytes }) => {
                assert_eq!(attribute, "body");
                assert_eq!(bytes, ITEM_LIMIT + 4 + 5 + 1);
            }
            other => panic!("{other:?}"),
        }
        item.insert("body".into(), s("x".repeat(1000)));
        assert!(check_item(&item).is_ok());
    }
}
