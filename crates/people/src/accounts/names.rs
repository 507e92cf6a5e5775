//! Typed names: once a value has one of these types it is valid.
//!
//! Owner, repository and team names are case-insensitive (as in Gitea):
//! [`Name`] keeps the spelling a client wrote and compares, hashes and
//! keys by the folded form. Folding happens here and nowhere else.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Error;
pub use crate::name::{Name, fold, same};

/// Names Gitea reserves for its own routes.
const RESERVED: &[&str] = &[
    ".",
    "..",
    ".well-known",
    "admin",
    "api",
    "assets",
    "attachments",
    "avatar",
    "avatars",
    "captcha",
    "commits",
    "debug",
    "error",
    "explore",
    "favicon.ico",
    "ghost",
    "issues",
    "login",
    "manifest.json",
    "metrics",
    "milestones",
    "new",
    "notifications",
    "org",
    "pulls",
    "raw",
    "repo",
    "repo-avatars",
    "robots.txt",
    "search",
    "serviceworker.js",
    "ssh_info",
    "swagger.v1.json",
    "user",
    "v2",
    "gitea-actions",
];
const RESERVED_SUFFIXES: &[&str] = &[".keys", ".gpg", ".rss", ".atom", ".png"];

/// A user or organisation name: letters, digits, `-`, `_` and `.`, starting
/// and ending with a letter or digit, no two specials in a row, at most 40
/// characters, not reserved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerName(String);

impl OwnerName {
    pub fn parse(field: &str, raw: &str) -> Result<Self, Error> {
        let name = raw.trim();
        let special = |c: char| matches!(c, '-' | '_' | '.');
        let bad = |why: &str| Error::invalid(field, format!("{why} (got {raw:?})"));
        if name.is_empty() {
            return Err(bad("must not be empty"));
        }
        if name.chars().count() > 40 {
            return Err(bad("must be at most 40 characters"));
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || special(c))
        {
            return Err(bad("may contain only letters, digits, '-', '_' and '.'"));
        }
        let first = name.chars().next().unwrap_or('-');
        let last = name.chars().last().unwrap_or('-');
        if special(first) || special(last) {
            return Err(bad("must start and end with a letter or digit"));
        }
        if name
            .as_bytes()
            .windows(2)
            .any(|w| special(w[0] as char) && special(w[1] as char))
        {
            return Err(bad("must not contain consecutive '-', '_' or '.'"));
        }
        let lower = fold(name);
        if RESERVED.contains(&lower.as_str())
            || RESERVED_SUFFIXES.iter().any(|s| lower.ends_with(s))
        {
            return Err(Error::ReservedName(name.to_string()));
        }
        Ok(Self(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for OwnerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An e-mail address: one `@`, non-empty local part, a dotted domain, no
/// spaces, at most 254 characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(field: &str, raw: &str) -> Result<Self, Error> {
        let e = raw.trim();
        let ok = e.len() <= 254
            && !e.chars().any(|c| c.is_whitespace() || c.is_control())
            && e.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty()
                    && !domain.contains('@')
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
            });
        if ok {
            Ok(Self(e.to_string()))
        } else {
            Err(Error::invalid(
                field,
                format!("is not a valid e-mail address (got {raw:?})"),
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Who may see a user or organisation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    #[default]
    Public,
    /// Signed-in users only.
    Limited,
    /// The user themself, members and site admins only.
    Private,
}

impl Visibility {
    pub fn parse(field: &str, raw: Option<&str>) -> Result<Self, Error> {
        match raw.map(str::trim) {
            None | Some("") | Some("public") => Ok(Visibility::Public),
            Some("limited") => Ok(Visibility::Limited),
            Some("private") => Ok(Visibility::Private),
            Some(other) => Err(Error::invalid(
                field,
                format!("must be public, limited or private (got {other:?})"),
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Limited => "limited",
            Visibility::Private => "private",
        }
    }
}

/// A free-text field with a length limit (in characters).
pub fn bounded(field: &str, value: Option<String>, max: usize) -> Result<String, Error> {
    let v = value.unwrap_or_default();
    if v.chars().count() > max {
        return Err(Error::invalid(
            field,
            format!("must be at most {max} characters"),
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_names() {
        for ok in ["alice", "a", "A-b_c.d", "user1", "x9"] {
            assert!(
                OwnerName::parse("username", ok).is_ok(),
                "{ok} should be valid"
            );
        }
        for bad in [
            "",
            " ",
            "-a",
            "a-",
            "a--b",
            "a._b",
            "al ice",
            "ü",
            &"a".repeat(41),
            "api",
            "Admin",
            "x.keys",
        ] {
            assert!(
                OwnerName::parse("username", bad).is_err(),
                "{bad:?} should be refused"
            );
        }
        assert_eq!(
            OwnerName::parse("username", " bob ").unwrap().as_str(),
            "bob"
        );
    }

    #[test]
    fn names_compare_hash_and_key_by_their_folded_form() {
        use std::collections::HashSet;
        let a = Name::new("Alice");
        assert_eq!(a.as_str(), "Alice");
        assert_eq!(a.key(), "alice");
        assert_eq!(a.to_string(), "Alice");
        assert_eq!(a, Name::from("ALICE"));
        assert!(a.is("aLiCe") && !a.is("alicia"));
        let set: HashSet<Name> = ["Bob", "bob", "BOB", "Rita"].map(Name::from).into();
        assert_eq!(set.len(), 2);
        assert!(same("Acme", "acme") && !same("acme", "acme2"));
        assert_eq!(fold("MiXeD-Name.1"), "mixed-name.1");
    }

    #[test]
    fn reserved_names_are_refused_whatever_their_case() {
        for name in ["API", "Admin", "user.RSS", "x.Keys"] {
            assert!(
                matches!(
                    OwnerName::parse("username", name),
                    Err(Error::ReservedName(_))
                ),
                "{name:?} should be reserved"
            );
        }
    }

    #[test]
    fn bounded_counts_characters_not_bytes() {
        assert_eq!(bounded("f", None, 3).unwrap(), "");
        assert_eq!(bounded("f", Some("äöü".into()), 3).unwrap(), "äöü");
        assert!(matches!(
            bounded("f", Some("abcd".into()), 3),
            Err(Error::Invalid { field, .. }) if field == "f"
        ));
    }

    #[test]
    fn emails_and_visibility() {
        assert!(Email::parse("email", "a@b.io").is_ok());
        for bad in [
            "", "a", "a@", "@b.io", "a@b", "a b@c.io", "a@b@c.io", "a@.io",
        ] {
            assert!(
                Email::parse("email", bad).is_err(),
                "{bad:?} should be refused"
            );
        }
        assert_eq!(
            Visibility::parse("visibility", None).unwrap(),
            Visibility::Public
        );
        assert_eq!(
            Visibility::parse("visibility", Some("private")).unwrap(),
            Visibility::Private
        );
        assert!(Visibility::parse("visibility", Some("secret")).is_err());
    }
}
