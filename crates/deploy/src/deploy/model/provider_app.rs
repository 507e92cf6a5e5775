//! A provider app (a git provider's app installation) as a record, and
//! the rules of its body.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{body::Body, new_uuid, timestamp};
use crate::deploy::error::Result;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProviderAppRecord {
    pub uuid: String,
    pub name: String,
    #[serde(default)]
    pub organization: Option<String>,
    pub api_url: String,
    pub html_url: String,
    pub custom_user: String,
    pub custom_port: i64,
    pub app_id: i64,
    pub installation_id: i64,
    pub client_id: String,
    pub client_secret: String,
    #[serde(default)]
    pub webhook_secret: Option<String>,
    pub private_key_uuid: String,
    pub created_at: String,
    pub updated_at: String,
}

fn http_url(v: &str) -> Result<(), String> {
    match url::Url::parse(v) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err("The value must be an http(s) URL.".into()),
    }
}

pub fn parse_new(map: Map<String, Value>) -> Result<ProviderAppRecord> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let organization = b.string("organization", false, 255);
    let api_url = b.string("api_url", true, 255);
    let api_url = b.check("api_url", api_url, http_url);
    let html_url = b.string("html_url", true, 255);
    let html_url = b.check("html_url", html_url, http_url);
    let custom_user = b.string("custom_user", false, 64);
    let custom_port = b.integer("custom_port", false, 1, 65535);
    let app_id = b.integer("app_id", true, 1, i64::MAX);
    let installation_id = b.integer("installation_id", true, 1, i64::MAX);
    let client_id = b.string("client_id", true, 255);
    let client_secret = b.string("client_secret", true, 255);
    let webhook_secret = b.string("webhook_secret", false, 255);
    let key = b.string("private_key_uuid", true, 64);
    b.finish()?;
    let now = timestamp();
    Ok(ProviderAppRecord {
        uuid: new_uuid(),
        name: name.unwrap_or_default(),
        organization,
        api_url: api_url.unwrap_or_default(),
        html_url: html_url.unwrap_or_default(),
        custom_user: custom_user.unwrap_or_else(|| "git".into()),
        custom_port: custom_port.unwrap_or(22),
        app_id: app_id.unwrap_or_default(),
        installation_id: installation_id.unwrap_or_default(),
        client_id: client_id.unwrap_or_default(),
        client_secret: client_secret.unwrap_or_default(),
        webhook_secret,
        private_key_uuid: key.unwrap_or_default(),
        created_at: now.clone(),
        updated_at: now,
    })
}
