//! PATCH of an application: the seed's fields plus the rest of Coolify's,
//! with the create's rules, merged over the stored record. Moving it to
//! another project, environment, server, destination or provider app moves
//! the reference counts; changed domains are claimed and released in the
//! same transaction, the application's own domains excluded from conflicts.

use serde_json::{Map, Value};

use crate::{
    Config,
    db::Db,
    deploy::{
        apps::{self, AppRecord, Source, Wanted},
        create::{basic_auth_complete, compose_domain_list, requested_domains, settings_of},
        error::{Error, Result},
        model::{
            self, checks,
            domains::{self, DomainList},
            fields::Endpoint,
            input::{self, Input},
        },
        team::Team,
    },
};

/// Applies `body` to the application `uuid`; retried when another request
/// changed it in between.
pub async fn patch(
    db: &Db,
    config: &Config,
    team: &Team,
    uuid: &str,
    body: Map<String, Value>,
) -> Result<AppRecord> {
    let mut attempt = 0;
    loop {
        let old = apps::get(db, team, uuid).await?;
        match apply(db, config, team, &old, body.clone()).await {
            Err(Error::Changed(_)) if attempt < 3 => attempt += 1,
            other => return other,
        }
    }
}

async fn apply(
    db: &Db,
    config: &Config,
    team: &Team,
    old: &AppRecord,
    body: Map<String, Value>,
) -> Result<AppRecord> {
    let repository = if old.source == Source::ProviderApp {
        checks::provider_repository
    } else {
        checks::git_repository
    };
    let input = input::parse(body, Endpoint::Patch, repository)?;
    let deploy = input.flag("instant_deploy", false);
    if deploy && !team.can_deploy {
        return Err(Error::DeployNotAllowed);
    }
    let build_pack = match input.str("build_pack") {
        Some(b) if b != old.build_pack && !is_git(old.source) => {
            return Err(Error::field(
                "build_pack",
                format!(
                    "The build pack of a {} application cannot change.",
                    old.build_pack
                ),
            ));
        }
        Some(b) => b.to_string(),
        None => old.build_pack.clone(),
    };
    let (fqdn, compose) = requested_domains(&input, &build_pack)?;
    let fqdn = if input.has("domains") {
        fqdn
    } else {
        DomainList::from_stored(old.fqdn.as_deref().unwrap_or_default())
    };
    let compose = if build_pack != "dockercompose" {
        DomainList::default()
    } else if input.has("docker_compose_domains") {
        compose
    } else {
        stored_compose_domains(old)
    };
    if input.has("provider_app_uuid") && old.source != Source::ProviderApp {
        return Err(Error::field(
            "provider_app_uuid",
            "Only applications created through a provider app have one.",
        ));
    }
    let mut settings = old.settings.clone();
    settings.extend(settings_of(&input));
    if build_pack != "dockercompose" {
        // Leaving compose drops the services' domains (and their claims).
        settings.remove("docker_compose_domains");
    }
    basic_auth_complete(&settings)?;
    let mut new = AppRecord {
        name: input.str("name").unwrap_or(&old.name).to_string(),
        description: if input.has("description") {
            input.str("description").map(str::to_string)
        } else {
            old.description.clone()
        },
        build_pack,
        fqdn: fqdn.fqdn(),
        settings,
        version: old.version + 1,
        updated_at: model::timestamp(),
        ..old.clone()
    };
    let mut all = fqdn;
    all.extend(compose);
    if all.urls().len() > domains::MAX_DOMAINS {
        return Err(Error::field(
            "domains",
            format!("At most {} domains are allowed.", domains::MAX_DOMAINS),
        ));
    }
    new.claimed = all.urls().to_vec();
    if moves(&input) {
        let placement = apps::resolve(db, team, &wanted(&input, old)).await?;
        new.project_uuid = placement.environment.project_uuid.clone();
        new.environment_uuid = placement.environment.uuid.clone();
        new.environment_name = placement.environment.name.clone();
        new.server_uuid = placement.server.uuid.clone();
        new.destination_uuid = placement.destination.uuid.clone();
        if let Some(p) = placement.provider_app {
            new.provider_app_uuid = Some(p.uuid);
        }
    }
    let force = input.flag("force_domain_override", false);
    apps::save(db, config, team, &new, Some(old), force, deploy).await?;
    Ok(new)
}

fn is_git(source: Source) -> bool {
    matches!(
        source,
        Source::Public | Source::ProviderApp | Source::DeployKey
    )
}

const PLACEMENT: &[&str] = &[
    "project_uuid",
    "environment_name",
    "environment_uuid",
    "server_uuid",
    "destination_uuid",
    "provider_app_uuid",
];

fn moves(input: &Input) -> bool {
    PLACEMENT.iter().any(|f| input.has(f))
}

/// The placement a PATCH asks for: what it sends, the rest as it was. A new
/// server without a destination picks its only one; a new project without
/// an environment looks for one of the same name.
fn wanted(input: &Input, old: &AppRecord) -> Wanted {
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

fn stored_compose_domains(app: &AppRecord) -> DomainList {
    let mut input = Input::default();
    if let Some(v) = app.settings.get("docker_compose_domains") {
        input.set("docker_compose_domains", v.clone());
    }
    compose_domain_list(&input)
}
