//! Servers and their destinations (container networks). A server's item
//! is followed in sort order by its destinations, so one query reads both.
//! Each new server gets one default destination. A server refers to a
//! deploy key, counted on the key.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{
    db::{self, Db, keys},
    deploy::{
        error::{Error, Object, Result},
        model::{self, body::Body, domains::DomainList, timestamp},
        ssh_keys,
        store::{self, item, quota},
        team::Team,
    },
};

pub const PROXY_TYPES: &[&str] = &["traefik", "caddy", "none"];

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerRecord {
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub ip: String,
    pub port: i64,
    pub user: String,
    pub private_key_uuid: String,
    #[serde(default)]
    pub wildcard_domain: Option<String>,
    pub proxy_type: String,
    #[serde(default)]
    pub is_build_server: bool,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DestinationRecord {
    pub uuid: String,
    pub name: String,
    pub network: String,
    pub server_uuid: String,
    pub created_at: String,
}

pub struct Server {
    pub server: ServerRecord,
    pub destinations: Vec<DestinationRecord>,
}

/// The server item's count of its destinations.
const DESTINATIONS: &str = "dests";

/// Destinations one server may have.
pub const MAX_DESTINATIONS: usize = 20;

/// A server's fields from a create (all rules) or a PATCH (only what is
/// sent, over `old`).
pub fn parse(map: Map<String, Value>, old: Option<&ServerRecord>) -> Result<ServerRecord> {
    let creating = old.is_none();
    let mut b = Body::new(map);
    // A server always has a name: a PATCH may change it, not remove it.
    let name_required = creating || b.has("name");
    let name = b.string("name", name_required, 255);
    let description_sent = b.has("description");
    let description = b.string("description", false, 2000);
    let ip = b.string("ip", creating, 255);
    let ip = b.check("ip", ip, check_address);
    let port = b.integer("port", false, 1, 65535);
    let user = b.string("user", false, 64);
    let user = b.check("user", user, |u| {
        if u.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            Ok(())
        } else {
            Err("The user field format is invalid.".into())
        }
    });
    let key = b.string("private_key_uuid", creating, 64);
    let wildcard_sent = b.has("wildcard_domain");
    let wildcard = b.string("wildcard_domain", false, 255);
    // Application domains are made from it: it must be one valid domain URL.
    let wildcard = b.check("wildcard_domain", wildcard, |w| {
        match DomainList::parse(w) {
            Ok(list) if list.urls().len() == 1 => Ok(()),
            _ => Err(
                "The wildcard domain must be an http(s) URL, such as https://apps.example.com."
                    .into(),
            ),
        }
    });
    let proxy = b.string("proxy_type", false, 16);
    let proxy = b.check("proxy_type", proxy.map(|p| p.to_lowercase()), |p| {
        if PROXY_TYPES.contains(&p) {
            Ok(())
        } else {
            Err(format!(
                "The selected proxy type is invalid. Allowed: {}.",
                PROXY_TYPES.join(", ")
            ))
        }
    });
    let build = b.boolean("is_build_server");
    b.finish()?;
    let now = timestamp();
    let base = old.cloned().unwrap_or_else(|| ServerRecord {
        uuid: model::new_uuid(),
        name: String::new(),
        description: None,
        ip: String::new(),
        port: 22,
        user: "root".into(),
        private_key_uuid: String::new(),
        wildcard_domain: None,
        proxy_type: "traefik".into(),
        is_build_server: false,
        created_at: now.clone(),
        updated_at: now.clone(),
    });
    Ok(ServerRecord {
        name: name.unwrap_or(base.name),
        description: if description_sent {
            description
        } else {
            base.description
        },
        ip: ip.unwrap_or(base.ip),
        port: port.unwrap_or(base.port),
        user: user.unwrap_or(base.user),
        private_key_uuid: key.unwrap_or(base.private_key_uuid),
        wildcard_domain: if wildcard_sent {
            wildcard
        } else {
            base.wildcard_domain
        },
        proxy_type: proxy.unwrap_or(base.proxy_type),
        is_build_server: build.unwrap_or(base.is_build_server),
        updated_at: now,
        ..base
    })
}

/// An IPv4 or IPv6 address, or a host name.
///
/// A host name's labels are letters, digits and inner hyphens, and its
/// last label is not all digits (so `300.1.1.1` is neither an address nor
/// a name).
fn check_address(v: &str) -> Result<(), String> {
    let host_name = v.len() <= 253
        && v.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
        && !v
            .rsplit('.')
            .next()
            .is_some_and(|last| last.chars().all(|c| c.is_ascii_digit()));
    if v.parse::<std::net::IpAddr>().is_ok() || host_name {
        Ok(())
    } else {
        Err("The ip field must be an IP address or a host name.".into())
    }
}

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
    tx.set_fields(
        key,
        record,
        "attribute_exists(pk) AND updated_at = :seen",
        &[(":seen", db::s(&old.updated_at))],
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
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn problems(r: Result<ServerRecord>) -> std::collections::BTreeMap<String, Vec<String>> {
        match r {
            Err(Error::Invalid(p)) => p,
            other => panic!("expected field problems, got {other:?}"),
        }
    }

    #[test]
    fn a_new_server_gets_coolifys_defaults() {
        let s = parse(
            body(
                json!({"name": " box ", "ip": "203.0.113.7", "private_key_uuid": "k",
                        "proxy_type": "Caddy"}),
            ),
            None,
        )
        .unwrap();
        assert_eq!(
            (
                s.name.as_str(),
                s.port,
                s.user.as_str(),
                s.proxy_type.as_str()
            ),
            ("box", 22, "root", "caddy")
        );
        assert!(!s.is_build_server && s.wildcard_domain.is_none());
    }

    #[test]
    fn a_create_names_each_bad_field() {
        let p = problems(parse(
            body(
                json!({"ip": "300.1.1.1", "port": 0, "user": "a b", "extra": 1,
                        "wildcard_domain": "apps.example.com"}),
            ),
            None,
        ));
        assert_eq!(p["name"], ["This field is required."]);
        assert_eq!(p["private_key_uuid"], ["This field is required."]);
        assert_eq!(
            p["ip"],
            ["The ip field must be an IP address or a host name."]
        );
        assert_eq!(p["port"], ["The port field must be between 1 and 65535."]);
        assert_eq!(p["user"], ["The user field format is invalid."]);
        assert_eq!(p["extra"], ["This field is not allowed."]);
        assert!(p.contains_key("wildcard_domain"));
    }

    #[test]
    fn a_patch_keeps_what_it_does_not_send() {
        let old = parse(
            body(
                json!({"name": "box", "ip": "box.example.com", "private_key_uuid": "k",
                        "description": "d"}),
            ),
            None,
        )
        .unwrap();
        let new = parse(body(json!({"port": 2222, "description": ""})), Some(&old)).unwrap();
        assert_eq!((new.name.as_str(), new.port), ("box", 2222));
        assert_eq!(
            (new.uuid.as_str(), new.description),
            (old.uuid.as_str(), None)
        );
        let p = problems(parse(body(json!({"name": null})), Some(&old)));
        assert_eq!(p["name"], ["This field is required."]);
    }

    #[test]
    fn addresses() {
        for ok in ["10.0.0.1", "2001:db8::1", "box", "a-b.example.com"] {
            assert!(check_address(ok).is_ok(), "{ok}");
        }
        for bad in ["300.1.1.1", "-a.com", "a..b", "a b"] {
            assert!(check_address(bad).is_err(), "{bad}");
        }
    }
}
