//! A hook as stored, its owner, and the parsed create and edit requests
//! with their pure rules (bounds, which fields an edit changes).

use serde::{Deserialize, Serialize};

use super::{Error, Result};

/// Most hooks of one repository, organisation, user, or of the site
/// (GitHub's bound), kept by a counter beside them.
pub const MAX_HOOKS: i64 = 20;
/// Longest target URL, in characters.
pub const MAX_URL_CHARS: usize = 2048;
/// Longest secret, in characters.
pub const MAX_SECRET_CHARS: usize = 255;
/// Longest `authorization_header`, in characters.
pub const MAX_AUTHORIZATION_CHARS: usize = 1024;
/// Longest `branch_filter`, in characters.
pub const MAX_BRANCH_FILTER_CHARS: usize = 255;

/// Whose hook it is: the changes it hears of are that owner's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum HookOwner {
    /// A repository's (by id: a rename does not move its hooks).
    Repo { id: i64 },
    /// An organisation's: every repository of it.
    Org { name: String },
    /// A user's: every repository they own.
    User { name: String },
    /// The site's (Gitea's system hooks): every repository.
    Site,
}

/// The hook types served: Gitea's own payload, and Gogs' (the same
/// payload, other header names). Chat services' types are refused.
pub const TYPES: &[&str] = &["gitea", "gogs"];

/// How the payload is sent: a JSON body, or a form with `payload=`.
pub const CONTENT_TYPES: &[&str] = &["json", "form"];

/// A hook as stored. Read leniently: attributes a later release adds are
/// ignored, and those this one added later default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookRecord {
    pub id: i64,
    pub owner: HookOwner,
    /// One of [`TYPES`] (kept as text, so a type a later release serves
    /// does not make this release's reads fail).
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    /// One of [`CONTENT_TYPES`].
    pub content_type: String,
    /// Always `POST` for now.
    #[serde(default = "post")]
    pub http_method: String,
    /// The HMAC key of the signature headers; never shown.
    #[serde(default)]
    pub secret: String,
    /// Sent as the `Authorization` header; shown only redacted.
    #[serde(default)]
    pub authorization_header: String,
    /// Names from [`super::events::EVENTS`], in that order.
    #[serde(default)]
    pub events: Vec<String>,
    /// A glob over a pull request's base branch; empty: every branch.
    #[serde(default)]
    pub branch_filter: String,
    #[serde(default)]
    pub active: bool,
    pub created: i64,
    pub updated: i64,
}

fn post() -> String {
    "POST".into()
}

/// A parsed create request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewHook {
    pub kind: String,
    pub url: String,
    pub content_type: String,
    pub secret: String,
    pub authorization_header: String,
    pub events: Vec<String>,
    pub branch_filter: String,
    pub active: bool,
}

impl NewHook {
    pub fn record(self, id: i64, owner: HookOwner, now: i64) -> HookRecord {
        HookRecord {
            id,
            owner,
            kind: self.kind,
            url: self.url,
            content_type: self.content_type,
            http_method: post(),
            secret: self.secret,
            authorization_header: self.authorization_header,
            events: self.events,
            branch_filter: self.branch_filter,
            active: self.active,
            created: now,
            updated: now,
        }
    }
}

/// A parsed edit: `None` keeps a field as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HookEdit {
    pub url: Option<String>,
    pub content_type: Option<String>,
    pub secret: Option<String>,
    pub authorization_header: Option<String>,
    pub events: Option<Vec<String>>,
    pub branch_filter: Option<String>,
    pub active: Option<bool>,
}

impl HookEdit {
    pub fn apply(self, mut hook: HookRecord, now: i64) -> HookRecord {
        let keep = |field: &mut String, new: Option<String>| {
            if let Some(v) = new {
                *field = v;
            }
        };
        keep(&mut hook.url, self.url);
        keep(&mut hook.content_type, self.content_type);
        keep(&mut hook.secret, self.secret);
        keep(&mut hook.authorization_header, self.authorization_header);
        keep(&mut hook.branch_filter, self.branch_filter);
        if let Some(events) = self.events {
            hook.events = events;
        }
        if let Some(active) = self.active {
            hook.active = active;
        }
        hook.updated = now;
        hook
    }
}

