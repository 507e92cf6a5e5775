//! Who may read an issue, as the index files it: one of three audiences
//! (or none), from its repository's visibility, its owner's visibility and
//! whether the issue's unit is enabled. Searches read only the listings of
//! audiences the caller belongs to, so what they read is (nearly) all
//! theirs to see, and the audiences' counters are exact totals for them.

use serde::{Deserialize, Serialize};

use crate::accounts::names::Visibility;

/// The audience of an issue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    /// A public repository of a public owner: everyone, anonymous callers
    /// and `public-only` tokens included.
    #[serde(rename = "E")]
    Everyone,
    /// A public repository of a limited owner: every signed-in user.
    #[serde(rename = "S")]
    SignedIn,
    /// A private repository, or any repository of a private owner: only
    /// those given access (and site admins).
    #[serde(rename = "M")]
    Members,
    /// Its unit (issues or pull requests) is disabled: nobody reads it, so
    /// nothing is listed.
    #[default]
    #[serde(rename = "N")]
    Nobody,
}

impl Class {
    /// The audience of an issue (`is_pull`) of a repository.
    pub fn of(repo: &RepoFacts, is_pull: bool) -> Self {
        let enabled = if is_pull {
            repo.has_pulls
        } else {
            repo.has_issues
        };
        match (enabled, repo.private, repo.owner_visibility) {
            (false, _, _) => Class::Nobody,
            (true, false, Visibility::Public) => Class::Everyone,
            (true, false, Visibility::Limited) => Class::SignedIn,
            (true, _, _) => Class::Members,
        }
    }

    /// The letter in listing and counter names.
    pub fn letter(self) -> char {
        match self {
            Class::Everyone => 'E',
            Class::SignedIn => 'S',
            Class::Members => 'M',
            Class::Nobody => 'N',
        }
    }
}

/// What the index needs to know of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoFacts {
    pub id: i64,
    /// Lower-case owner login.
    pub owner: String,
    pub private: bool,
    pub owner_visibility: Visibility,
    pub has_issues: bool,
    pub has_pulls: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(private: bool, owner: Visibility, issues: bool) -> RepoFacts {
        RepoFacts {
            id: 1,
            owner: "o".into(),
            private,
            owner_visibility: owner,
            has_issues: issues,
            has_pulls: true,
        }
    }

    #[test]
    fn audiences_follow_repository_owner_and_unit() {
        use Visibility::*;
        for (private, owner, issues, want) in [
            (false, Public, true, Class::Everyone),
            (false, Limited, true, Class::SignedIn),
            (false, Private, true, Class::Members),
            (true, Public, true, Class::Members),
            (true, Limited, true, Class::Members),
            (false, Public, false, Class::Nobody),
            (true, Private, false, Class::Nobody),
        ] {
            let r = repo(private, owner, issues);
            assert_eq!(Class::of(&r, false), want, "{private} {owner:?} {issues}");
            // Pull requests have their own unit.
            let pulls = if want == Class::Nobody {
                Class::of(&repo(private, owner, true), false)
            } else {
                want
            };
            assert_eq!(Class::of(&r, true), pulls);
        }
    }
}
