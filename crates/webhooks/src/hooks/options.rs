//! Gitea's `CreateHookOption` and `EditHookOption`, parsed into typed
//! values. Unknown fields of the body are ignored, as in Gitea and the
//! tracker's other bodies; unknown `config` keys are refused, since a
//! misspelt `secret` would otherwise leave a hook unsigned.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{
    Error, Result, events,
    model::{self, HookEdit, NewHook},
};

/// The `config` keys served.
pub const CONFIG_KEYS: &[&str] = &["url", "content_type", "http_method", "secret"];

/// Gitea's `CreateHookOption`.
#[derive(Deserialize)]
pub struct CreateHookOption {
    #[serde(rename = "type")]
    pub kind: String,
    pub config: BTreeMap<String, String>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
    #[serde(default)]
    pub branch_filter: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default)]
    pub authorization_header: Option<String>,
    #[serde(default)]
    pub is_system_webhook: Option<bool>,
}

/// Gitea's `EditHookOption`.
#[derive(Deserialize)]
pub struct EditHookOption {
    #[serde(default)]
    pub config: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
    #[serde(default)]
    pub branch_filter: Option<String>,
    #[serde(default)]
    pub active: Option<bool>,
    #[serde(default)]
    pub authorization_header: Option<String>,
    #[serde(default)]
    pub is_system_webhook: Option<bool>,
}

/// Which routes a body came through: site hooks are system hooks, and
/// only they.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Site,
    Owner,
}

fn system(flag: Option<bool>, route: Route) -> Result<()> {
    match (flag, route) {
        (Some(false), Route::Site) => Err(Error::DefaultHooks),
        (Some(true), Route::Owner) => Err(Error::SystemHookElsewhere),
        _ => Ok(()),
    }
}

fn known_keys(config: &BTreeMap<String, String>) -> Result<()> {
    match config.keys().find(|k| !CONFIG_KEYS.contains(&k.as_str())) {
        Some(k) => Err(Error::UnknownConfig(k.clone())),
        None => Ok(()),
    }
}

/// The target URL: bounded here, then `target` (the outbound allow-list)
/// says whether it may be reached.
fn url(raw: &str, target: &impl Fn(&str) -> Result<()>) -> Result<String> {
    let url = model::url_text(raw)?;
    target(&url)?;
    Ok(url)
}

impl CreateHookOption {
    /// The hook this body asks for, every field checked in Gitea's order
    /// (type, required config keys, content type), then ours.
    pub fn parse(self, route: Route, target: impl Fn(&str) -> Result<()>) -> Result<NewHook> {
        let kind = model::kind(&self.kind)?;
        for required in ["url", "content_type"] {
            if !self.config.contains_key(required) {
                return Err(Error::MissingConfig(required));
            }
        }
        let content_type = model::content_type(&self.config["content_type"])?;
        known_keys(&self.config)?;
        if let Some(m) = self.config.get("http_method") {
            model::http_method(m)?;
        }
        system(self.is_system_webhook, route)?;
        let events = events::parse(&self.events.unwrap_or_default())?;
        let secret = model::secret(self.config.get("secret").cloned().unwrap_or_default())?;
        let authorization_header =
            model::authorization_header(self.authorization_header.unwrap_or_default())?;
        let branch_filter = model::branch_filter(self.branch_filter.unwrap_or_default())?;
        Ok(NewHook {
            kind,
            url: url(&self.config["url"], &target)?,
            content_type,
            secret,
            authorization_header,
            events,
            branch_filter,
            active: self.active.unwrap_or(false),
        })
    }
}

impl EditHookOption {
    /// The changes this body asks for; what it leaves out stays.
    pub fn parse(self, route: Route, target: impl Fn(&str) -> Result<()>) -> Result<HookEdit> {
        let config = self.config.unwrap_or_default();
        known_keys(&config)?;
        let content_type = config
            .get("content_type")
            .map(|c| model::content_type(c))
            .transpose()?;
        if let Some(m) = config.get("http_method") {
            model::http_method(m)?;
        }
        system(self.is_system_webhook, route)?;
        let events = self.events.map(|e| events::parse(&e)).transpose()?;
        let secret = config
            .get("secret")
            .cloned()
            .map(model::secret)
            .transpose()?;
        Ok(HookEdit {
            content_type,
            secret,
            authorization_header: self
                .authorization_header
                .map(model::authorization_header)
                .transpose()?,
            events,
            branch_filter: self.branch_filter.map(model::branch_filter).transpose()?,
            active: self.active,
            url: config.get("url").map(|u| url(u, &target)).transpose()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn create(body: serde_json::Value) -> Result<NewHook> {
        serde_json::from_value::<CreateHookOption>(body)
            .unwrap()
            .parse(Route::Owner, |_| Ok(()))
    }

    #[test]
    fn a_create_in_gitea_s_order() {
        let ok = json!({"type": "gitea", "config": {"url": "http://h/", "content_type": "json",
            "secret": "s"}, "events": ["issues"], "active": true});
        let hook = create(ok).unwrap();
        assert_eq!((hook.secret.as_str(), hook.active), ("s", true));
        let bad = |body, want: &str| {
            let got = create(body).unwrap_err().to_string();
            assert!(got.contains(want), "{got:?}, want {want:?}");
        };
        bad(json!({"type": "slack", "config": {}}), "slack");
        bad(
            json!({"type": "gitea", "config": {"url": "http://h/"}}),
            "content_type",
        );
        bad(
            json!({"type": "gitea", "config": {"url": "u", "content_type": "xml"}}),
            "xml",
        );
        bad(
            json!({"type": "gitea", "config": {"url": "u", "content_type": "json", "secrte": "s"}}),
            "secrte",
        );
        bad(
            json!({"type": "gitea", "config": {"url": "u", "content_type": "json"}}),
            "events",
        );
        bad(
            json!({"type": "gitea", "config": {"url": "u", "content_type": "json",
                "http_method": "GET"}, "events": ["issues"]}),
            "GET",
        );
        bad(
            json!({"type": "gitea", "config": {"url": "u", "content_type": "json"},
                "events": ["issues"], "is_system_webhook": true}),
            "system",
        );
    }

    #[test]
    fn an_edit_keeps_what_it_leaves_out() {
        let edit: EditHookOption = serde_json::from_value(json!({"active": true})).unwrap();
        let edit = edit.parse(Route::Site, |_| Ok(())).unwrap();
        assert_eq!(
            edit,
            HookEdit {
                active: Some(true),
                ..HookEdit::default()
            }
        );
        let edit: EditHookOption =
            serde_json::from_value(json!({"is_system_webhook": false})).unwrap();
        assert!(matches!(
            edit.parse(Route::Site, |_| Ok(())),
            Err(Error::DefaultHooks)
        ));
    }
}
