//! Typed DynamoDB expressions: conditions ([`Cond`]), updates ([`Change`])
//! and key ranges ([`Query`]). Callers name attributes and hand values;
//! only this file writes expression text, and every name and value goes
//! through a placeholder, so no attribute can clash with a reserved word
//! and no caller can get a placeholder wrong.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Consistency, DbError, Item, table::Index};

/// The placeholders of one request: `#nK` for names, `:vK` for values.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    pub names: HashMap<String, String>,
    pub values: HashMap<String, AttributeValue>,
}

impl Placeholders {
    fn name(&mut self, attribute: &str) -> String {
        if let Some((p, _)) = self.names.iter().find(|(_, a)| *a == attribute) {
            return p.clone();
        }
        let p = format!("#n{}", self.names.len());
        self.names.insert(p.clone(), attribute.to_owned());
        p
    }

    fn value(&mut self, value: &AttributeValue) -> String {
        let p = format!(":v{}", self.values.len());
        self.values.insert(p.clone(), value.clone());
        p
    }

    /// The names, `None` when there are none (DynamoDB refuses an empty
    /// map).
    pub fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }

    pub fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Node {
    Has(String),
    Lacks(String),
    Compare(String, &'static str, AttributeValue),
    OneOf(String, Vec<AttributeValue>),
    SizeBelow(String, AttributeValue),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
}

/// A condition a write needs to hold. Build it from the constructors and
/// join with [`Cond::and`] and [`Cond::or`].
#[derive(Clone, Debug, PartialEq)]
pub struct Cond(Node);

impl Cond {
    /// The item exists.
    pub fn exists() -> Self {
        Self::has(super::table::PK)
    }

    /// No item has the key yet.
    pub fn absent() -> Self {
        Self::lacks(super::table::PK)
    }

    /// The item carries `attribute`.
    pub fn has(attribute: &str) -> Self {
        Self(Node::Has(attribute.to_owned()))
    }

    /// The item does not carry `attribute`.
    pub fn lacks(attribute: &str) -> Self {
        Self(Node::Lacks(attribute.to_owned()))
    }

    fn compare(attribute: &str, op: &'static str, value: AttributeValue) -> Self {
        Self(Node::Compare(attribute.to_owned(), op, value))
    }

    pub fn eq(attribute: &str, value: AttributeValue) -> Self {
        Self::compare(attribute, "=", value)
    }

    pub fn lt(attribute: &str, value: AttributeValue) -> Self {
        Self::compare(attribute, "<", value)
    }

    pub fn le(attribute: &str, value: AttributeValue) -> Self {
        Self::compare(attribute, "<=", value)
    }

    pub fn gt(attribute: &str, value: AttributeValue) -> Self {
        Self::compare(attribute, ">", value)
    }

    /// `attribute` is absent or below `value` (a cap on a counter that
    /// starts missing).
    pub fn below(attribute: &str, value: AttributeValue) -> Self {
        Self::lacks(attribute).or(Self::lt(attribute, value))
    }

    /// `attribute` is absent or at most `value`.
    pub fn at_most(attribute: &str, value: AttributeValue) -> Self {
        Self::lacks(attribute).or(Self::le(attribute, value))
    }

    /// `attribute` is absent or equals `value`.
    pub fn unset_or_eq(attribute: &str, value: AttributeValue) -> Self {
        Self::lacks(attribute).or(Self::eq(attribute, value))
    }

    /// `attribute` equals one of `values`.
    pub fn one_of(attribute: &str, values: Vec<AttributeValue>) -> Self {
        Self(Node::OneOf(attribute.to_owned(), values))
    }

    /// `attribute` (a set, list, map or string) is absent or holds fewer
    /// than `n` elements.
    pub fn size_below(attribute: &str, n: i64) -> Self {
        Self::lacks(attribute).or(Self(Node::SizeBelow(
            attribute.to_owned(),
            AttributeValue::N(n.to_string()),
        )))
    }

    pub fn and(self, other: Cond) -> Self {
        Self(Node::And(Box::new(self.0), Box::new(other.0)))
    }

    pub fn or(self, other: Cond) -> Self {
        Self(Node::Or(Box::new(self.0), Box::new(other.0)))
    }

    pub(crate) fn render(&self, p: &mut Placeholders) -> String {
        render(&self.0, p)
    }
}

fn render(node: &Node, p: &mut Placeholders) -> String {
    match node {
        Node::Has(a) => format!("attribute_exists({})", p.name(a)),
        Node::Lacks(a) => format!("attribute_not_exists({})", p.name(a)),
        Node::Compare(a, op, v) => format!("{} {op} {}", p.name(a), p.value(v)),
        Node::OneOf(a, vs) => {
            let name = p.name(a);
            let vs: Vec<String> = vs.iter().map(|v| p.value(v)).collect();
            format!("{name} IN ({})", vs.join(", "))
        }
        Node::SizeBelow(a, n) => format!("size({}) < {}", p.name(a), p.value(n)),
        Node::And(l, r) => format!("({}) AND ({})", render(l, p), render(r, p)),
        Node::Or(l, r) => format!("({}) OR ({})", render(l, p), render(r, p)),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Set {
    To(AttributeValue),
    /// Keeps a value already there.
    IfMissing(AttributeValue),
    /// Adds to the value there, counting from `base` when there is none.
    Plus(AttributeValue, AttributeValue),
}

/// What an update changes on one item.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Change {
    set: Vec<(String, Set)>,
    add: Vec<(String, AttributeValue)>,
    remove: Vec<String>,
    delete: Vec<(String, AttributeValue)>,
}

impl Change {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `attribute` to `value`.
    pub fn set(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.set.push((attribute.to_owned(), Set::To(value)));
        self
    }

    /// Sets every attribute of `item`.
    pub fn set_all(self, item: Item) -> Self {
        let mut fields: Vec<_> = item.into_iter().collect();
        // A stable order keeps the expression the same for the same item.
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields
            .into_iter()
            .fold(self, |c, (name, value)| c.set(&name, value))
    }

    /// Sets `attribute` to `value` unless it has one.
    pub fn set_if_missing(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.set.push((attribute.to_owned(), Set::IfMissing(value)));
        self
    }

    /// Sets `attribute` to what it holds (or `base`) plus `n`.
    pub fn set_plus(mut self, attribute: &str, base: i64, n: i64) -> Self {
        self.set.push((
            attribute.to_owned(),
            Set::Plus(
                AttributeValue::N(base.to_string()),
                AttributeValue::N(n.to_string()),
            ),
        ));
        self
    }

    /// Adds `value` to a number (from 0) or its elements to a set.
    pub fn add(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.add.push((attribute.to_owned(), value));
        self
    }

    pub fn remove(mut self, attribute: &str) -> Self {
        self.remove.push(attribute.to_owned());
        self
    }

    /// Takes `value`'s elements out of a set.
    pub fn delete(mut self, attribute: &str, value: AttributeValue) -> Self {
        self.delete.push((attribute.to_owned(), value));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
            && self.add.is_empty()
            && self.remove.is_empty()
            && self.delete.is_empty()
    }

    /// Fails with [`DbError::ItemTooLarge`] when what the update writes
    /// (names and values; the item's other attributes are not known here)
    /// passes an item's limit.
    pub(crate) fn check_size(&self) -> Result<(), DbError> {
        let set = self.set.iter().map(|(a, s)| match s {
            Set::To(v) | Set::IfMissing(v) | Set::Plus(_, v) => (a, v),
        });
        let pairs = self.add.iter().chain(&self.delete).map(|(a, v)| (a, v));
        super::size::check(set.chain(pairs))
    }

    pub(crate) fn render(&self, p: &mut Placeholders) -> String {
        let mut parts = Vec::new();
        if !self.set.is_empty() {
            let sets: Vec<String> = self
                .set
                .iter()
                .map(|(a, s)| {
                    let name = p.name(a);
                    match s {
                        Set::To(v) => format!("{name} = {}", p.value(v)),
                        Set::IfMissing(v) => {
                            format!("{name} = if_not_exists({name}, {})", p.value(v))
                        }
                        Set::Plus(base, v) => format!(
                            "{name} = if_not_exists({name}, {}) + {}",
                            p.value(base),
                            p.value(v)
                        ),
                    }
                })
                .collect();
            parts.push(format!("SET {}", sets.join(", ")));
        }
        let mut pairs = |word: &str, list: &[(String, AttributeValue)]| {
            if !list.is_empty() {
                let each: Vec<String> = list
                    .iter()
                    .map(|(a, v)| format!("{} {}", p.name(a), p.value(v)))
                    .collect();
                parts.push(format!("{word} {}", each.join(", ")));
            }
        };
        pairs("ADD", &self.add);
        pairs("DELETE", &self.delete);
        if !self.remove.is_empty() {
            let names: Vec<String> = self.remove.iter().map(|a| p.name(a)).collect();
            parts.push(format!("REMOVE {}", names.join(", ")));
        }
        parts.join(" ")
    }
}

/// What an update hands back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    Nothing,
    /// The attributes the update changed, as they are after it.
    UpdatedNew,
    /// The whole item after the update.
    AllNew,
}

/// Which sort keys a query reads, under one partition.
#[derive(Clone, Debug, PartialEq)]
pub enum Range {
    All,
    BeginsWith(String),
    Below(String),
    AtMost(String),
    Above(String),
    AtLeast(String),
    /// Both ends included.
    Between(String, String),
}

/// One query: a partition of the table or of an index, a range of its
/// sort keys, and how to read them.
#[derive(Clone, Debug)]
pub struct Query {
    pub(crate) index: Option<Index>,
    pub(crate) partition: String,
    pub(crate) range: Range,
    pub(crate) forward: bool,
    pub(crate) limit: Option<i32>,
    pub(crate) fields: Option<Vec<String>>,
    pub(crate) consistency: Consistency,
    pub(crate) start: Option<Item>,
}

impl Query {
    /// Every item of the table's partition `pk`, strongly consistent,
    /// ascending.
    pub fn table(pk: impl Into<String>) -> Self {
        Self {
            index: None,
            partition: pk.into(),
            range: Range::All,
            forward: true,
            limit: None,
            fields: None,
            consistency: Consistency::Strong,
            start: None,
        }
    }

    /// Every item of `index`'s partition `pk` (index reads are eventual).
    pub fn index(index: Index, pk: impl Into<String>) -> Self {
        Self {
            index: Some(index),
            consistency: Consistency::Eventual,
            ..Self::table(pk)
        }
    }

    pub fn range(mut self, range: Range) -> Self {
        self.range = range;
        self
    }

    /// Sort keys that begin with `prefix`.
    pub fn prefix(self, prefix: impl Into<String>) -> Self {
        self.range(Range::BeginsWith(prefix.into()))
    }

    /// Newest (highest sort key) first.
    pub fn backward(mut self) -> Self {
        self.forward = false;
        self
    }

    pub fn forward(mut self, forward: bool) -> Self {
        self.forward = forward;
        self
    }

    /// At most `n` items examined per page.
    pub fn limit(mut self, n: i32) -> Self {
        self.limit = Some(n);
        self
    }

    /// Reads only `fields` of each item.
    pub fn fields(mut self, fields: &[&str]) -> Self {
        self.fields = Some(fields.iter().map(|f| f.to_string()).collect());
        self
    }

    pub fn consistency(mut self, consistency: Consistency) -> Self {
        self.consistency = consistency;
        self
    }

    /// Starts after the key a page before ended on.
    pub fn after(mut self, key: Option<Item>) -> Self {
        self.start = key.filter(|k| !k.is_empty());
        self
    }

    /// The key condition, with its placeholders.
    pub(crate) fn key_condition(&self, p: &mut Placeholders) -> String {
        let (pk, sk) = match &self.index {
            Some(i) => (i.pk, i.sk),
            None => (super::table::PK, super::table::SK),
        };
        let partition = format!(
            "{} = {}",
            p.name(pk),
            p.value(&AttributeValue::S(self.partition.clone()))
        );
        let s = |v: &String| AttributeValue::S(v.clone());
        let sort = match &self.range {
            Range::All => return partition,
            Range::BeginsWith(v) => format!("begins_with({}, {})", p.name(sk), p.value(&s(v))),
            Range::Below(v) => format!("{} < {}", p.name(sk), p.value(&s(v))),
            Range::AtMost(v) => format!("{} <= {}", p.name(sk), p.value(&s(v))),
            Range::Above(v) => format!("{} > {}", p.name(sk), p.value(&s(v))),
            Range::AtLeast(v) => format!("{} >= {}", p.name(sk), p.value(&s(v))),
            Range::Between(a, b) => format!(
                "{} BETWEEN {} AND {}",
                p.name(sk),
                p.value(&s(a)),
                p.value(&s(b))
            ),
        };
        format!("{partition} AND {sort}")
    }

    /// The projection, with its placeholders.
    pub(crate) fn projection(&self, p: &mut Placeholders) -> Option<String> {
        self.fields.as_ref().map(|fields| {
            fields
                .iter()
                .map(|f| p.name(f))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{n, s};

    #[test]
    fn a_condition_names_everything_through_placeholders() {
        let mut p = Placeholders::default();
        let c = Cond::exists().and(Cond::below("name", n(5)));
        assert_eq!(
            c.render(&mut p),
            "(attribute_exists(#n0)) AND ((attribute_not_exists(#n1)) OR (#n1 < :v0))"
        );
        assert_eq!(p.names["#n1"], "name");
        assert_eq!(p.values[":v0"], n(5));
    }

    #[test]
    fn an_update_shares_placeholders_with_its_condition() {
        let mut p = Placeholders::default();
        let change = Change::new()
            .set("status", s("done"))
            .set_plus("touch", 0, 1)
            .add("n", n(1))
            .remove("cursor")
            .delete("purging", n(3));
        let update = change.render(&mut p);
        let cond = Cond::one_of("status", vec![s("queued"), s("running")]).render(&mut p);
        assert_eq!(
            update,
            "SET #n0 = :v0, #n1 = if_not_exists(#n1, :v1) + :v2 ADD #n2 :v3 DELETE #n3 :v4 REMOVE #n4"
        );
        assert_eq!(cond, "#n0 IN (:v5, :v6)");
    }

    #[test]
    fn a_query_reads_its_index_keys() {
        let mut p = Placeholders::default();
        let q = Query::index(crate::db::table::INDEXES[0], "DUE")
            .range(Range::AtMost("9".into()))
            .fields(&["pk", "sk"]);
        assert_eq!(q.key_condition(&mut p), "#n0 = :v0 AND #n1 <= :v1");
        assert_eq!(p.names["#n1"], "gsi1sk");
        assert_eq!(q.projection(&mut p).as_deref(), Some("#n2, #n3"));
        assert_eq!(q.consistency, Consistency::Eventual);
    }
}
