//! A project and its environments as records, and the rules of their
//! bodies.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{body::Body, new_uuid, timestamp};
use crate::deploy::error::{Error, Object, Result};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProjectRecord {
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EnvironmentRecord {
    pub uuid: String,
    pub name: String,
    pub project_uuid: String,
    #[serde(default)]
    pub description: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

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

/// A new environment of `project`.
pub fn new_environment(project: &str, name: &str) -> EnvironmentRecord {
    let now = timestamp();
    EnvironmentRecord {
        uuid: new_uuid(),
        name: name.to_string(),
        project_uuid: project.to_string(),
        description: None,
        created_at: now.clone(),
        updated_at: now,
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
    fn environments_are_found_by_name_or_uuid() {
        let env = |name: &str, uuid: &str| EnvironmentRecord {
            uuid: uuid.into(),
            name: name.into(),
            project_uuid: "p".into(),
            description: None,
            created_at: String::new(),
            updated_at: String::new(),
        };
        let p = Project {
            project: ProjectRecord {
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
