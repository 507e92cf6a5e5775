//! Teams and memberships as records, and the pure rules of a team
//! request: names, permissions, units.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::accounts::{Error, Result};

/// Repository units a team can be given access to.
pub const UNITS: [&str; 10] = [
    "repo.code",
    "repo.issues",
    "repo.ext_issues",
    "repo.wiki",
    "repo.ext_wiki",
    "repo.pulls",
    "repo.releases",
    "repo.projects",
    "repo.packages",
    "repo.actions",
];

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessMode {
    #[default]
    None,
    Read,
    Write,
    Admin,
    Owner,
}

impl AccessMode {
    /// A permission a client may ask for (`owner` is the Owners team's only).
    pub fn parse(field: &str, raw: Option<&str>) -> Result<Self> {
        match raw.unwrap_or("read") {
            "read" => Ok(AccessMode::Read),
            "write" => Ok(AccessMode::Write),
            "admin" => Ok(AccessMode::Admin),
            other => Err(Error::invalid(
                field,
                format!("must be read, write or admin (got {other:?})"),
            )),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TeamRecord {
    pub id: i64,
    /// The organisation's name.
    pub org: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub permission: AccessMode,
    /// Unit name → access to it.
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    pub can_create_org_repo: bool,
    /// Number of members (kept by the member transactions).
    #[serde(default)]
    pub members: i64,
}

impl TeamRecord {
    pub fn is_owners(&self) -> bool {
        self.permission == AccessMode::Owner
    }
}

/// One team a user belongs to, stored under the user.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Membership {
    pub org: String,
    pub team_id: i64,
    pub permission: AccessMode,
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    #[serde(default)]
    pub can_create_org_repo: bool,
}

/// A validated team request.
pub struct NewTeam {
    pub name: String,
    pub description: String,
    pub permission: AccessMode,
    pub units: BTreeMap<String, AccessMode>,
    pub includes_all_repositories: bool,
    pub can_create_org_repo: bool,
}

/// Team names: letters, digits, `-`, `_`, `.`; 1 to 255 characters.
pub fn parse_name(raw: &str) -> Result<String> {
    let ok = !raw.is_empty()
        && raw.chars().count() <= 255
        && raw
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(raw.to_string())
    } else {
        Err(Error::invalid(
            "name",
            format!("must be 1 to 255 letters, digits, '-', '_' or '.' (got {raw:?})"),
        ))
    }
}

/// Units from Gitea's `units` list (all at the team's permission) or its
/// `units_map`; neither given means every unit at the team's permission.
pub fn parse_units(
    permission: AccessMode,
    units: Option<Vec<String>>,
    units_map: Option<BTreeMap<String, String>>,
) -> Result<BTreeMap<String, AccessMode>> {
    let known = |u: &str| -> Result<String> {
        if UNITS.contains(&u) {
            Ok(u.to_string())
        } else {
            Err(Error::invalid(
                "units",
                format!("unknown unit {u:?}; known units: {}", UNITS.join(", ")),
            ))
        }
    };
    match (
        units_map.filter(|m| !m.is_empty()),
        units.filter(|u| !u.is_empty()),
    ) {
        (Some(map), _) => map
            .into_iter()
            .map(|(u, mode)| {
                let mode = match mode.as_str() {
                    "none" => AccessMode::None,
                    "read" => AccessMode::Read,
                    "write" => AccessMode::Write,
                    "admin" => AccessMode::Admin,
                    other => {
                        return Err(Error::invalid(
                            "units_map",
                            format!("unknown access mode {other:?} for {u}"),
                        ));
                    }
                };
                Ok((known(&u)?, mode))
            })
            .collect(),
        (None, Some(list)) => list.iter().map(|u| Ok((known(u)?, permission))).collect(),
        (None, None) => Ok(UNITS.iter().map(|u| (u.to_string(), permission)).collect()),
    }
}

/// The Owners team every organisation is created with.
pub(in crate::accounts) fn owners(id: i64, org: &str) -> TeamRecord {
    TeamRecord {
        id,
        org: org.to_string(),
        name: "Owners".into(),
        description: String::new(),
        permission: AccessMode::Owner,
        units: UNITS
            .iter()
            .map(|u| (u.to_string(), AccessMode::Owner))
            .collect(),
        includes_all_repositories: true,
        can_create_org_repo: true,
        members: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_names() {
        for ok in ["devs", "Team.1", "a-b_c", &"x".repeat(255)] {
            assert_eq!(parse_name(ok).unwrap(), ok);
        }
        for bad in ["", "two words", "ü", &"x".repeat(256)] {
            assert!(parse_name(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn permissions_a_client_may_ask_for() {
        assert_eq!(AccessMode::parse("p", None).unwrap(), AccessMode::Read);
        assert_eq!(
            AccessMode::parse("p", Some("admin")).unwrap(),
            AccessMode::Admin
        );
        for bad in ["owner", "none", "Write", ""] {
            assert!(
                AccessMode::parse("p", Some(bad)).is_err(),
                "{bad:?} should be refused"
            );
        }
    }

    #[test]
    fn units_from_a_list_a_map_or_neither() {
        use AccessMode::{Admin, Read, Write};
        let all = parse_units(Write, None, None).unwrap();
        assert_eq!(all.len(), UNITS.len());
        assert!(all.values().all(|m| *m == Write));
        let listed = parse_units(Read, Some(vec!["repo.issues".into()]), None).unwrap();
        assert_eq!(listed, BTreeMap::from([("repo.issues".to_string(), Read)]));
        let map = BTreeMap::from([
            ("repo.pulls".to_string(), "admin".to_string()),
            ("repo.code".to_string(), "none".to_string()),
        ]);
        // The map wins over the list.
        let mapped = parse_units(Read, Some(vec!["repo.issues".into()]), Some(map)).unwrap();
        assert_eq!(
            mapped,
            BTreeMap::from([
                ("repo.code".to_string(), AccessMode::None),
                ("repo.pulls".to_string(), Admin),
            ])
        );
        // Empty ones count as not given.
        assert_eq!(
            parse_units(Read, Some(vec![]), Some(BTreeMap::new()))
                .unwrap()
                .len(),
            UNITS.len()
        );
        for (units, map) in [
            (Some(vec!["repo.nope".to_string()]), None),
            (
                None,
                Some(BTreeMap::from([(
                    "repo.code".to_string(),
                    "owner".to_string(),
                )])),
            ),
            (
                None,
                Some(BTreeMap::from([(
                    "repo.nope".to_string(),
                    "read".to_string(),
                )])),
            ),
        ] {
            assert!(
                parse_units(Read, units.clone(), map.clone()).is_err(),
                "{units:?} {map:?}"
            );
        }
    }

    #[test]
    fn the_owners_team_has_everything() {
        let t = owners(7, "Acme");
        assert!(t.is_owners() && t.includes_all_repositories && t.can_create_org_repo);
        assert_eq!(t.units.len(), UNITS.len());
        assert!(t.units.values().all(|m| *m == AccessMode::Owner));
    }
}
