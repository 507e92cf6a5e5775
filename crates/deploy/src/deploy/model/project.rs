//! A project and its environments as records, and the rules of their
//! bodies.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{body::Body, new_uuid, timestamp};
use crate::deploy::error::{Error, Object, Result};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProjectRecord {
    /// Coolify's numeric id (`store::ids`); none on a record from before
    /// ids, until `check-data --repair`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Applications in the project (`store::add_ref`), as read; never
    /// written from the record.
    #[serde(default, skip_serializing)]
    pub refs: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnvironmentRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    pub uuid: String,
    pub name: String,
    /// The project's numeric id, when both have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<i64>,
    pub project_uuid: String,
    #[serde(default)]
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    /// Bumped by every application created in or moved into it, so its
    /// delete, conditioned on the value it read, sees them (never written
    /// from the record).
    #[serde(default, skip_serializing)]
    pub placed: i64,
}

/// The environment item's count of applications placed into it.
pub const PLACED: &str = "placed";

/// A project with its environments.
pub struct Project {
    pub project: ProjectRecord,
    pub environments: Vec<EnvironmentRecord>,
}

impl Project {
    /// An environment by name, else by uuid (Coolify's order).
    pub fn environment(
        &self,
        name: Option<&str>,
        uuid: Option<&str>,
    ) -> Option<&EnvironmentRecord> {
        name.and_then(|n| self.environments.iter().find(|e| e.name == n))
            .or_else(|| uuid.and_then(|u| self.environments.iter().find(|e| e.uuid == u)))
    }

    /// An environment by name or by uuid, or the 404.
    pub fn find_environment(&self, wanted: &str) -> Result<&EnvironmentRecord> {
        self.environment(Some(wanted), Some(wanted))
            .ok_or(Error::NotFound(Object::Environment))
    }
}

/// Environments one project may have (a project is deleted in one
/// transaction with all of them).
pub const MAX_ENVIRONMENTS: usize = 40;

/// `{"name", "description"}` of a new project.
pub fn parse_new(map: Map<String, Value>) -> Result<(String, Option<String>)> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let description = b.string("description", false, 2000);
    b.finish()?;
    Ok((name.unwrap_or_default(), description))
}

/// A PATCH of a project: what it sets (`description: Some(None)` clears).
#[derive(Debug, PartialEq, Eq)]
pub struct Edit {
    pub name: Option<String>,
    pub description: Option<Option<String>>,
}

/// Coolify's rule for names (`ValidationPatterns::NAME_PATTERN`).
fn name_rule(n: &str) -> Result<(), String> {
    if n.chars().count() < 3 {
        Err("The name must be at least 3 characters.".into())
    } else if !n
        .chars()
        .all(|c| c.is_alphanumeric() || c.is_whitespace() || "-_.@/&()#,:+".contains(c))
    {
        Err("The name may only contain letters (including Unicode), numbers, spaces, and these characters: - _ . / @ & ( ) # , : +".into())
    } else {
        Ok(())
    }
}

/// Coolify's rule for descriptions (`ValidationPatterns::DESCRIPTION_PATTERN`).
fn description_rule(d: &str) -> Result<(), String> {
    if d.chars()
        .all(|c| c.is_alphanumeric() || c.is_whitespace() || "-_.,!?()'\"+=*@/&".contains(c))
    {
        Ok(())
    } else {
        Err("The description may only contain letters (including Unicode), numbers, spaces, and common punctuation: - _ . , ! ? ( ) ' \" + = * / @ &".into())
    }
}

/// `{"name", "description"}` of a project's PATCH, with Coolify's rules
/// (`name` 3 to 255 characters, `description` at most 255; `null` or an
/// empty string clears the description and leaves the name).
pub fn parse_edit(map: Map<String, Value>) -> Result<Edit> {
    let clears = map
        .get("description")
        .is_some_and(|v| v.is_null() || v.as_str().is_some_and(|s| s.trim().is_empty()));
    let mut b = Body::new(map);
    let name = b.string("name", false, 255);
    let name = b.check("name", name, name_rule);
    let description = b.string("description", false, 255);
    let description = b.check("description", description, description_rule);
    b.finish()?;
    Ok(Edit {
        name,
        description: match description {
            Some(d) => Some(Some(d)),
            None if clears => Some(None),
            None => None,
        },
    })
}

/// A new environment of `project`, numbered `id`.
pub fn new_environment(project: &ProjectRecord, name: &str, id: i64) -> EnvironmentRecord {
    let now = timestamp();
    EnvironmentRecord {
        id: Some(id),
        uuid: new_uuid(),
        name: name.to_string(),
        project_id: project.id,
        project_uuid: project.uuid.clone(),
        description: None,
        created_at: now.clone(),
        updated_at: now,
        placed: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_project_needs_a_name() {
        let body = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            parse_new(body(json!({"name": " shop ", "description": "d"}))).unwrap(),
            ("shop".to_string(), Some("d".to_string()))
        );
        match parse_new(body(json!({"name": "  "}))) {
            Err(Error::Invalid(p)) => assert_eq!(p["name"], ["This field is required."]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_project_edit_follows_coolifys_rules() {
        let body = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            parse_edit(body(json!({"name": "Shop (EU)", "description": null}))).unwrap(),
            Edit {
                name: Some("Shop (EU)".into()),
                description: Some(None)
            }
        );
        assert_eq!(
            parse_edit(body(json!({}))).unwrap(),
            Edit {
                name: None,
                description: None
            }
        );
        match parse_edit(body(json!({"name": "ab", "description": "a;b", "x": 1}))) {
            Err(Error::Invalid(p)) => {
                assert_eq!(p["name"], ["The name must be at least 3 characters."]);
                assert!(p["description"][0].starts_with("The description may only contain"));
                assert_eq!(p["x"], ["This field is not allowed."]);
            }
            other => panic!("{other:?}"),
        }
        match parse_edit(body(json!({"name": "<script>"}))) {
            Err(Error::Invalid(p)) => assert!(p["name"][0].starts_with("The name may only")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn environments_are_found_by_name_or_uuid() {
        let env = |name: &str, uuid: &str| EnvironmentRecord {
            id: None,
            project_id: None,
            placed: 0,
            uuid: uuid.into(),
            name: name.into(),
            project_uuid: "p".into(),
            description: None,
            created_at: String::new(),
            updated_at: String::new(),
        };
        let p = Project {
            project: ProjectRecord {
                id: None,
                refs: 0,
                uuid: "p".into(),
                name: "p".into(),
                description: None,
                created_at: String::new(),
                updated_at: String::new(),
            },
            environments: vec![env("production", "u1"), env("staging", "u2")],
        };
        assert_eq!(p.find_environment("staging").unwrap().uuid, "u2");
        assert_eq!(p.find_environment("u1").unwrap().name, "production");
        assert!(matches!(
            p.find_environment("dev"),
            Err(Error::NotFound(Object::Environment))
        ));
    }
}
