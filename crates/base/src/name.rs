//! Case-insensitive names (owners, repositories, teams, logins), as in
//! Gitea: [`Name`] keeps the spelling a client wrote and compares, hashes
//! and keys by the folded form. Folding happens here and nowhere else. A
//! module of its own, below every area, so that keys (`db::keys`) and every
//! area can fold without depending on accounts; `accounts::names` holds the
//! parsing rules.

use std::{
    fmt,
    hash::{Hash, Hasher},
};

/// The folded (case-insensitive) form of a name: what keys and
/// comparisons use.
pub fn fold(name: &str) -> String {
    name.to_lowercase()
}

/// Whether two names are the same name, whatever their case.
pub fn same(a: &str, b: &str) -> bool {
    a == b || fold(a) == fold(b)
}

/// A name that compares by its folded form and keeps its spelling for
/// display. Built from anything (a path parameter, a stored record); the
/// parsing types of `accounts::names` ([`OwnerName`], [`RepoName`], [`TeamName`]) check
/// the rules before handing one out.
#[derive(Clone, Debug)]
pub struct Name {
    spelling: String,
    key: String,
}

impl Name {
    pub fn new(spelling: impl Into<String>) -> Self {
        let spelling = spelling.into();
        let key = fold(&spelling);
        Self { spelling, key }
    }

    /// The name as written.
    pub fn as_str(&self) -> &str {
        &self.spelling
    }

    /// The folded form (keys, comparisons).
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Whether `other` names the same thing, whatever its case.
    pub fn is(&self, other: &str) -> bool {
        self.spelling == other || self.key == fold(other)
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Name {}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spelling)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Self::new(s)
    }
}

impl From<String> for Name {
    fn from(s: String) -> Self {
        Self::new(s)
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.spelling
    }
}
