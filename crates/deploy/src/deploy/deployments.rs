//! Deployment records. Triggers (`/deploy`, start, stop, restart) and
//! `instant_deploy` queue one in a transaction that also puts its entry in
//! its server's queue (`runs` claims from there), counts it for its
//! application and puts its `deployment_queued` event. They are listed per
//! application (gsi1, newest first) and, while queued or in progress, per
//! team (gsi2, sparse: the attribute goes when the run ends).

use serde::{Deserialize, Serialize};

use crate::{
    Config,
    db::{self, Change, Cond, Db, Query, Returns, Tx, keys, table},
    deploy::{
        error::{Error, Object, Result},
        lifecycle::Status,
        model::{self, app::AppRecord, timestamp},
        store::{self, app_sk, item},
        team::Team,
    },
    outbox,
};

/// What the runner does with a deployment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    #[default]
    Deploy,
    Restart,
    Stop,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Deploy => "deploy",
            Action::Restart => "restart",
            Action::Stop => "stop",
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeploymentRecord {
    pub deployment_uuid: String,
    pub application_uuid: String,
    #[serde(default)]
    pub application_name: String,
    pub server_uuid: String,
    pub destination_uuid: String,
    pub status: String,
    #[serde(default)]
    pub commit: String,
    pub force_rebuild: bool,
    pub is_api: bool,
    pub pull_request_id: i64,
    pub rollback: bool,
    pub restart_only: bool,
    pub deployment_url: String,
    pub created_at: String,
    pub updated_at: String,
    // Added with runners; records written before read as a deploy that
    // no runner has touched.
    #[serde(default)]
    pub action: Action,
    /// A stop's `docker_cleanup`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docker_cleanup: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner_uuid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// When its runner let go of it (ended, or found silent). A deployment
    /// cancelled while running keeps its runner until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// Log lines and bytes stored so far (`runs::logs`).
    #[serde(default)]
    pub log_lines: u32,
    #[serde(default)]
    pub log_bytes: u64,
}

impl DeploymentRecord {
    pub fn state(&self) -> Result<Status> {
        Status::parse(&self.status)
    }

    /// The key of its entry in its server's queue.
    pub fn queue_entry(&self) -> db::Item {
        keys::server_queue_entry(&self.server_uuid, &self.created_at, &self.deployment_uuid)
    }

    /// A runner holds it: claimed and not let go of.
    pub fn is_held(&self) -> bool {
        self.runner_uuid.is_some() && self.ended_at.is_none()
    }
}

/// How a deployment was asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trigger {
    pub action: Action,
    pub force_rebuild: bool,
    pub pull_request_id: i64,
    pub docker_cleanup: Option<bool>,
}

fn sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::DEPLOYMENT_PREFIX)
}

pub fn key_of(team: &Team, uuid: &str) -> db::Item {
    team.key(&sk(uuid))
}

/// Adds a queued deployment of `app` to `tx`: the record, its server
/// queue entry, its application's count and its event.
pub fn queue(
    tx: &mut Tx,
    db: &Db,
    config: &Config,
    team: &Team,
    app: &AppRecord,
    trigger: Trigger,
) -> Result<DeploymentRecord> {
    let now = timestamp();
    let uuid = model::new_uuid();
    let d = DeploymentRecord {
        deployment_url: config.url(&format!("api/v1/deployments/{uuid}")),
        deployment_uuid: uuid,
        application_uuid: app.uuid.clone(),
        application_name: app.name.clone(),
        server_uuid: app.server_uuid.clone(),
        destination_uuid: app.destination_uuid.clone(),
        status: Status::Queued.as_str().into(),
        commit: app.commit().to_string(),
        force_rebuild: trigger.force_rebuild,
        is_api: true,
        pull_request_id: trigger.pull_request_id,
        rollback: false,
        restart_only: trigger.action == Action::Restart,
        created_at: now.clone(),
        updated_at: now,
        action: trigger.action,
        docker_cleanup: trigger.docker_cleanup,
        runner_uuid: None,
        heartbeat_at: None,
        started_at: None,
        ended_at: None,
        log_lines: 0,
        log_bytes: 0,
    };
    let mut it = item(team, &sk(&d.deployment_uuid), "deployment", &d)?;
    let order = format!("{}#{}", d.created_at, d.deployment_uuid);
    // A stop reaches the runner through its server's queue entry alone:
    // Coolify lists none among deployments, nor counts it.
    let listed = d.action != Action::Stop;
    let history = match listed {
        true => keys::app_deployments_pk(&team.name, &app.uuid),
        false => keys::app_stops_pk(&team.name, &app.uuid),
    };
    it.insert("gsi1pk".into(), db::s(history));
    it.insert("gsi1sk".into(), db::s(&order));
    if listed {
        it.insert("gsi2pk".into(), db::s(keys::team_queue_pk(&team.name)));
        it.insert("gsi2sk".into(), db::s(&order));
    }
    tx.put_if_absent(it)?;
    tx.put(queue_entry_item(&team.name, &d))?;
    if listed {
        tx.change(
            team.key(&keys::deployment_count_sk(&app.uuid)),
            Change::new().add("n", db::n(1)),
            None,
        )?;
    }
    tx.put(event(db, team, outbox::DEPLOYMENT_QUEUED, &d)?)?;
    Ok(d)
}

