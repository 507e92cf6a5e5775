//! Webhooks, as Gitea serves them: the hooks of repositories,
//! organisations, users and the site (what they are, who manages them),
//! and what is delivered to them when the tracker changes.
//!
//! Delivery follows docs/webhooks.md: the table's stream is the outbox
//! (every change that notifies carries its actor and, through the stream's
//! old image, the values before it), the one stream consumer fans each
//! change out into delivery items with a due time, and a sender delivers
//! them over [`outbound`](crate::outbound), which refuses targets a
//! stranger should not reach.
//!
//! The hooks themselves, in Gitea's shapes:
//!
//! - [`events`]: the event names a hook may ask for;
//! - [`model`]: the stored record, its owner, bounds and edits (pure);
//! - [`options`]: Gitea's create and edit bodies into typed values;
//! - [`store`]: keys, the bounded create and the delete;
//! - [`views`]: Gitea's `Hook`, secrets left out.
//!
//! Their deliveries, in the stream consumer:
//!
//! - [`outbox`]: the event items deletes and repository creates add;
//! - [`happened`]: a change's events, in Gitea's names (pure);
//! - [`notify`]: events into deliveries of the hooks that want them;
//! - [`payload`]: Gitea's payloads, rendered once per event;
//! - [`delivery`]: deliveries and attempts in the table, the retry rule;
//! - [`wire`]: the body, signature and headers Gitea sends;
//! - [`send`]: one attempt, recorded;
//! - [`sweep`]: what is due again, back to the sender;
//! - [`history`]: what was delivered, redeliveries and test deliveries;
//! - [`line`]: the sender's and the sweeper's log lines and metrics.

pub mod delivery;
pub mod events;
pub mod happened;
pub mod history;
pub mod line;
pub mod model;
pub mod notify;
pub mod options;
pub mod payload;
pub mod send;
pub mod store;
pub mod sweep;
pub mod views;
pub mod wire;

use crate::{db::DbError, time};

pub use model::{HookEdit, HookOwner, HookRecord, MAX_HOOKS, NewHook};
pub use views::Hook;

/// What went wrong with a hook request.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Invalid hook type: {0:?}: this service sends the gitea and gogs types only")]
    Type(String),
    #[error("Missing config option: {0}")]
    MissingConfig(&'static str),
    #[error("Invalid content type {0:?}: use json or form")]
    ContentType(String),
    #[error(
        "unknown config option {0:?}: the options are url, content_type, http_method and secret"
    )]
    UnknownConfig(String),
    #[error("http_method {0:?} is not served: hooks are sent with POST")]
    HttpMethod(String),
    #[error("{field} must be at most {max} characters")]
    TooLong { field: &'static str, max: usize },
    #[error("{field} must not contain control characters")]
    ControlCharacters { field: &'static str },
    #[error("events: name at least one (Gitea's default, push, does not apply to this service)")]
    NoEvents,
    #[error("events: at most {max} names")]
    TooManyEvents { max: usize },
    #[error("event {0:?} is about git content, which does not apply to this service")]
    GitEvent(String),
    #[error("unknown event {0:?}")]
    UnknownEvent(String),
    #[error("site hooks are system hooks: default hooks (is_system_webhook false) are not served")]
    DefaultHooks,
    #[error("only site hooks (/admin/hooks) are system hooks")]
    SystemHookElsewhere,
    #[error("unknown hook type filter {0:?}: use system, default or all")]
    ListType(String),
    /// The target may not be reached (the outbound allow-list's answer).
    #[error("config.url: {0}")]
    Target(String),
    #[error("at most {max} hooks per repository, organisation, user or site")]
    TooMany { max: i64 },
    /// No hook with this id under the owner of the path.
    #[error("hook does not exist [id: {0}]")]
    NoSuch(i64),
    /// No delivery with this id of the hook (or no longer kept).
    #[error("delivery does not exist [id: {0}]")]
    NoSuchDelivery(String),
    #[error("the delivery's payload is no longer kept ({days} days): it cannot be sent again")]
    PayloadGone { days: i64 },
    #[error("test deliveries need a repository: only repository hooks have them")]
    TestNeedsRepo,
    #[error(transparent)]
    Db(#[from] DbError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub use store::{create, list};

/// Hook `id` of `owner`.
pub async fn find(db: &crate::db::Db, owner: &HookOwner, id: i64) -> Result<HookRecord> {
    store::get(db, owner, id).await?.ok_or(Error::NoSuch(id))
}

/// Applies `edit` to hook `id` of `owner` and stores it.
pub async fn edit(
    db: &crate::db::Db,
    owner: &HookOwner,
    id: i64,
    edit: HookEdit,
) -> Result<HookRecord> {
    let hook = edit.apply(find(db, owner, id).await?, time::now());
    store::save(db, &hook).await?;
    Ok(hook)
}

pub async fn delete(db: &crate::db::Db, owner: &HookOwner, id: i64) -> Result<()> {
    store::delete(db, owner, id).await
}

/// Gitea's `type` filter of the site's list: `system` (the default) and
/// `all` list the site's hooks, which are all system hooks; `default`
/// lists none, since default hooks are not served.
pub fn site_list_type(raw: Option<&str>) -> Result<bool> {
    match raw.map(str::trim).unwrap_or("") {
        "" | "system" | "all" => Ok(true),
        "default" => Ok(false),
        other => Err(Error::ListType(other.to_string())),
    }
}
