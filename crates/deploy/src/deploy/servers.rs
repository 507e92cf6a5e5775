//! Servers and their destinations (container networks). A server's item
//! is followed in sort order by its destinations, so one query reads both.
//! Each new server gets one default destination. A server refers to a
//! deploy key, counted on the key.

use serde_json::{Map, Value};

pub use crate::deploy::model::server::{
    DestinationRecord, MAX_DESTINATIONS, PROXY_TYPES, Server, ServerRecord, parse,
};
use crate::{
    db::{self, Change, Cond, Db, keys},
    deploy::{
        error::{Error, Object, Result},
        model::{self, body::Body, timestamp},
        runners, ssh_keys,
        store::{self, item, quota},
        team::Team,
    },
};

/// The server item's count of its destinations.
const DESTINATIONS: &str = "dests";

fn key_missing() -> Error {
    Error::field("private_key_uuid", "Private Key not found.")
}

pub async fn create(db: &Db, team: &Team, server: ServerRecord) -> Result<ServerRecord> {
    let now = timestamp();
    let destination = DestinationRecord {
        uuid: model::new_uuid(),
        name: "default".into(),
        network: "default".into(),
        server_uuid: server.uuid.clone(),
        created_at: now,
    };
    let mut tx = db.tx();
    let mut it = item(team, &keys::server_sk(&server.uuid), "server", &server)?;
    it.insert(DESTINATIONS.into(), db::n(1));
    tx.put_if_absent(it)?;
    push_destination(&mut tx, team, &destination)?;
    store::add_ref(&mut tx, ssh_keys::key_of(team, &server.private_key_uuid))?;
    let counted = quota::add(&mut tx, team, quota::Kind::Servers)?;
    match db.transact(tx).await {
        Ok(()) => Ok(server),
        Err(e) if e.failed_condition() == Some(3) => Err(key_missing()),
        Err(e) if e.failed_condition() == Some(counted) => {
            Err(Error::QuotaFull(quota::Kind::Servers.object()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes an edited server; a changed key moves its reference count. The
/// fields are set on the stored item, so its `refs` count (applications on
/// the server, changed concurrently by their writes) stays as it is.
pub async fn update(
    db: &Db,
    team: &Team,
    old: &ServerRecord,
    new: ServerRecord,
) -> Result<ServerRecord> {
    let key = team.key(&keys::server_sk(&new.uuid));
    let mut record = db::to_item(&new)?;
    record.insert("kind".into(), db::s("server"));
    let mut tx = db.tx();
    tx.change(
        key,
        Change::new().set_all(record),
        Some(Cond::exists().and(Cond::eq("updated_at", db::s(&old.updated_at)))),
    )?;
    if old.private_key_uuid != new.private_key_uuid {
        store::add_ref(&mut tx, ssh_keys::key_of(team, &new.private_key_uuid))?;
        store::drop_ref(&mut tx, ssh_keys::key_of(team, &old.private_key_uuid))?;
    }
    match db.transact(tx).await {
        Ok(()) => Ok(new),
        Err(e) => match e.failed_condition() {
            Some(0) => Err(Error::Changed(Object::Server)),
            Some(1) => Err(key_missing()),
            _ => Err(e.into()),
        },
    }
}

pub async fn list(db: &Db, team: &Team) -> Result<Vec<ServerRecord>> {
    let mut all: Vec<ServerRecord> = store::list(db, team, keys::SERVER_PREFIX, "server").await?;
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(all)
}

/// A server with its destinations, in one query.
pub async fn load(db: &Db, team: &Team, uuid: &str) -> Result<Option<Server>> {
    let Some(uuid) = model::parse_uuid(uuid) else {
        return Ok(None);
    };
    let items = db
        .query_prefix(&keys::deploy_team_pk(&team.name), &keys::server_sk(&uuid))
        .await?;
    let mut server = None;
    let mut destinations = Vec::new();
    for i in items {
        match i
            .get("kind")
            .and_then(|k| k.as_s().ok())
            .map(String::as_str)
        {
            Some("server") => server = Some(db::from_item::<ServerRecord>(i)?),
            Some("destination") => destinations.push(db::from_item::<DestinationRecord>(i)?),
            _ => {}
        }
    }
    destinations.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.uuid.cmp(&b.uuid)));
    Ok(server.map(|server| Server {
        server,
        destinations,
    }))
}

/// One of the team's servers, or the 404.
pub async fn find(db: &Db, team: &Team, uuid: &str) -> Result<Server> {
    load(db, team, uuid)
        .await?
        .ok_or(Error::NotFound(Object::Server))
}

pub async fn add_destination(
    db: &Db,
    team: &Team,
    server: &Server,
    map: Map<String, Value>,
) -> Result<DestinationRecord> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let network = b.string("network", true, 128);
    let network = b.check("network", network, |n| {
        let ok = n.starts_with(|c: char| c.is_ascii_alphanumeric())
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if ok {
            Ok(())
        } else {
            Err("The network field format is invalid.".into())
        }
    });
    b.finish()?;
    let network = network.unwrap_or_default();
    if server.destinations.iter().any(|d| d.network == network) {
        return Err(Error::NetworkExists(network));
    }
    if server.destinations.len() >= MAX_DESTINATIONS {
        return Err(Error::TooManyChildren {
            parent: Object::Server,
            max: MAX_DESTINATIONS,
        });
    }
    let d = DestinationRecord {
        uuid: model::new_uuid(),
        name: name.unwrap_or_default(),
        network,
        server_uuid: server.server.uuid.clone(),
        created_at: timestamp(),
    };
    let mut tx = db.tx();
    let parent = team.key(&keys::server_sk(&d.server_uuid));
    store::add_child(&mut tx, parent.clone(), DESTINATIONS, MAX_DESTINATIONS)?;
    push_destination(&mut tx, team, &d)?;
    match db.transact(tx).await {
        Ok(()) => Ok(d),
        Err(e) => match e.failed_condition() {
            Some(0) if db.get(parent).await?.is_some() => Err(Error::TooManyChildren {
                parent: Object::Server,
                max: MAX_DESTINATIONS,
            }),
            Some(0) => Err(Error::NotFound(Object::Server)),
            Some(_) => Err(Error::NetworkExists(d.network)),
            None => Err(e.into()),
        },
    }
}

/// A destination and the guard of its network name.
fn push_destination(tx: &mut db::Tx, team: &Team, d: &DestinationRecord) -> Result<()> {
    tx.put_if_absent(team.key(&keys::network_sk(&d.server_uuid, &d.network)))?;
    tx.put_if_absent(item(
        team,
        &keys::destination_sk(&d.server_uuid, &d.uuid),
        "destination",
        d,
    )?)?;
    Ok(())
}

/// Deletes a server, unless an application runs on it, and its
/// destinations (see [`store::delete_family`]); its key counts one user less.
pub async fn delete(db: &Db, team: &Team, server: &Server) -> Result<()> {
    let family = |s: &Server| store::Family {
        count: Some((DESTINATIONS, s.destinations.len())),
        children: s
            .destinations
            .iter()
            .flat_map(|d| {
                [
                    team.key(&keys::destination_sk(&d.server_uuid, &d.uuid)),
                    team.key(&keys::network_sk(&d.server_uuid, &d.network)),
                ]
            })
            .collect(),
        refers_to: vec![ssh_keys::key_of(team, &s.server.private_key_uuid)],
        updated_at: Some(s.server.updated_at.clone()),
        counted: Some(quota::Kind::Servers),
    };
    let uuid = &server.server.uuid;
    store::delete_family(
        db,
        team,
        team.key(&keys::server_sk(uuid)),
        family(server),
        || async { Ok(load(db, team, uuid).await?.as_ref().map(family)) },
        Object::Server,
    )
    .await?;
    // Its runner credentials go with it (a new one needs the server).
    db::cleanup(
        db,
        "runners of a deleted server",
        runners::revoke_all(db, team, uuid),
    )
    .await;
    Ok(())
}