/// The entry of queued deployment `d` of `team` in its server's queue.
pub fn queue_entry_item(team: &str, d: &DeploymentRecord) -> db::Item {
    let mut entry = d.queue_entry();
    entry.insert("kind".into(), db::s("queue_entry"));
    entry.insert("team".into(), db::s(team));
    entry.insert("deployment_uuid".into(), db::s(&d.deployment_uuid));
    entry.insert("application_uuid".into(), db::s(&d.application_uuid));
    entry
}

/// The event item of a deployment's change, in its team's partition.
pub fn event(db: &Db, team: &Team, what: &'static str, d: &DeploymentRecord) -> Result<db::Item> {
    Ok(outbox::event_in(
        db,
        &keys::deploy_team_pk(&team.name),
        what,
        d,
    )?)
}

/// Queues a deployment of `app` on its own, on condition that the
/// application still exists (a delete meanwhile is its 404).
pub async fn queue_now(
    db: &Db,
    config: &Config,
    team: &Team,
    app: &AppRecord,
    trigger: Trigger,
) -> Result<DeploymentRecord> {
    let mut tx = db.tx();
    tx.require(team.key(&app_sk(&app.uuid)))?;
    let d = queue(&mut tx, db, config, team, app, trigger)?;
    match db.transact(tx).await {
        Ok(()) => Ok(d),
        Err(e) if e.failed_condition() == Some(0) => Err(Error::NotFound(Object::Application)),
        Err(e) => Err(e.into()),
    }
}

pub async fn get(db: &Db, team: &Team, uuid: &str) -> Result<Option<DeploymentRecord>> {
    match model::parse_uuid(uuid) {
        Some(u) => store::get(db, team, &sk(&u)).await,
        None => Ok(None),
    }
}

/// One of the team's deployments, or the 404.
pub async fn find(db: &Db, team: &Team, uuid: &str) -> Result<DeploymentRecord> {
    get(db, team, uuid)
        .await?
        .ok_or(Error::NotFound(Object::Deployment))
}

async fn by_index(
    db: &Db,
    index: &table::Index,
    pk: String,
    newest_first: bool,
    limit: usize,
) -> Result<Vec<DeploymentRecord>> {
    let mut found = Vec::new();
    let mut cursor = None;
    // Pages end at 1 MB; keep reading until `limit` records are in.
    while found.len() < limit {
        let want = i32::try_from(limit - found.len()).unwrap_or(i32::MAX);
        let page = db
            .query_page(
                Query::index(*index, pk.as_str())
                    .forward(!newest_first)
                    .limit(want)
                    .after(cursor.take()),
            )
            .await?;
        for item in page.items {
            found.push(db::from_item(item)?);
        }
        match page.next {
            Some(k) => cursor = Some(k),
            None => break,
        }
    }
    Ok(found)
}

/// The team's queued and running deployments, oldest first (at most 100).
pub async fn running(db: &Db, team: &Team) -> Result<Vec<DeploymentRecord>> {
    by_index(
        db,
        &table::INDEXES[1],
        keys::team_queue_pk(&team.name),
        false,
        100,
    )
    .await
}

/// Cancels every queued or running deployment of a deleted application:
/// they leave the team's queue and read `cancelled-by-user`. Runs after
/// the delete committed, so it is not bounded by a transaction's size;
/// each update is conditional on the status, so running it again (as
/// `check-data` does for leftovers) changes nothing twice.
pub async fn cancel_queued(db: &Db, team: &Team, app: &str) -> Result<()> {
    use futures::{StreamExt, TryStreamExt};
    let mut all = Vec::new();
    for pk in [
        keys::app_deployments_pk(&team.name, app),
        keys::app_stops_pk(&team.name, app),
    ] {
        all.extend(by_index(db, &table::INDEXES[0], pk, true, usize::MAX).await?);
    }
    let open: Vec<_> = all
        .iter()
        .filter(|d| d.status == "queued" || d.status == "in_progress")
        .map(|d| cancel_open(db, team, d))
        .collect();
    futures::stream::iter(open)
        .buffer_unordered(8)
        .try_collect::<Vec<()>>()
        .await
        .map(|_| ())
}

