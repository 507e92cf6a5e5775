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
        apps::{self, AppRecord},
        error::{Error, Result},
        model::{
            self,
            app::{self, Wanted},
            checks,
            domains::{self, DomainList},
            fields::Endpoint,
            input,
        },
        store::ids,
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
    let (source, build_pack) = app::source_and_pack(endpoint, &input)?;
    let claimed = app::requested_domains(&input, build_pack)?;
    let uuid = model::new_uuid();
    app::apply_defaults(&mut input, source, &uuid);
    let settings = app::Settings::sent(&input);
    app::basic_auth_complete(&settings)?;
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
    let id = ids::next(db, team, &[ids::Seq::Application]).await?[0];
    let app = AppRecord {
        id: Some(id),
        environment_id: placement.environment.id,
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
