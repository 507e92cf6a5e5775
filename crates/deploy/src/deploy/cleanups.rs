//! What a server should remove after an application's delete: the
//! `CLEANUP#<app uuid>` record the delete's transaction writes, listed per
//! server (gsi1, oldest first) so a runner finds its own without a Scan.
//! A runner claims one for a lease; one that is not done within it (the
//! runner died) can be claimed again; done deletes it.

use serde_json::{Map, Value, json};

use crate::{
    db::{self, Change, Cond, Db, Item, Query, Returns, keys, table},
    deploy::{
        error::{Error, Object, Result},
        store::item,
        team::Team,
    },
    time,
};

/// How long a claimed clean-up is its runner's alone.
pub const LEASE_SECS: i64 = 600;

/// How many of a server's oldest clean-ups a claim tries.
const TRIES: i32 = 5;

fn sk(app: &str) -> String {
    format!("CLEANUP#{app}")
}

/// The clean-up item of deleted application `app`, listed under its
/// server.
pub fn record(team: &Team, app: &str, server: &str, fields: &Map<String, Value>) -> Result<Item> {
    let mut it = item(team, &sk(app), "cleanup", fields)?;
    let created = fields
        .get("created_at")
        .and_then(Value::as_str)
        .unwrap_or_default();
    it.extend(index_keys(server, created, app));
    Ok(it)
}

/// The index attributes that list a clean-up under its server (`check-data`
/// adds them to records written before runners).
pub fn index_keys(server: &str, created: &str, app: &str) -> Item {
    Item::from([
        (
            "gsi1pk".to_string(),
            db::s(keys::server_cleanups_pk(server)),
        ),
        ("gsi1sk".to_string(), db::s(format!("{created}#{app}"))),
    ])
}

/// The job a runner gets.
fn job(item: &Item) -> Value {
    let flag = |name: &str| item.get(name).and_then(|v| v.as_bool().ok()).copied();
    json!({
        "id": db::text(item, "application_uuid"),
        "application_uuid": db::text(item, "application_uuid"),
        "application_name": db::text(item, "application_name"),
        "delete_configurations": flag("delete_configurations").unwrap_or(true),
        "delete_volumes": flag("delete_volumes").unwrap_or(true),
        "docker_cleanup": flag("docker_cleanup").unwrap_or(true),
        "delete_connected_networks": flag("delete_connected_networks").unwrap_or(true),
    })
}

/// The oldest clean-up of `server` no other runner holds, now leased to
/// `runner`; `None` when there is none.
pub async fn claim(db: &Db, server: &str, runner: &str) -> Result<Option<Value>> {
    let oldest = Query::index(table::INDEXES[0], keys::server_cleanups_pk(server)).limit(TRIES);
    let page = db.query_page(oldest).await?;
    let now = time::now();
    for found in page.items {
        let key = keys::key(db::text(&found, "pk"), db::text(&found, "sk"));
        let lease = Change::new()
            .set("claimed_by", db::s(runner))
            .set("claimed_at", db::n(now));
        let free = Cond::eq("server_uuid", db::s(server))
            .and(Cond::below("claimed_at", db::n(now - LEASE_SECS)));
        let leased = db.change(key, lease, Some(free), Returns::Nothing).await;
        match leased {
            Ok(_) => return Ok(Some(job(&found))),
            // Leased to another runner, or done meanwhile.
            Err(db::DbError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(None)
}

/// Deletes a clean-up its runner has carried out; one of another server,
/// or not leased to this runner, is not found.
pub async fn done(db: &Db, team: &Team, server: &str, runner: &str, id: &str) -> Result<()> {
    let app = crate::deploy::model::parse_uuid(id).ok_or(Error::NotFound(Object::Cleanup))?;
    let held = Cond::eq("server_uuid", db::s(server)).and(Cond::eq("claimed_by", db::s(runner)));
    let gone = db.delete_when(team.key(&sk(&app)), held).await;
    match gone {
        Ok(_) => Ok(()),
        Err(db::DbError::ConditionFailed) => Err(Error::NotFound(Object::Cleanup)),
        Err(e) => Err(e.into()),
    }
}
