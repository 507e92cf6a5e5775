//! The table as the checks see it, kept small as it is read: each item is
//! reduced when it arrives ([`Inventory::add`]), so memory holds what the
//! checks compare, never the texts.
//!
//! - an issue keeps every attribute but its title and body, which become
//!   the words the index keeps of them (`doc::text_words`); a comment
//!   keeps its keys, times and kind, and its body becomes its words
//!   (`doc::comment_words`). Words are joined by `\n`, which no word holds
//!   (UAX #29 always breaks at a line feed): a few hundred bytes where a
//!   list of strings would take more than the body;
//! - an index document (`IXD#`) becomes its `rev`, its `seq` and one
//!   64-bit fingerprint per field;
//! - a listing entry (`IX#...`, and the obsolete `SX#`/`SXN#` items)
//!   becomes its sort key (and `t`) under its partition key, without the
//!   per-item map;
//! - anything else keeps only the attributes some check reads.

use std::{
    collections::BTreeMap,
    hash::{DefaultHasher, Hasher},
};

use crate::{
    db::{Item, Value, flag, keys, number, s, text},
    issues::{
        IssueRecord,
        index::doc::{self, Doc},
    },
};

/// The attributes the checks read of items that are not issues, comments,
/// index documents or listing entries.
const KEPT: [&str; 66] = [
    "pk",
    // Public repositories' listing entries.
    "archived",
    "sk",
    // Hook counters (`HOOK#N`).
    "n",
    "kind",
    "id",
    "index",
    "is_pull",
    "closed",
    "milestone",
    "num_issues",
    "num_closed_issues",
    "num_pulls",
    "num_closed_pulls",
    "last_index",
    "owner",
    "name",
    "title",
    "visibility",
    "repo_id",
    "members",
    "uuid",
    "refs",
    "envs",
    // Environment variables and their tallies (`ENVS#`).
    "value_bytes",
    "count",
    "bytes",
    // Secrets, only as `s1:` (sealed) or `clear` (see `add`).
    "private_key",
    "client_secret",
    "webhook_secret",
    "dests",
    // Coolify's numeric ids' links (`id` is above).
    "project_id",
    "environment_id",
    "environment_uuid",
    "project_uuid",
    "server_uuid",
    "provider_app_uuid",
    "private_key_uuid",
    "claimed",
    "apps",
    "created",
    "updated",
    "private",
    "has_issues",
    "has_pull_requests",
    "io",
    "ic",
    "po",
    "pc",
    "comments",
    "num_issue_comments",
    "num_pull_comments",
    "purging",
    "status",
    "application_uuid",
    // A queued deployment's queue entry, a clean-up's index entry.
    "deployment_uuid",
    "created_at",
    "indexed",
    "applications",
    "projects",
    "servers",
    "private_keys",
    "provider_apps",
    // A write's index mark (`IXP#…`): its token.
    "w",
    // Parked stream changes' queues (`PARK#…`, `Q`).
    "handler",
    "first_parked",
];

/// The attribute that carries an issue's or a comment's words, `\n`-joined.
pub(super) const WORDS: &str = "_words";

/// Partition keys of index listings: the index's own, and the previous
/// index's entries and counters (obsolete).
pub(super) const LISTING_PREFIX: &str = "IX#";
pub(super) const OBSOLETE_PREFIXES: [&str; 2] = ["SX#", "SXN#"];

fn is_listing(pk: &str) -> bool {
    pk.starts_with(LISTING_PREFIX) || OBSOLETE_PREFIXES.iter().any(|p| pk.starts_with(p))
}

/// A stored index document, as far as the checks compare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredDoc {
    pub rev: i64,
    pub seq: String,
    pub cseq: String,
    /// One fingerprint per field ([`fingerprint`]); `None` when the item
    /// does not read as a document.
    pub fields: Option<BTreeMap<String, u64>>,
}

/// One entry of a listing: its sort key and, where it carries them, its
/// other time (`t`) and whether its issue is closed (`c`).
pub type Entry = (Box<str>, Option<(i64, bool)>);

#[derive(Debug, Default)]
pub struct Inventory {
    /// Items other than documents and listing entries, by partition key,
    /// in sort-key order.
    pub partitions: BTreeMap<String, Vec<Item>>,
    /// Index documents by (repository id, issue number).
    pub docs: BTreeMap<(i64, i64), StoredDoc>,
    /// Listing entries by partition key, in sort-key order.
    pub listings: BTreeMap<String, Vec<Entry>>,
    /// Every item read.
    pub items: usize,
    /// What reading them cost.
    pub read_units: f64,
}

