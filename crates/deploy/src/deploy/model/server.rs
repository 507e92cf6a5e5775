//! A server and its destinations as records, and the rules of a server's
//! body (create and PATCH).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{body::Body, domains::DomainList, new_uuid, timestamp};
use crate::deploy::error::Result;

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
        uuid: new_uuid(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::error::Error;
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
