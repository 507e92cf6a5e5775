//! Gitea's `Hook`. Its `config` holds `url` and `content_type`, as
//! Gitea's; the secret is never shown (as in Gitea), and
//! `authorization_header` only as [`REDACTED`] (Gitea shows it in clear).

use std::collections::BTreeMap;

use serde::Serialize;

use super::model::HookRecord;
use crate::{Config, time};

/// What is shown for a set `authorization_header`.
pub const REDACTED: &str = "******";

/// Gitea's `Hook`, fields in its order.
#[derive(Serialize)]
pub struct Hook {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: String,
    pub branch_filter: String,
    pub config: BTreeMap<&'static str, String>,
    pub events: Vec<String>,
    pub authorization_header: String,
    pub active: bool,
    pub updated_at: String,
    pub created_at: String,
}

impl Hook {
    pub fn new(h: &HookRecord, config: &Config) -> Self {
        let tz = config.display_tz;
        Self {
            id: h.id,
            kind: h.kind.clone(),
            branch_filter: h.branch_filter.clone(),
            config: BTreeMap::from([
                ("url", h.url.clone()),
                ("content_type", h.content_type.clone()),
            ]),
            events: h.events.clone(),
            authorization_header: match h.authorization_header.is_empty() {
                true => String::new(),
                false => REDACTED.into(),
            },
            active: h.active,
            updated_at: time::render(h.updated, tz),
            created_at: time::render(h.created, tz),
        }
    }
}