impl Inventory {
    /// Takes one item in, reduced to what the checks read.
    pub fn add(&mut self, mut item: Item) {
        self.items += 1;
        let pk = text(&item, "pk").to_string();
        let sk = text(&item, "sk").to_string();
        if is_listing(&pk) {
            let t = item.get("t").and_then(|v| v.as_n().ok()?.parse().ok());
            let t = t.map(|t| (t, flag(&item, "c")));
            self.listings
                .entry(pk)
                .or_default()
                .push((sk.into_boxed_str(), t));
            return;
        }
        if let Some(repo) = pk.strip_prefix("REPO#").and_then(|r| r.parse().ok()) {
            if let Some(index) = sk
                .strip_prefix(keys::INDEX_DOC_PREFIX)
                .and_then(|n| n.parse().ok())
            {
                self.docs.insert((repo, index), stored_doc(item));
                return;
            }
            if sk.starts_with(keys::ISSUE_PREFIX) {
                let issue = IssueRecord {
                    index: number(&item, "index"),
                    title: text(&item, "title").to_string(),
                    body: text(&item, "body").to_string(),
                    ..IssueRecord::default()
                };
                item.remove("title");
                item.remove("body");
                item.insert(WORDS.into(), s(doc::text_words(&issue).join("\n")));
                self.partitions.entry(pk).or_default().push(item);
                return;
            }
            if sk.starts_with(keys::COMMENT_PREFIX) {
                let words = doc::comment_words(text(&item, "body")).join("\n");
                item.insert(WORDS.into(), s(words));
            }
        }
        // Whether a clean-up is listed under its server is all the checks
        // need of its index keys.
        if text(&item, "kind") == "cleanup" && item.contains_key("gsi1pk") {
            item.insert("indexed".into(), Value::Bool(true));
        }
        item.retain(|name, _| name == WORDS || KEPT.contains(&name.as_str()));
        // Whether a secret is sealed is all the checks need of it.
        for name in ["private_key", "client_secret", "webhook_secret"] {
            if let Some(Value::S(v)) = item.get_mut(name) {
                *v = if crate::seal::is_sealed(v) {
                    "s1:"
                } else {
                    "clear"
                }
                .to_string();
            }
        }
        self.partitions.entry(pk).or_default().push(item);
    }

    /// Takes in what another scan segment read.
    pub fn merge(&mut self, other: Inventory) {
        for (pk, items) in other.partitions {
            self.partitions.entry(pk).or_default().extend(items);
        }
        for (pk, entries) in other.listings {
            self.listings.entry(pk).or_default().extend(entries);
        }
        self.docs.extend(other.docs);
        self.items += other.items;
        self.read_units += other.read_units;
    }

    /// Sorts each partition and listing by sort key (a scan returns them
    /// in any order).
    pub fn sort(&mut self) {
        for items in self.partitions.values_mut() {
            items.sort_by(|a, b| text(a, "sk").cmp(text(b, "sk")));
        }
        for entries in self.listings.values_mut() {
            entries.sort_unstable();
            entries.shrink_to_fit();
        }
    }

    pub(super) fn partition(&self, pk: &str) -> &[Item] {
        self.partitions.get(pk).map_or(&[], Vec::as_slice)
    }

    pub(super) fn get(&self, pk: &str, sk: &str) -> Option<&Item> {
        let items = self.partition(pk);
        items
            .binary_search_by(|i| text(i, "sk").cmp(sk))
            .ok()
            .map(|at| &items[at])
    }

    pub(super) fn with_prefix<'a>(
        &'a self,
        pk: &str,
        prefix: &'a str,
    ) -> impl Iterator<Item = &'a Item> {
        self.partition(pk)
            .iter()
            .filter(move |i| text(i, "sk").starts_with(prefix))
    }

    /// A listing entry: `Some(t)` when it exists (`t` as stored).
    pub(super) fn entry(&self, pk: &str, sk: &str) -> Option<Option<(i64, bool)>> {
        let entries = self.listings.get(pk)?;
        entries
            .binary_search_by(|(have, _)| (**have).cmp(sk))
            .ok()
            .map(|at| entries[at].1)
    }
}

/// The words of a reduced issue or comment.
pub(super) fn words(item: &Item) -> impl Iterator<Item = &str> {
    text(item, WORDS).split('\n').filter(|w| !w.is_empty())
}

fn stored_doc(item: Item) -> StoredDoc {
    let rev = number(&item, "rev");
    let text = |name: &str| match item.get(name) {
        Some(Value::S(s)) => s.clone(),
        _ => String::new(),
    };
    let (seq, cseq) = (text("seq"), text("cseq"));
    StoredDoc {
        rev,
        seq,
        cseq,
        fields: Doc::from_item(item).ok().map(|d| fingerprint(&d)),
    }
}

/// One fingerprint per field of a document, as the document is written
/// (fields left out when empty are absent); `seq`, `cseq`, `rev` and
/// `version` are left out: they say when it was written, not what it holds.
pub fn fingerprint(d: &Doc) -> BTreeMap<String, u64> {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(d) else {
        return BTreeMap::new();
    };
    fields
        .into_iter()
        .filter(|(name, _)| !matches!(name.as_str(), "seq" | "cseq" | "rev" | "version"))
        .map(|(name, value)| {
            let h = hash(&[value.to_string().as_bytes()]);
            (name, h)
        })
        .collect()
}

/// A 64-bit hash of some byte strings (the same in every run: SipHash
/// with fixed keys).
pub(super) fn hash(parts: &[&[u8]]) -> u64 {
    let mut h = DefaultHasher::new();
    for p in parts {
        h.write_usize(p.len());
        h.write(p);
    }
    h.finish()
}
