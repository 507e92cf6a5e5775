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
        apps::{self, AppRecord, Source},
        error::{Error, Result},
        model::{
            self, app, checks,
            domains::{self, DomainList},
            fields::Endpoint,
            input,
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
        Some(b) if b != old.build_pack && !old.source.is_git() => {
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
    let (fqdn, compose) = app::requested_domains(&input, &build_pack)?;
    let sent_compose = input
        .get("docker_compose_domains")
        .is_some_and(|v| !v.is_null());
    if sent_compose && build_pack != "dockercompose" {
        // As Coolify's PATCH, which needs the compose file the services are in.
        return Err(Error::field(
            "docker_compose_domains",
            "The docker_compose_domains field is for dockercompose applications only.",
        ));
    }
    // Coolify drops the services' domains when an app leaves dockercompose;
    // a git app created with them under another build pack keeps them
    // (stored and claimed) until then.
    let leaves_compose = old.build_pack == "dockercompose" && build_pack != "dockercompose";
    let fqdn = if input.has("domains") {
        fqdn
    } else {
        DomainList::from_stored(old.fqdn.as_deref().unwrap_or_default())
    };
    let compose = if leaves_compose {
        DomainList::default()
    } else if input.has("docker_compose_domains") {
        compose
    } else {
        old.compose_domains()
    };
    if input.has("provider_app_uuid") && old.source != Source::ProviderApp {
        return Err(Error::field(
            "provider_app_uuid",
            "Only applications created through a provider app have one.",
        ));
    }
    let mut settings = old.settings.clone();
    settings.merge(app::Settings::sent(&input));
    if leaves_compose {
        // Leaving compose drops the services' domains (and their claims).
        settings.forget("docker_compose_domains");
    }
    app::basic_auth_complete(&settings)?;
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
    if app::moves(&input) {
        let placement = apps::resolve(db, team, &app::wanted(&input, old)).await?;
        new.project_uuid = placement.environment.project_uuid.clone();
        new.environment_uuid = placement.environment.uuid.clone();
        new.environment_name = placement.environment.name.clone();
        new.environment_id = placement.environment.id;
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
