//! Token scopes. One token carries Gitea scopes for the tracker
//! (`read:issue`, `write:repository`, `all`, `public-only`, ...) and Coolify
//! abilities for the deploy API (`read`, `write`, `deploy`,
//! `read:sensitive`, `root`). Gitea's `write:X` implies `read:X`; Coolify's
//! abilities match exactly, except that `root` grants all of them.

use std::fmt;

/// Gitea scope categories, in Gitea's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    ActivityPub,
    Admin,
    Misc,
    Notification,
    Organization,
    Package,
    Issue,
    Repository,
    User,
}

impl Category {
    pub const ALL: [Category; 9] = [
        Category::ActivityPub,
        Category::Admin,
        Category::Misc,
        Category::Notification,
        Category::Organization,
        Category::Package,
        Category::Issue,
        Category::Repository,
        Category::User,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::ActivityPub => "activitypub",
            Category::Admin => "admin",
            Category::Misc => "misc",
            Category::Notification => "notification",
            Category::Organization => "organization",
            Category::Package => "package",
            Category::Issue => "issue",
            Category::Repository => "repository",
            Category::User => "user",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Read,
    Write,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Read => "read",
            Level::Write => "write",
        }
    }
}

/// Coolify token abilities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ability {
    Read,
    Write,
    Deploy,
    ReadSensitive,
    Root,
}

impl Ability {
    const ALL: [Ability; 5] = [
        Ability::Root,
        Ability::Read,
        Ability::ReadSensitive,
        Ability::Write,
        Ability::Deploy,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Ability::Read => "read",
            Ability::Write => "write",
            Ability::Deploy => "deploy",
            Ability::ReadSensitive => "read:sensitive",
            Ability::Root => "root",
        }
    }
}

/// A parsed, normalised scope set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scopes {
    levels: [Option<Level>; 9],
    public_only: bool,
    abilities: Vec<Ability>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct UnknownScope(pub String);

impl fmt::Display for UnknownScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid access token scope provided: {:?}", self.0)
    }
}

impl Scopes {
    /// Parses scope strings (each may itself be comma-separated, as Gitea
    /// stores them). Unknown names are an error.
    pub fn parse<S: AsRef<str>>(items: &[S]) -> Result<Self, UnknownScope> {
        let mut s = Scopes::default();
        for raw in items
            .iter()
            .flat_map(|i| i.as_ref().split(','))
            .map(str::trim)
            .filter(|x| !x.is_empty())
        {
            match raw {
                "all" => s.levels = [Some(Level::Write); 9],
                "public-only" => s.public_only = true,
                "*" => s.grant(Ability::Root),
                other => {
                    if let Some(a) = Ability::ALL.iter().find(|a| a.as_str() == other) {
                        s.grant(*a);
                        continue;
                    }
                    let (level, cat) = other
                        .split_once(':')
                        .ok_or_else(|| UnknownScope(other.into()))?;
                    let level = match level {
                        "read" => Level::Read,
                        "write" => Level::Write,
                        _ => return Err(UnknownScope(other.into())),
                    };
                    let i = Category::ALL
                        .iter()
                        .position(|c| c.as_str() == cat)
                        .ok_or_else(|| UnknownScope(other.into()))?;
                    s.levels[i] = s.levels[i].max(Some(level));
                }
            }
        }
        Ok(s)
    }

    fn grant(&mut self, a: Ability) {
        if !self.abilities.contains(&a) {
            self.abilities.push(a);
        }
    }

    /// Whether the token reaches `level` in `category` (write implies read).
    pub fn has(&self, category: Category, level: Level) -> bool {
        let i = Category::ALL
            .iter()
            .position(|c| *c == category)
            .unwrap_or(0);
        self.levels[i] >= Some(level)
    }

    /// `public-only`: the token may not touch private resources.
    pub fn public_only(&self) -> bool {
        self.public_only
    }

    pub fn set_public_only(&mut self, on: bool) {
        self.public_only = on;
    }

    /// Whether the token has a Coolify ability (`root` has all).
    pub fn can(&self, ability: Ability) -> bool {
        self.abilities.contains(&Ability::Root) || self.abilities.contains(&ability)
    }

    /// A Coolify client's token: abilities and no Gitea scope at all.
    pub fn deploy_only(&self) -> bool {
        !self.abilities.is_empty() && self.levels.iter().all(Option::is_none)
    }

    pub fn is_empty(&self) -> bool {
        self.levels.iter().all(Option::is_none) && self.abilities.is_empty() && !self.public_only
    }

    /// The normalised list: `all` for every write, otherwise the highest
    /// level per category; then `public-only`; then the abilities.
    pub fn to_strings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.levels.iter().all(|l| *l == Some(Level::Write)) {
            out.push("all".to_string());
        } else {
            for (cat, level) in Category::ALL.iter().zip(self.levels) {
                if let Some(level) = level {
                    out.push(format!("{}:{}", level.as_str(), cat.as_str()));
                }
            }
        }
        if self.public_only {
            out.push("public-only".into());
        }
        for a in Ability::ALL {
            if self.abilities.contains(&a) {
                out.push(a.as_str().into());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_implies_read_and_all_is_every_write() {
        let s = Scopes::parse(&["write:issue", "read:user"]).unwrap();
        assert!(s.has(Category::Issue, Level::Read));
        assert!(s.has(Category::Issue, Level::Write));
        assert!(s.has(Category::User, Level::Read));
        assert!(!s.has(Category::User, Level::Write));
        assert!(!s.has(Category::Repository, Level::Read));
        let all = Scopes::parse(&["all"]).unwrap();
        assert!(Category::ALL.iter().all(|c| all.has(*c, Level::Write)));
        assert_eq!(all.to_strings(), ["all"]);
    }

    #[test]
    fn normalises_and_keeps_public_only_and_abilities() {
        let s =
            Scopes::parse(&["read:issue,write:issue", "public-only", "deploy", "read"]).unwrap();
        assert_eq!(
            s.to_strings(),
            ["write:issue", "public-only", "read", "deploy"]
        );
        assert!(s.public_only());
        assert!(s.can(Ability::Read) && s.can(Ability::Deploy));
        assert!(!s.can(Ability::Write) && !s.can(Ability::ReadSensitive));
        // public-only alone grants nothing.
        assert!(
            !Scopes::parse(&["public-only"])
                .unwrap()
                .has(Category::Issue, Level::Read)
        );
    }

    #[test]
    fn root_grants_every_ability_but_no_gitea_scope() {
        let s = Scopes::parse(&["root"]).unwrap();
        assert!(
            [
                Ability::Read,
                Ability::Write,
                Ability::Deploy,
                Ability::ReadSensitive
            ]
            .iter()
            .all(|a| s.can(*a))
        );
        assert!(!s.has(Category::Issue, Level::Read));
    }

    #[test]
    fn unknown_scopes_are_named() {
        assert_eq!(
            Scopes::parse(&["read:issues"]),
            Err(UnknownScope("read:issues".into()))
        );
        assert_eq!(Scopes::parse(&["admin"]), Err(UnknownScope("admin".into())));
        assert!(Scopes::parse::<&str>(&[]).unwrap().is_empty());
    }
}
