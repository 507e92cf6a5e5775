//! A listing's query string as the domain reads it (Gitea's parameters,
//! the first of each as sent), and the parameters every listing shares.

use super::{Error, Result};
use crate::time;

/// The query string's values by name (the first of each, as sent).
#[derive(Clone, Copy)]
pub struct Params<'a>(pub &'a [(String, String)]);

impl<'a> Params<'a> {
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `name`, in the order sent (repeated parameters).
    pub fn all(&self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Trimmed, `None` when blank.
    pub(super) fn given(&self, name: &str) -> Option<&'a str> {
        self.get(name).map(str::trim).filter(|v| !v.is_empty())
    }

    /// The query's identity for cursors: every pair but the page and
    /// credentials, each encoded (so no value can pose as several pairs,
    /// and no two queries share an identity), sorted.
    pub(super) fn identity(&self) -> String {
        let encode =
            |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let mut pairs: Vec<String> = self
            .0
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "page" | "token" | "access_token"))
            .map(|(k, v)| format!("{}={}", encode(k), encode(v)))
            .collect();
        pairs.sort();
        pairs.join("&")
    }
}

/// `since` / `before`: RFC 3339 or absent; anything else is refused.
pub fn instant(q: Params, name: &'static str) -> Result<Option<i64>> {
    q.given(name)
        .map(|v| time::parse_instant(v).map_err(|why| Error::Instant { field: name, why }))
        .transpose()
}
