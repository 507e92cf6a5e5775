//! The application record: where it is placed, how it gets its code, its
//! domains and its settings.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::fields;

/// How the application gets its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Public,
    ProviderApp,
    DeployKey,
    Dockerfile,
    DockerImage,
    DockerCompose,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AppRecord {
    pub uuid: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub project_uuid: String,
    pub environment_uuid: String,
    pub environment_name: String,
    pub server_uuid: String,
    pub destination_uuid: String,
    #[serde(default)]
    pub provider_app_uuid: Option<String>,
    #[serde(default)]
    pub private_key_uuid: Option<String>,
    pub source: Source,
    pub build_pack: String,
    /// Normalised domains, comma-joined (Coolify's `fqdn`).
    #[serde(default)]
    pub fqdn: Option<String>,
    /// Every domain this application holds a claim on: its `fqdn` and its
    /// compose services' domains.
    #[serde(default)]
    pub claimed: Vec<String>,
    /// The other settings, as validated JSON (stored as one string).
    #[serde(with = "json_text")]
    pub settings: Map<String, Value>,
    pub status: String,
    /// Bumped by every write; writes are conditional on it.
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

mod json_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use serde_json::{Map, Value};

    pub fn serialize<S: Serializer>(m: &Map<String, Value>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&Value::Object(m.clone()).to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(D::Error::custom)
    }
}

impl AppRecord {
    pub fn setting_str(&self, name: &str) -> Option<&str> {
        self.settings.get(name).and_then(Value::as_str)
    }

    /// The commit a deployment builds: the one set, else the field's
    /// default (`HEAD`).
    pub fn commit(&self) -> &str {
        self.setting_str("git_commit_sha")
            .unwrap_or_else(|| fields::unset_text("git_commit_sha"))
    }
}
