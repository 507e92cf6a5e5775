//! Applications: the stored record, where it is placed (project,
//! environment, server, destination, source), and the one transaction that
//! writes it with its reference counts, domain claims and queued
//! deployment, so a failure leaves nothing half written.

use serde_json::{Map, Value};

pub use crate::deploy::model::app::{AppRecord, Source, Wanted};
use crate::{
    Config,
    db::{self, Cond, Db, keys},
    deploy::{
        cleanups,
        deployments::{self, DeploymentRecord},
        envs,
        error::{Error, Object, Result},
        model::{self, domains, input::Problems},
        projects::{self, EnvironmentRecord},
        provider_apps::{self, ProviderAppRecord},
        servers::{self, DestinationRecord, ServerRecord},
        ssh_keys::{self, KeyRecord},
        store::{self, app_sk as sk, claims, item, quota},
        team::Team,
    },
};

fn not_found() -> Error {
    Error::NotFound(Object::Application)
}

/// One of the team's applications; a malformed uuid names none.
pub async fn get(db: &Db, team: &Team, uuid: &str) -> Result<AppRecord> {
    let uuid = model::parse_uuid(uuid).ok_or_else(not_found)?;
    store::get(db, team, &sk(&uuid))
        .await?
        .ok_or_else(not_found)
}

/// Hands each of the team's applications to `f`, as they are read.
pub async fn each(db: &Db, team: &Team, f: impl FnMut(AppRecord)) -> Result<()> {
    store::each(db, team, keys::APP_PREFIX, "application", f).await
}

/// The team's applications placed on `server`, by name (read as the
/// team's list is: at most the team's quota of applications).
pub async fn on_server(db: &Db, team: &Team, server: &str) -> Result<Vec<AppRecord>> {
    let mut found = Vec::new();
    each(db, team, |a| {
        if a.server_uuid == server {
            found.push(a);
        }
    })
    .await?;
    found.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(found)
}

/// The team's applications, by name (all in memory: for small teams and
/// tests; the list route trims them as they arrive, see [`each`]).
pub async fn list(db: &Db, team: &Team) -> Result<Vec<AppRecord>> {
    let mut all: Vec<AppRecord> = store::list(db, team, keys::APP_PREFIX, "application").await?;
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(all)
}

/// The resolved placement.
pub struct Placement {
    pub environment: EnvironmentRecord,
    pub server: ServerRecord,
    pub destination: DestinationRecord,
    pub provider_app: Option<ProviderAppRecord>,
    pub key: Option<KeyRecord>,
}

/// Reads every referenced object in one concurrent wave; each one missing
/// from the team is a 400 naming its field.
pub async fn resolve(db: &Db, team: &Team, w: &Wanted) -> Result<Placement> {
    let (project, server, provider_app, key) = futures::join!(
        projects::load(db, team, &w.project_uuid),
        servers::load(db, team, &w.server_uuid),
        async {
            match &w.provider_app_uuid {
                Some(u) => provider_apps::get(db, team, u).await,
                None => Ok(None),
            }
        },
        async {
            match &w.private_key_uuid {
                Some(u) => ssh_keys::get(db, team, u).await,
                None => Ok(None),
            }
        },
    );
    let (project, server, provider_app, key) = (project?, server?, provider_app?, key?);
    let mut problems = Problems::default();
    let environment = match &project {
        None => {
            problems.add("project_uuid", "Project not found.");
            None
        }
        Some(p) => {
            let env = p.environment(w.environment_name.as_deref(), w.environment_uuid.as_deref());
            if env.is_none() {
                let field = if w.environment_name.is_some() {
                    "environment_name"
                } else {
                    "environment_uuid"
                };
                problems.add(field, "Environment not found.");
            }
            env.cloned()
        }
    };
    let destination = match &server {
        None => {
            problems.add("server_uuid", "Server not found.");
            None
        }
        Some(s) => {
            let pick = match &w.destination_uuid {
                Some(d) => s.destinations.iter().find(|x| &x.uuid == d),
                None if s.destinations.len() == 1 => s.destinations.first(),
                None => None,
            };
            match (pick, &w.destination_uuid, s.destinations.len()) {
                (Some(d), _, _) => Some(d.clone()),
                (None, _, 0) => {
                    problems.add("server_uuid", "Server has no destinations.");
                    None
                }
                (None, None, _) => {
                    problems.add(
                        "destination_uuid",
                        "Server has multiple destinations and you do not set destination_uuid.",
                    );
                    None
                }
                (None, Some(_), _) => {
                    problems.add(
                        "destination_uuid",
                        "Provided destination_uuid does not belong to the specified server.",
                    );
                    None
                }
            }
        }
    };
    if w.provider_app_uuid.is_some() && provider_app.is_none() {
        problems.add("provider_app_uuid", "Provider app not found.");
    }
    if w.private_key_uuid.is_some() && key.is_none() {
        problems.add("private_key_uuid", "Private Key not found.");
    }
    if server.as_ref().is_some_and(|s| s.server.is_build_server) {
        problems.add(
            "server_uuid",
            "The specified server is configured as a build server and cannot host resources.",
        );
    }
    problems.into_result()?;
    match (environment, server, destination) {
        (Some(environment), Some(server), Some(destination)) => Ok(Placement {
            environment,
            server: server.server,
            destination,
            provider_app,
            key,
        }),
        _ => Err(Error::Internal("placement resolved without its parts")),
    }
}

