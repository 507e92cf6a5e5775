//! The application record (where it is placed, how it gets its code, its
//! domains and its settings) and the pure rules of its create and PATCH:
//! source and build pack, requested domains, generated defaults, basic
//! auth, and where a PATCH moves it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    domains::{self, DomainList},
    fields::{self, Endpoint, Field},
    input::{Input, Problems},
};
use crate::deploy::error::{Error, Result};

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

impl Source {
    /// Built from a git repository (its build pack may change).
    pub fn is_git(self) -> bool {
        matches!(
            self,
            Source::Public | Source::ProviderApp | Source::DeployKey
        )
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AppRecord {
    /// Coolify's numeric id (`store::ids`); none on a record from before
    /// ids, until `check-data --repair`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    pub uuid: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub project_uuid: String,
    pub environment_uuid: String,
    pub environment_name: String,
    /// Its environment's numeric id, when the environment has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_id: Option<i64>,
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
    pub settings: Settings,
    pub status: String,
    /// Bumped by every write; writes are conditional on it.
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

mod json_text {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    use super::Settings;

    pub fn serialize<S: Serializer>(m: &Settings, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&m.text_form())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Settings, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text)
            .map(Settings)
            .map_err(D::Error::custom)
    }
}

/// An application's settings: the values of the field rows with role
/// `Setting`, as validated. Read through the rows: an unset setting shows
/// its row's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings(Map<String, Value>);

impl Settings {
    /// Every setting a body sent.
    pub fn sent(input: &Input) -> Settings {
        Settings(
            input
                .settings()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    pub fn text(&self, name: &str) -> Option<&str> {
        self.0.get(name).and_then(Value::as_str)
    }

    /// What the record shows for `field`: its value, else the row's default.
    pub fn shown(&self, field: &Field) -> Value {
        self.0
            .get(field.name)
            .cloned()
            .unwrap_or_else(|| field.unset.value())
    }

    /// `newer` over these.
    pub fn merge(&mut self, newer: Settings) {
        self.0.extend(newer.0);
    }

    pub fn forget(&mut self, name: &str) {
        self.0.remove(name);
    }

    /// Whether HTTP basic auth is switched on.
    pub fn basic_auth(&self) -> bool {
        self.0.get("is_http_basic_auth_enabled") == Some(&Value::Bool(true))
    }

    /// The stored form: one JSON text.
    pub fn text_form(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "{}".into())
    }
}

impl AppRecord {
    pub fn setting_str(&self, name: &str) -> Option<&str> {
        self.settings.text(name)
    }

    /// Every URL of its compose services' domains.
    pub fn compose_domains(&self) -> DomainList {
        compose_domain_list(self.settings.get("docker_compose_domains"))
    }

