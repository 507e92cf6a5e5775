//! Deployment records. `instant_deploy` queues one in the same transaction
//! as the application write; nothing here runs builds. They are listed per
//! application (gsi1, newest first) and, while queued or in progress, per
//! team (gsi2, sparse: the attribute goes when the run ends).

use serde::{Deserialize, Serialize};

use crate::{
    Config,
    db::{self, Db, Tx, keys, table},
    deploy::{
        error::{Error, Object, Result},
        model::{self, app::AppRecord, timestamp},
        store::{self, item},
        team::Team,
    },
};

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
}

fn sk(uuid: &str) -> String {
    format!("{}{uuid}", keys::DEPLOYMENT_PREFIX)
}

/// Adds a queued deployment of `app` to `tx`.
pub fn queue(
    tx: &mut Tx,
    config: &Config,
    team: &Team,
    app: &AppRecord,
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
        status: "queued".into(),
        commit: app.commit().to_string(),
        force_rebuild: false,
        is_api: true,
        pull_request_id: 0,
        rollback: false,
        restart_only: false,
        created_at: now.clone(),
        updated_at: now,
    };
    let mut it = item(team, &sk(&d.deployment_uuid), "deployment", &d)?;
    let order = format!("{}#{}", d.created_at, d.deployment_uuid);
    it.insert(
        "gsi1pk".into(),
        db::s(keys::app_deployments_pk(&team.name, &app.uuid)),
    );
    it.insert("gsi1sk".into(), db::s(&order));
    it.insert("gsi2pk".into(), db::s(keys::team_queue_pk(&team.name)));
    it.insert("gsi2sk".into(), db::s(&order));
    tx.put_if_absent(it)?;
    Ok(d)
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
        let out = db
            .query(|q| {
                q.index_name(index.name)
                    .key_condition_expression(format!("{} = :pk", index.pk))
                    .expression_attribute_values(":pk", db::s(&pk))
                    .scan_index_forward(!newest_first)
                    .limit(want)
                    .set_exclusive_start_key(cursor.take())
            })
            .await?;
        for item in out.items.unwrap_or_default() {
            found.push(db::from_item(item)?);
        }
        match out.last_evaluated_key {
            Some(k) if !k.is_empty() => cursor = Some(k),
            _ => break,
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
    let all = by_index(
        db,
        &table::INDEXES[0],
        keys::app_deployments_pk(&team.name, app),
        true,
        usize::MAX,
    )
    .await?;
    let open: Vec<_> = all
        .iter()
        .filter(|d| d.status == "queued" || d.status == "in_progress")
        .map(|d| cancel(db, team, &d.deployment_uuid))
        .collect();
    futures::stream::iter(open)
        .buffer_unordered(8)
        .try_collect::<Vec<()>>()
        .await
        .map(|_| ())
}

async fn cancel(db: &Db, team: &Team, uuid: &str) -> Result<()> {
    Ok(cancel_at(db, team.key(&sk(uuid))).await?)
}

/// Cancels the deployment under `key` if it is still open (a finished or
/// already cancelled one stays as it is).
pub async fn cancel_at(db: &Db, key: db::Item) -> Result<(), db::DbError> {
    let done = db
        .update(|u| {
            u.set_key(Some(key))
                .update_expression(
                    "SET #status = :cancelled, updated_at = :now REMOVE gsi2pk, gsi2sk",
                )
                .condition_expression("#status IN (:queued, :running)")
                .expression_attribute_names("#status", "status")
                .expression_attribute_values(":cancelled", db::s("cancelled-by-user"))
                .expression_attribute_values(":now", db::s(timestamp()))
                .expression_attribute_values(":queued", db::s("queued"))
                .expression_attribute_values(":running", db::s("in_progress"))
        })
        .await;
    match done {
        Ok(_) | Err(db::DbError::ConditionFailed) => Ok(()),
        Err(e) => Err(e),
    }
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
