//! Expectations and bodies shared by the tests of the supporting
//! resources (projects, servers, keys, provider apps, deployments).

use serde_json::{Value, json};

use super::Team;
use crate::{Reply, unique};

pub const INVALID: &str = "Validation failed.";

pub fn message(m: &str) -> Value {
    json!({ "message": m })
}

/// The exact 400 body of a validation failure.
pub fn invalid(errors: Value) -> Value {
    json!({"message": INVALID, "errors": errors})
}

pub fn not_found(what: &str) -> Value {
    message(&format!("{what} not found."))
}

/// A PEM-encoded private key whose body is unique to this call.
pub fn fresh_pem() -> String {
    use base64::{Engine, engine::general_purpose::STANDARD};
    let seed = format!("{}{}{}{}", unique(""), unique(""), unique(""), unique(""));
    let body: Vec<u8> = seed.bytes().chain(seed.bytes().rev()).collect();
    format!(
        "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
        STANDARD.encode(body)
    )
}

/// The base64 body of a PEM (what must never be echoed back).
pub fn pem_body(pem: &str) -> String {
    pem.lines().filter(|l| !l.starts_with("-----")).collect()
}

pub fn uuids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("a list: {list}"))
        .iter()
        .map(|v| {
            v["uuid"]
                .as_str()
                .or_else(|| v["deployment_uuid"].as_str())
                .unwrap_or_else(|| panic!("uuid in {v}"))
                .to_string()
        })
        .collect()
}

pub fn count(r: &Reply) -> usize {
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
        .as_array()
        .unwrap_or_else(|| panic!("a list: {:?}", r.body))
        .len()
}

/// A random, well-formed uuid that names nothing.
pub fn nobody() -> String {
    let hex = format!("{}{}{}", unique(""), unique(""), unique(""));
    let h = &hex[..32];
    format!(
        "{}-{}-4{}-8{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..32]
    )
}

pub fn provider_app_body(t: &Team, secret: &str, hook: &str) -> Value {
    json!({
        "name": unique("gh"),
        "api_url": "https://api.github.com",
        "html_url": "https://github.com",
        "app_id": 12345,
        "installation_id": 67890,
        "client_id": "Iv1.0123456789abcdef",
        "client_secret": secret,
        "webhook_secret": hook,
        "private_key_uuid": t.key,
    })
}

/// `base` with `fields` set; a key `-name` (with any value) removes `name`.
pub fn with(mut base: Value, fields: Value) -> Value {
    if let (Some(b), Some(f)) = (base.as_object_mut(), fields.as_object()) {
        for (k, v) in f {
            if let Some(gone) = k.strip_prefix('-') {
                b.remove(gone);
            } else {
                b.insert(k.clone(), v.clone());
            }
        }
    }
    base
}
