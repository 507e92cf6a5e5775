//! The protocol's JSON, as docs/deploy-runner.md ("Wire shapes") fixes it.
//!
//! Every field but the identities is optional or defaulted: a field that
//! does not apply comes as `null`, and a newer server may add fields, which
//! are ignored.

use serde::{Deserialize, Serialize};

/// A claimed deployment: `200` from `POST /runner/v1/claim`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Job {
    pub deployment_uuid: String,
    pub application_uuid: String,
    #[serde(default)]
    pub application_name: Option<String>,
    #[serde(default = "deploy")]
    pub action: String,
    #[serde(default)]
    pub force_rebuild: bool,
    #[serde(default)]
    pub build_pack: Option<String>,
    #[serde(default)]
    pub container_name: Option<String>,
    #[serde(default)]
    pub git_repository: Option<String>,
    #[serde(default)]
    pub git_branch: Option<String>,
    #[serde(default)]
    pub git_commit_sha: Option<String>,
    #[serde(default)]
    pub base_directory: Option<String>,
    #[serde(default)]
    pub dockerfile_location: Option<String>,
    #[serde(default)]
    pub docker_registry_image_name: Option<String>,
    #[serde(default)]
    pub docker_registry_image_tag: Option<String>,
    #[serde(default)]
    pub dockerfile: Option<String>,
    #[serde(default)]
    pub docker_compose_raw: Option<String>,
    #[serde(default)]
    pub ports_exposes: Option<String>,
    #[serde(default)]
    pub ports_mappings: Option<String>,
    #[serde(default)]
    pub domains: Vec<String>,
    #[serde(default)]
    pub env: Vec<EnvVar>,
    #[serde(default)]
    pub heartbeat_seconds: Option<u64>,
    #[serde(default)]
    pub timeout_seconds: Option<u64>,
}

fn deploy() -> String {
    "deploy".into()
}

impl Job {
    /// The container (and compose project) name: the application's uuid
    /// unless the server names another.
    pub fn container(&self) -> &str {
        self.container_name
            .as_deref()
            .filter(|c| !c.is_empty())
            .unwrap_or(&self.application_uuid)
    }

    /// Every value the runner was given, for redaction.
    pub fn secrets(&self) -> impl Iterator<Item = &str> {
        self.env.iter().map(|e| e.value.as_str())
    }
}

/// One environment variable, decrypted for this run only. Its `Debug`
/// leaves the value out, so no log of a job can show one.
#[derive(Clone, Default, Deserialize, Serialize)]
pub struct EnvVar {
    pub key: String,
    #[serde(default)]
    pub value: String,
    #[serde(default)]
    pub is_buildtime: bool,
    #[serde(default = "yes")]
    pub is_runtime: bool,
    #[serde(default)]
    pub is_multiline: bool,
    #[serde(default)]
    pub is_literal: bool,
}

fn yes() -> bool {
    true
}

impl std::fmt::Debug for EnvVar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvVar")
            .field("key", &self.key)
            .field("value", &"********")
            .field("is_buildtime", &self.is_buildtime)
            .field("is_runtime", &self.is_runtime)
            .finish_non_exhaustive()
    }
}

/// A clean-up record: `200` from `POST /runner/v1/cleanups/claim`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct Cleanup {
    pub id: String,
    pub application_uuid: String,
    #[serde(default)]
    pub application_name: Option<String>,
    #[serde(default)]
    pub delete_configurations: bool,
    #[serde(default)]
    pub delete_volumes: bool,
    #[serde(default)]
    pub docker_cleanup: bool,
    #[serde(default)]
    pub delete_connected_networks: bool,
}

/// One line of `POST /runner/v1/deployments/{uuid}/logs`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub output: String,
    #[serde(rename = "type")]
    pub kind: Stream,
    pub hidden: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

/// The end of a run, as `POST /runner/v1/deployments/{uuid}/end` takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EndStatus {
    Finished,
    Failed,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_job_parses() {
        let job: Job = serde_json::from_str(
            r#"{
              "deployment_uuid": "d1", "application_uuid": "a1", "application_name": "app",
              "action": "deploy", "force_rebuild": false, "build_pack": "dockerimage",
              "container_name": "a1", "git_repository": null, "git_branch": "main",
              "git_commit_sha": "HEAD", "base_directory": "/", "dockerfile_location": "/Dockerfile",
              "docker_registry_image_name": "nginx", "docker_registry_image_tag": "latest",
              "dockerfile": null, "docker_compose_raw": null,
              "ports_exposes": "80", "ports_mappings": "8080:80",
              "domains": ["https://app.example.com"],
              "env": [{"key": "K", "value": "V", "is_buildtime": true, "is_runtime": true,
                       "is_multiline": false, "is_literal": false}],
              "heartbeat_seconds": 30, "timeout_seconds": 3600, "something_new": 1
            }"#,
        )
        .unwrap();
        assert_eq!(job.container(), "a1");
        assert_eq!(job.env[0].key, "K");
        assert!(job.env[0].is_buildtime && job.env[0].is_runtime);
        assert_eq!(job.timeout_seconds, Some(3600));
        assert!(!format!("{job:?}").contains("\"V\""), "{job:?}");
    }

    #[test]
    fn log_lines_use_the_wire_names() {
        let line = LogLine {
            output: "x".into(),
            kind: Stream::Stderr,
            hidden: false,
        };
        assert_eq!(
            serde_json::to_string(&line).unwrap(),
            r#"{"output":"x","type":"stderr","hidden":false}"#
        );
    }
}