/// One of [`TYPES`], exactly as Gitea spells them.
pub fn kind(raw: &str) -> Result<String> {
    match TYPES.contains(&raw) {
        true => Ok(raw.to_string()),
        false => Err(Error::Type(raw.to_string())),
    }
}

/// One of [`CONTENT_TYPES`].
pub fn content_type(raw: &str) -> Result<String> {
    match CONTENT_TYPES.contains(&raw) {
        true => Ok(raw.to_string()),
        false => Err(Error::ContentType(raw.to_string())),
    }
}

/// `POST` (any case) is the only method served.
pub fn http_method(raw: &str) -> Result<()> {
    match raw.trim().eq_ignore_ascii_case("POST") {
        true => Ok(()),
        false => Err(Error::HttpMethod(raw.to_string())),
    }
}

/// A text of at most `max` characters, without control characters when
/// `line` (it goes into a header or a pattern).
fn bounded(field: &'static str, raw: String, max: usize, line: bool) -> Result<String> {
    if raw.chars().count() > max {
        return Err(Error::TooLong { field, max });
    }
    if line && raw.chars().any(char::is_control) {
        return Err(Error::ControlCharacters { field });
    }
    Ok(raw)
}

pub fn secret(raw: String) -> Result<String> {
    bounded("secret", raw, MAX_SECRET_CHARS, false)
}

pub fn authorization_header(raw: String) -> Result<String> {
    bounded(
        "authorization_header",
        raw.trim().to_string(),
        MAX_AUTHORIZATION_CHARS,
        true,
    )
}

pub fn branch_filter(raw: String) -> Result<String> {
    bounded(
        "branch_filter",
        raw.trim().to_string(),
        MAX_BRANCH_FILTER_CHARS,
        true,
    )
}

/// A target URL's bound; whether it may be reached is
/// [`crate::outbound`]'s to say.
pub fn url_text(raw: &str) -> Result<String> {
    let url = raw.trim();
    if url.is_empty() {
        return Err(Error::MissingConfig("url"));
    }
    bounded("config.url", url.to_string(), MAX_URL_CHARS, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_content_types_and_methods() {
        assert_eq!(kind("gitea").unwrap(), "gitea");
        assert_eq!(kind("gogs").unwrap(), "gogs");
        for refused in ["slack", "discord", "msteams", "Gitea", ""] {
            assert!(matches!(kind(refused), Err(Error::Type(_))), "{refused}");
        }
        assert!(content_type("json").is_ok() && content_type("form").is_ok());
        assert!(content_type("xml").is_err());
        assert!(http_method("post").is_ok() && http_method(" POST ").is_ok());
        assert!(http_method("GET").is_err() && http_method("PUT").is_err());
    }

    #[test]
    fn bounds_and_header_safety() {
        assert!(secret("s".repeat(MAX_SECRET_CHARS)).is_ok());
        assert!(secret("s".repeat(MAX_SECRET_CHARS + 1)).is_err());
        assert!(authorization_header("Bearer x\r\nX-Evil: 1".into()).is_err());
        assert!(authorization_header("a".repeat(MAX_AUTHORIZATION_CHARS + 1)).is_err());
        assert!(branch_filter("{main,release/*}".into()).is_ok());
        assert!(branch_filter("b".repeat(MAX_BRANCH_FILTER_CHARS + 1)).is_err());
        assert!(url_text(&"u".repeat(MAX_URL_CHARS + 1)).is_err());
        assert!(matches!(url_text("  "), Err(Error::MissingConfig("url"))));
    }

    #[test]
    fn an_edit_changes_only_what_it_names() {
        let new = NewHook {
            kind: "gitea".into(),
            url: "http://a/".into(),
            content_type: "json".into(),
            secret: "s".into(),
            authorization_header: "Bearer t".into(),
            events: vec!["issues".into()],
            branch_filter: "main".into(),
            active: true,
        };
        let hook = new.record(7, HookOwner::Site, 100);
        let edit = HookEdit {
            active: Some(false),
            ..HookEdit::default()
        };
        let edited = edit.apply(hook.clone(), 200);
        assert_eq!(
            edited,
            HookRecord {
                active: false,
                updated: 200,
                ..hook
            }
        );
    }
}