/// A counted reference: the field naming it, the new and the old target,
/// and the key of a target.
type Reference<'a> = (
    &'static str,
    Option<&'a str>,
    Option<&'a str>,
    fn(&Team, &str) -> db::Item,
);

/// Stored settings (JSON, escapes included) stay well within DynamoDB's
/// 400 KB item limit.
pub const MAX_SETTINGS_BYTES: usize = 350_000;

/// What each transaction item guards, to name the failed one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    App,
    /// The team's count of applications.
    Quota,
    Field(&'static str),
    Domain,
    Other,
}

/// Writes `app` (new when `old` is `None`) with everything it holds, in
/// one transaction. Returns the queued deployment when `deploy` is set.
pub async fn save(
    db: &Db,
    config: &Config,
    team: &Team,
    app: &AppRecord,
    old: Option<&AppRecord>,
    force: bool,
    deploy: bool,
) -> Result<Option<DeploymentRecord>> {
    let size = app.settings.text_form().len();
    if size > MAX_SETTINGS_BYTES {
        return Err(Error::SettingsTooLarge {
            size,
            max: MAX_SETTINGS_BYTES,
        });
    }
    // Claims are by host, port and path (`domains::claim_form`): a URL
    // that only changes scheme claims nothing new.
    let old_claims = old.map_or_else(Vec::new, |o| domains::claim_forms(&o.claimed));
    let claims_now = domains::claim_forms(&app.claimed);
    let new_claims: Vec<String> = claims_now
        .iter()
        .filter(|d| !old_claims.contains(d))
        .cloned()
        .collect();
    let released: Vec<String> = old_claims
        .iter()
        .filter(|d| !claims_now.contains(d))
        .cloned()
        .collect();
    let named = |found: Vec<domains::Conflict>| Error::DomainConflicts(named_as_sent(found, app));
    if !force {
        let mut found = domains::instance_conflicts(config, &new_claims);
        if !found.is_empty() {
            found.extend(claims::conflicts(db, team, Some(&app.uuid), &new_claims).await?);
            return Err(named(found));
        }
    }
    let mut tx = db.tx();
    let mut parts = Vec::new();
    let record = item(team, &sk(&app.uuid), "application", app)?;
    match old {
        None => tx.put_if_absent(record)?,
        Some(o) => tx.put_when(record, Cond::eq("version", db::n(o.version)))?,
    };
    parts.push(Part::App);
    if old.is_none() {
        quota::add(&mut tx, team, quota::Kind::Applications)?;
        parts.push(Part::Quota);
    }
    let refs: [Reference; 4] = [
        (
            "project_uuid",
            Some(&app.project_uuid),
            old.map(|o| o.project_uuid.as_str()),
            |t, u| t.key(&keys::project_sk(u)),
        ),
        (
            "server_uuid",
            Some(&app.server_uuid),
            old.map(|o| o.server_uuid.as_str()),
            |t, u| t.key(&keys::server_sk(u)),
        ),
        (
            "provider_app_uuid",
            app.provider_app_uuid.as_deref(),
            old.and_then(|o| o.provider_app_uuid.as_deref()),
            provider_apps::key_of,
        ),
        (
            "private_key_uuid",
            app.private_key_uuid.as_deref(),
            old.and_then(|o| o.private_key_uuid.as_deref()),
            ssh_keys::key_of,
        ),
    ];
    for (field, new, was, key_of) in refs {
        if new == was && old.is_some() {
            continue;
        }
        if let Some(u) = new {
            store::add_ref(&mut tx, key_of(team, u))?;
            parts.push(Part::Field(field));
        }
        if let Some(u) = was {
            store::drop_ref(&mut tx, key_of(team, u))?;
            parts.push(Part::Other);
        }
    }
    // Placed in an environment (new, or moved): its `placed` count moves,
    // which an environment's delete is conditioned on, and it must exist.
    // Destinations need no check: they go only with their server, which
    // cannot go while this application counts on it.
    let moved_env = old.is_none_or(|o| o.environment_uuid != app.environment_uuid);
    if moved_env {
        tx.change(
            team.key(&keys::environment_sk(
                &app.project_uuid,
                &app.environment_uuid,
            )),
            db::Change::new().add(projects::PLACED, db::n(1)),
            Some(Cond::exists()),
        )?;
        parts.push(Part::Field("environment_uuid"));
    }
    claims::claim(&mut tx, team, &app.uuid, &new_claims, force)?;
    parts.extend(new_claims.iter().map(|_| Part::Domain));
    claims::release(&mut tx, team, &app.uuid, &released)?;
    let deployment = if deploy {
        Some(deployments::queue(
            &mut tx,
            db,
            config,
            team,
            app,
            deployments::Trigger::default(),
        )?)
    } else {
        None
    };
    match db.transact(tx).await {
        Ok(()) => Ok(deployment),
        Err(e) => match e.failed_condition().and_then(|i| parts.get(i).copied()) {
            Some(Part::Domain) => {
                let found = claims::conflicts(db, team, Some(&app.uuid), &new_claims).await?;
                if found.is_empty() {
                    Err(Error::Busy("a domain changed hands meanwhile"))
                } else {
                    Err(named(found))
                }
            }
            Some(Part::Quota) => Err(Error::QuotaFull(quota::Kind::Applications.object())),
            Some(Part::App) if old.is_some() => Err(Error::Changed(Object::Application)),
            Some(Part::Field(field)) => Err(Error::field(
                field,
                "The referenced object no longer exists.",
            )),
            _ => Err(e.into()),
        },
    }
}