/// Cancels one open deployment of a deleted application, with its event;
/// a queued one leaves its server's queue too. One that moved since the
/// index was read is cancelled by its status alone.
async fn cancel_open(db: &Db, team: &Team, d: &DeploymentRecord) -> Result<()> {
    let now = timestamp();
    let to = Status::Cancelled.as_str();
    let mut tx = db.tx();
    tx.change(
        key_of(team, &d.deployment_uuid),
        leaving_queue(Status::Cancelled, &now),
        Some(Cond::eq("status", db::s(&d.status))),
    )?;
    if d.status == Status::Queued.as_str() {
        tx.delete(d.queue_entry())?;
    }
    let after = DeploymentRecord {
        status: to.into(),
        updated_at: now,
        ..d.clone()
    };
    tx.put(event(db, team, outbox::DEPLOYMENT_CANCELLED, &after)?)?;
    match db.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.failed_condition() == Some(0) => {
            Ok(cancel_at(db, key_of(team, &d.deployment_uuid)).await?)
        }
        Err(e) => Err(e.into()),
    }
}

/// Cancels the deployment under `key` if it is still open (a finished or
/// already cancelled one stays as it is).
pub async fn cancel_at(db: &Db, key: db::Item) -> Result<(), db::DbError> {
    let open = Cond::one_of("status", vec![db::s("queued"), db::s("in_progress")]);
    let done = db
        .change(
            key,
            leaving_queue(Status::Cancelled, &timestamp()),
            Some(open),
            Returns::Nothing,
        )
        .await;
    match done {
        Ok(_) | Err(db::DbError::ConditionFailed) => Ok(()),
        Err(e) => Err(e),
    }
}

/// A deployment's move to `to` at `now`, a status that takes it off its
/// team's queue (gsi2).
pub fn leaving_queue(to: Status, now: &str) -> Change {
    let team_queue = table::INDEXES[1];
    Change::new()
        .set("status", db::s(to.as_str()))
        .set("updated_at", db::s(now))
        .remove(team_queue.pk)
        .remove(team_queue.sk)
}

/// Coolify's paging of an application's deployments: `skip` (default 0)
/// and `take` (default 10, at most 100), as the query sends them.
pub fn window(skip: Option<&str>, take: Option<&str>) -> Result<(usize, usize)> {
    let number = |name: &str, raw: Option<&str>, default: usize, max: usize| match raw {
        None => Ok(default),
        Some(raw) => raw
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= max)
            .ok_or_else(|| {
                Error::field(
                    name,
                    format!("The {name} field must be an integer between 0 and {max}."),
                )
            }),
    };
    Ok((
        number("skip", skip, 0, 10_000)?,
        number("take", take, 10, 100)?,
    ))
}

/// How many deployments an application has had: its counter, or for an
/// application whose deployments were queued before counters were kept,
/// a count of its index entries.
pub async fn count_for_app(db: &Db, team: &Team, app: &str) -> Result<usize> {
    let counter = db.get(team.key(&keys::deployment_count_sk(app))).await?;
    if let Some(n) = counter
        .as_ref()
        .and_then(|i| i.get("n"))
        .and_then(|n| n.as_n().ok())
        .and_then(|n| n.parse::<usize>().ok())
    {
        return Ok(n);
    }
    let entries = Query::index(table::INDEXES[0], keys::app_deployments_pk(&team.name, app));
    Ok(usize::try_from(db.count(entries).await?).unwrap_or(0))
}

/// One application's deployments, newest first: `skip` then `take`.
pub async fn for_app(
    db: &Db,
    team: &Team,
    app: &str,
    skip: usize,
    take: usize,
) -> Result<Vec<DeploymentRecord>> {
    let all = by_index(
        db,
        &table::INDEXES[0],
        keys::app_deployments_pk(&team.name, app),
        true,
        skip + take,
    )
    .await?;
    Ok(all.into_iter().skip(skip).take(take).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_default_and_cap() {
        assert_eq!(window(None, None).unwrap(), (0, 10));
        assert_eq!(window(Some("20"), Some("100")).unwrap(), (20, 100));
        for (skip, take, field) in [
            (Some("-1"), None, "skip"),
            (None, Some("101"), "take"),
            (None, Some("x"), "take"),
        ] {
            match window(skip, take) {
                Err(Error::Invalid(f)) => assert!(f.contains_key(field), "{skip:?} {take:?}"),
                other => panic!("{skip:?} {take:?}: {other:?}"),
            }
        }
    }
}