    /// The commit a deployment builds: the one set, else the field's
    /// default (`HEAD`).
    pub fn commit(&self) -> &str {
        self.setting_str("git_commit_sha")
            .unwrap_or_else(|| fields::unset_text("git_commit_sha"))
    }
}

/// What a request asks an application to be placed on.
#[derive(Clone, Debug, Default)]
pub struct Wanted {
    pub project_uuid: String,
    pub environment_name: Option<String>,
    pub environment_uuid: Option<String>,
    pub server_uuid: String,
    pub destination_uuid: Option<String>,
    pub provider_app_uuid: Option<String>,
    pub private_key_uuid: Option<String>,
}

const COMPOSE_DOMAINS_BANNED: &str = "The domains field cannot be used for dockercompose applications. Use docker_compose_domains instead to set domains for individual services.";

pub fn source_and_pack(endpoint: Endpoint, input: &Input) -> Result<(Source, &'static str)> {
    let requested = input.str("build_pack");
    let pack = |p: Option<&str>| {
        fields::BUILD_PACKS
            .iter()
            .copied()
            .find(|b| Some(*b) == p)
            .unwrap_or("nixpacks")
    };
    Ok(match endpoint {
        Endpoint::Public => (Source::Public, pack(requested)),
        Endpoint::ProviderApp => (Source::ProviderApp, pack(requested)),
        Endpoint::DeployKey => (Source::DeployKey, pack(requested)),
        Endpoint::Dockerfile => {
            if requested.is_some_and(|b| b != "dockerfile") {
                return Err(Error::field(
                    "build_pack",
                    "The Dockerfile create builds with the dockerfile build pack only.",
                ));
            }
            (Source::Dockerfile, "dockerfile")
        }
        Endpoint::DockerImage => (Source::DockerImage, "dockerimage"),
        Endpoint::DockerCompose | Endpoint::Patch => (Source::DockerCompose, "dockercompose"),
    })
}

/// The `domains` and the compose services' domains a request asks for.
pub fn requested_domains(input: &Input, build_pack: &str) -> Result<(DomainList, DomainList)> {
    let mut problems = Problems::default();
    if build_pack == "dockercompose" && input.has("domains") {
        problems.add("domains", COMPOSE_DOMAINS_BANNED);
    }
    let fqdn = match input.str("domains").map(DomainList::parse) {
        Some(Ok(list)) => list,
        Some(Err(errors)) => {
            errors.into_iter().for_each(|e| problems.add("domains", e));
            DomainList::default()
        }
        None => DomainList::default(),
    };
    let compose = compose_domain_list(input.get("docker_compose_domains"));
    if fqdn.urls().len() + compose.urls().len() > domains::MAX_DOMAINS {
        problems.add(
            "domains",
            format!("At most {} domains are allowed.", domains::MAX_DOMAINS),
        );
    }
    problems.into_result()?;
    Ok((fqdn, compose))
}

/// Every URL of a `docker_compose_domains` value (already validated).
pub fn compose_domain_list(value: Option<&Value>) -> DomainList {
    let mut all = DomainList::default();
    for item in value.and_then(Value::as_array).into_iter().flatten() {
        if let Some(Ok(list)) = item
            .get("domain")
            .and_then(Value::as_str)
            .map(DomainList::parse)
        {
            all.extend(list);
        }
    }
    all
}

/// Names, ports, image tags and webhook secrets the client left out.
pub fn apply_defaults(input: &mut Input, source: Source, uuid: &str) {
    if input.str("name").is_none() {
        let name = match source {
            Source::Public | Source::ProviderApp | Source::DeployKey => {
                let repo = input.str("git_repository").unwrap_or_default();
                let repo = repo.trim_end_matches('/');
                let repo = repo.rsplit(['/', ':']).next().unwrap_or(repo);
                let branch = input.str("git_branch").unwrap_or("main");
                let short = |s: &str| s.chars().take(100).collect::<String>();
                format!("{}:{}-{uuid}", short(repo), short(branch)).to_lowercase()
            }
            Source::Dockerfile => format!("dockerfile-{uuid}"),
            Source::DockerImage => format!("docker-image-{uuid}"),
            Source::DockerCompose => format!("compose-{uuid}"),
        };
        input.set("name", Value::String(name));
    }
    if source == Source::Dockerfile && input.str("ports_exposes").is_none() {
        let port = exposed_port(input.str("dockerfile").unwrap_or_default());
        input.set("ports_exposes", Value::String(port.to_string()));
    }
    if source == Source::DockerImage {
        let (name, tag) = split_image(
            input.str("docker_registry_image_name").unwrap_or_default(),
            input.str("docker_registry_image_tag"),
        );
        input.set("docker_registry_image_name", Value::String(name));
        input.set("docker_registry_image_tag", Value::String(tag));
    }
    for name in [
        "manual_webhook_secret_provider_a",
        "manual_webhook_secret_provider_b",
        "manual_webhook_secret_provider_c",
        "manual_webhook_secret_provider_d",
    ] {
        if input.str(name).is_none() {
            input.set(name, Value::String(crate::auth::token::generate()));
        }
    }
}

/// Basic auth switched on needs a user name and a password.
pub fn basic_auth_complete(settings: &Settings) -> Result<()> {
    if !settings.basic_auth() {
        return Ok(());
    }
    let mut problems = Problems::default();
    for f in ["http_basic_auth_username", "http_basic_auth_password"] {
        if settings.text(f).is_none_or(str::is_empty) {
            problems.add(f, format!("The {f} is required."));
        }
    }
    problems.into_result()
}

/// The first `EXPOSE` port of a Dockerfile, else 80.
pub fn exposed_port(dockerfile: &str) -> u16 {
    dockerfile
        .lines()
        .find_map(|line| {
            let mut words = line.split_whitespace();
            let first = words.next()?;
            first.eq_ignore_ascii_case("EXPOSE").then(|| words.next())?
        })
        .and_then(|p| p.split('/').next())
        .and_then(|p| p.parse::<u16>().ok())
        .filter(|p| *p > 0)
        .unwrap_or(80)
}

/// An image reference split into name and tag (or digest), Coolify's way:
/// a `:` after the last `/` starts the tag; default `latest`.
pub fn split_image(name: &str, tag: Option<&str>) -> (String, String) {
    let full = match tag.filter(|t| !t.is_empty()) {
        Some(t) => format!("{name}:{t}"),
        None => name.to_string(),
    };
    if let Some((image, hash)) = full.split_once("@sha256:")
        && hash.len() == 64
        && hash.bytes().all(|b| b.is_ascii_hexdigit())
    {
        return (format!("{image}@sha256"), hash.to_string());
    }
    let slash = full.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match full[slash..].rfind(':') {
        Some(i) => {
            let at = slash + i;
            (full[..at].to_string(), full[at + 1..].to_string())
        }
        None => (full, "latest".into()),
    };
    if tag.is_empty() {
        (name, "latest".into())
    } else {
        (name, tag)
    }
}

const PLACEMENT: &[&str] = &[
    "project_uuid",
    "environment_name",
    "environment_uuid",
    "server_uuid",
    "destination_uuid",
    "provider_app_uuid",
];

pub fn moves(input: &Input) -> bool {
    PLACEMENT.iter().any(|f| input.has(f))
}

/// The placement a PATCH asks for: what it sends, the rest as it was. A new
/// server without a destination picks its only one; a new project without
/// an environment looks for one of the same name.
pub fn wanted(input: &Input, old: &AppRecord) -> Wanted {
    let sent = |f: &str| input.str(f).map(str::to_string);
    let env_sent = input.has("environment_name") || input.has("environment_uuid");
    let server_changed = sent("server_uuid").is_some_and(|s| s != old.server_uuid);
    Wanted {
        project_uuid: sent("project_uuid").unwrap_or_else(|| old.project_uuid.clone()),
        environment_name: if env_sent {
            sent("environment_name")
        } else {
            Some(old.environment_name.clone())
        },
        environment_uuid: if env_sent {
            sent("environment_uuid")
        } else {
            None
        },
        server_uuid: sent("server_uuid").unwrap_or_else(|| old.server_uuid.clone()),
        destination_uuid: sent("destination_uuid")
            .or_else(|| (!server_changed).then(|| old.destination_uuid.clone())),
        provider_app_uuid: sent("provider_app_uuid").or_else(|| old.provider_app_uuid.clone()),
        private_key_uuid: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dockerfile_ports() {
        assert_eq!(exposed_port("FROM node\nEXPOSE 3000\nEXPOSE 4000"), 3000);
        assert_eq!(exposed_port("FROM node\nexpose 8080/tcp"), 8080);
        assert_eq!(exposed_port("FROM nginx"), 80);
    }

    #[test]
    fn images() {
        assert_eq!(
            split_image("nginx", None),
            ("nginx".into(), "latest".into())
        );
        assert_eq!(
            split_image("ghcr.io/a/b:1.2", None),
            ("ghcr.io/a/b".into(), "1.2".into())
        );
        assert_eq!(
            split_image("ghcr.io/a/b", Some("1.2")),
            ("ghcr.io/a/b".into(), "1.2".into())
        );
        assert_eq!(
            split_image("localhost:5000/app", None),
            ("localhost:5000/app".into(), "latest".into())
        );
        let hex = "a".repeat(64);
        assert_eq!(
            split_image(&format!("nginx@sha256:{hex}"), None),
            ("nginx@sha256".into(), hex)
        );
    }
}

#[cfg(test)]
mod settings_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn settings_show_their_rows_defaults_and_store_as_one_text() {
        let mut s = Settings::default();
        let interval = fields::field("health_check_interval").unwrap();
        assert_eq!(s.shown(interval), json!(5));
        s.merge(Settings(Map::from_iter([(
            "health_check_interval".to_string(),
            json!(30),
        )])));
        assert_eq!(s.shown(interval), json!(30));
        assert_eq!(s.text_form(), r#"{"health_check_interval":30}"#);
        assert!(!s.basic_auth());
        s.merge(Settings(Map::from_iter([(
            "is_http_basic_auth_enabled".to_string(),
            json!(true),
        )])));
        match basic_auth_complete(&s) {
            Err(Error::Invalid(f)) => assert_eq!(
                f.keys().collect::<Vec<_>>(),
                ["http_basic_auth_password", "http_basic_auth_username"]
            ),
            other => panic!("{other:?}"),
        }
    }
}