/// The cleanup flags of a delete, Coolify's four, each `true` or `false`
/// (default true) as the query sends them.
pub const CLEANUP_FLAGS: [&str; 4] = [
    "delete_configurations",
    "delete_volumes",
    "docker_cleanup",
    "delete_connected_networks",
];

/// The flags' values from the query's (`get` returns a flag's raw value).
pub fn cleanup_flags<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
) -> Result<Vec<(&'static str, bool)>> {
    let mut flags = Vec::new();
    let mut problems = Problems::default();
    for flag in CLEANUP_FLAGS {
        match get(flag) {
            None | Some("true") => flags.push((flag, true)),
            Some("false") => flags.push((flag, false)),
            Some(_) => problems.add(flag, format!("The {flag} field must be true or false.")),
        }
    }
    problems.into_result()?;
    Ok(flags)
}

/// Deletes the application `uuid`. A concurrent edit changes the version:
/// read again and retry; a concurrent delete leaves nothing to read (404).
pub async fn remove(db: &Db, team: &Team, uuid: &str, flags: &[(&str, bool)]) -> Result<()> {
    let mut attempt = 0;
    loop {
        let app = get(db, team, uuid).await?;
        match delete(db, team, &app, flags).await {
            Err(Error::Changed(_)) if attempt < 3 => attempt += 1,
            other => return other,
        }
    }
}

