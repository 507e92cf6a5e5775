//! The six application creates. One flow: check the body against the
//! endpoint's field sets, apply the source's defaults, resolve every
//! reference in one read wave, generate a domain when asked, then write
//! everything in one transaction.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::{
    Config,
    db::Db,
    deploy::{
        apps::{self, AppRecord, Source, Wanted},
        error::{Error, Result},
        model::{
            self, checks,
            domains::{self, DomainList},
            fields::{self, Endpoint},
            input::{self, Input, Problems},
        },
        team::Team,
    },
};

/// The 201 body: Coolify's `{uuid, domains}`, plus the queued deployment.
#[derive(Debug, Serialize)]
pub struct Created {
    pub uuid: String,
    pub domains: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment_uuid: Option<String>,
}

const COMPOSE_DOMAINS_BANNED: &str = "The domains field cannot be used for dockercompose applications. Use docker_compose_domains instead to set domains for individual services.";

pub async fn create(
    db: &Db,
    config: &Config,
    team: &Team,
    endpoint: Endpoint,
    body: Map<String, Value>,
) -> Result<Created> {
    let repository = if endpoint == Endpoint::ProviderApp {
        checks::provider_repository
    } else {
        checks::git_repository
    };
    let mut input = input::parse(body, endpoint, repository)?;
    let deploy = input.flag("instant_deploy", false);
    if deploy && !team.can_deploy {
        return Err(Error::DeployNotAllowed);
    }
    let (source, build_pack) = source_and_pack(endpoint, &input)?;
    let claimed = requested_domains(&input, build_pack)?;
    let uuid = model::new_uuid();
    apply_defaults(&mut input, source, &uuid);
    let settings = settings_of(&input);
    basic_auth_complete(&settings)?;
    let wanted = Wanted {
        project_uuid: input.str("project_uuid").unwrap_or_default().to_string(),
        environment_name: input.str("environment_name").map(str::to_string),
        environment_uuid: input.str("environment_uuid").map(str::to_string),
        server_uuid: input.str("server_uuid").unwrap_or_default().to_string(),
        destination_uuid: input.str("destination_uuid").map(str::to_string),
        provider_app_uuid: input.str("provider_app_uuid").map(str::to_string),
        private_key_uuid: input.str("private_key_uuid").map(str::to_string),
    };
    let placement = apps::resolve(db, team, &wanted).await?;
    let (mut fqdn, compose) = claimed;
    if fqdn.is_empty() && input.flag("autogenerate_domain", true) && build_pack != "dockercompose" {
        let server = &placement.server;
        // Normalised like any requested domain; a server whose address
        // makes no valid URL gets none.
        let generated = domains::generate(&uuid, server.wildcard_domain.as_deref(), &server.ip);
        fqdn = DomainList::parse(&generated).unwrap_or_default();
    }
    let mut all = fqdn.clone();
    all.extend(compose);
    let now = model::timestamp();
    let app = AppRecord {
        name: input.str("name").unwrap_or_default().to_string(),
        description: input.str("description").map(str::to_string),
        project_uuid: placement.environment.project_uuid.clone(),
        environment_uuid: placement.environment.uuid.clone(),
        environment_name: placement.environment.name.clone(),
        server_uuid: placement.server.uuid.clone(),
        destination_uuid: placement.destination.uuid.clone(),
        provider_app_uuid: placement.provider_app.map(|p| p.uuid),
        private_key_uuid: placement.key.map(|k| k.uuid),
        source,
        build_pack: build_pack.to_string(),
        fqdn: fqdn.fqdn(),
        claimed: all.urls().to_vec(),
        settings,
        status: "exited:unhealthy".into(),
        version: 1,
        created_at: now.clone(),
        updated_at: now,
        uuid,
    };
    let force = input.flag("force_domain_override", false);
    let deployment = apps::save(db, config, team, &app, None, force, deploy).await?;
    Ok(Created {
        uuid: app.uuid,
        domains: app.fqdn,
        deployment_uuid: deployment.map(|d| d.deployment_uuid),
    })
}

fn source_and_pack(endpoint: Endpoint, input: &Input) -> Result<(Source, &'static str)> {
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
    let compose = compose_domain_list(input);
    let sent = input
        .get("docker_compose_domains")
        .is_some_and(|v| !v.is_null());
    if sent && build_pack != "dockercompose" {
        problems.add(
            "docker_compose_domains",
            "The docker_compose_domains field is for dockercompose applications only.",
        );
    }
    if fqdn.urls().len() + compose.urls().len() > domains::MAX_DOMAINS {
        problems.add(
            "domains",
            format!("At most {} domains are allowed.", domains::MAX_DOMAINS),
        );
    }
    problems.into_result()?;
    Ok((fqdn, compose))
}

/// Every URL of `docker_compose_domains` (already validated).
pub fn compose_domain_list(input: &Input) -> DomainList {
    let mut all = DomainList::default();
    for item in input
        .get("docker_compose_domains")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
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
fn apply_defaults(input: &mut Input, source: Source, uuid: &str) {
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
pub fn basic_auth_complete(settings: &Map<String, Value>) -> Result<()> {
    if settings.get("is_http_basic_auth_enabled") != Some(&Value::Bool(true)) {
        return Ok(());
    }
    let mut problems = Problems::default();
    for f in ["http_basic_auth_username", "http_basic_auth_password"] {
        if settings
            .get(f)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            problems.add(f, format!("The {f} is required."));
        }
    }
    problems.into_result()
}

/// The settings stored with the application: every setting sent (the
/// record holds placements and attributes on their own).
pub fn settings_of(input: &Input) -> Map<String, Value> {
    input
        .settings()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
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