/// Removes an application and its claims at once, and records the cleanup
/// the servers should do; then cancels its open deployments (any number,
/// outside the transaction: leftovers are cancelled by `check-data`).
pub async fn delete(db: &Db, team: &Team, app: &AppRecord, flags: &[(&str, bool)]) -> Result<()> {
    let mut tx = db.tx();
    tx.delete_when(
        team.key(&sk(&app.uuid)),
        Cond::eq("version", db::n(app.version)),
    )?;
    store::drop_ref(&mut tx, team.key(&keys::project_sk(&app.project_uuid)))?;
    store::drop_ref(&mut tx, team.key(&keys::server_sk(&app.server_uuid)))?;
    if let Some(u) = &app.provider_app_uuid {
        store::drop_ref(&mut tx, provider_apps::key_of(team, u))?;
    }
    if let Some(u) = &app.private_key_uuid {
        store::drop_ref(&mut tx, ssh_keys::key_of(team, u))?;
    }
    claims::release(
        &mut tx,
        team,
        &app.uuid,
        &domains::claim_forms(&app.claimed),
    )?;
    quota::remove(&mut tx, team, quota::Kind::Applications)?;
    let mut cleanup = Map::new();
    cleanup.insert("application_uuid".into(), Value::from(app.uuid.clone()));
    cleanup.insert("application_name".into(), Value::from(app.name.clone()));
    cleanup.insert("server_uuid".into(), Value::from(app.server_uuid.clone()));
    cleanup.insert(
        "destination_uuid".into(),
        Value::from(app.destination_uuid.clone()),
    );
    cleanup.insert("created_at".into(), Value::from(model::timestamp()));
    for (flag, on) in flags {
        cleanup.insert((*flag).to_string(), Value::from(*on));
    }
    tx.put(cleanups::record(
        team,
        &app.uuid,
        &app.server_uuid,
        &cleanup,
    )?)?;
    tx.delete(team.key(&keys::deployment_count_sk(&app.uuid)))?;
    match db.transact(tx).await {
        Ok(()) => {}
        Err(e) if e.failed_condition() == Some(0) => {
            return Err(Error::Changed(Object::Application));
        }
        Err(e) => return Err(e.into()),
    }
    db::cleanup(
        db,
        "deployments of a deleted application",
        deployments::cancel_queued(db, team, &app.uuid),
    )
    .await;
    db::cleanup(
        db,
        "environment variables of a deleted application",
        async { Ok::<_, Error>(envs::remove_all(db, team, &app.uuid).await?) },
    )
    .await;
    db::cleanup(db, "container logs of a deleted application", async {
        Ok::<_, Error>(
            db.batch_delete(vec![team.key(&keys::app_logs_sk(&app.uuid))])
                .await?,
        )
    })
    .await;
    Ok(())
}

/// Conflicts name the domain as the request sent it (claims are kept by
/// host, port and path).
fn named_as_sent(found: Vec<domains::Conflict>, app: &AppRecord) -> Vec<domains::Conflict> {
    found
        .into_iter()
        .map(|mut c| {
            if let Some(url) = app
                .claimed
                .iter()
                .find(|u| domains::claim_form(u) == c.domain)
            {
                c.message = c.message.replace(&c.domain, url);
                c.domain = url.clone();
            }
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_flags_default_to_true() {
        let flags = cleanup_flags(|f| (f == "delete_volumes").then_some("false")).unwrap();
        assert_eq!(
            flags,
            [
                ("delete_configurations", true),
                ("delete_volumes", false),
                ("docker_cleanup", true),
                ("delete_connected_networks", true),
            ]
        );
        match cleanup_flags(|f| (f == "docker_cleanup").then_some("nope")) {
            Err(Error::Invalid(f)) => assert_eq!(
                f["docker_cleanup"],
                ["The docker_cleanup field must be true or false."]
            ),
            other => panic!("{other:?}"),
        }
    }
}
