//! Gitea's `Reaction` JSON and its request body, `EditReactionOption`.

use serde::{Deserialize, Serialize};

use super::model::ReactionRecord;
use crate::{
    Config, Result,
    accounts::{
        principal::Caller,
        users::{UserRecord, users_of},
        views::User,
    },
    db::Db,
    time,
};

/// Gitea's `EditReactionOption` (POST and DELETE). `content` may be left
/// out, as in Gitea, where it then names no allowed reaction; unknown
/// fields are refused (a misspelt `content` would otherwise be that 403).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditReactionOption {
    #[serde(default)]
    pub content: String,
}

/// Gitea's `Reaction`, fields in its order.
#[derive(Serialize)]
pub struct Reaction {
    pub user: User,
    pub content: &'static str,
    pub created_at: String,
}

impl Reaction {
    /// Gitea renders the user for the caller (`ToUser(user, doer)`): the
    /// e-mail shows to signed-in callers.
    pub fn new(r: &ReactionRecord, user: &UserRecord, caller: &Caller, config: &Config) -> Self {
        Self {
            user: User::new(user, caller, config),
            content: r.content.as_str(),
            created_at: time::render(r.created, config.display_tz),
        }
    }

    /// Renders a page of reactions, their users read in one batched read
    /// (eventually consistent: rendering only); a user who no longer
    /// exists is Gitea's Ghost.
    pub async fn many(
        db: &Db,
        reactions: &[ReactionRecord],
        caller: &Caller,
        config: &Config,
    ) -> Result<Vec<Reaction>> {
        let users = users_of(db, reactions.iter().map(|r| r.user.as_str())).await?;
        Ok(reactions
            .iter()
            .map(|r| Reaction::new(r, users.get(&r.user), caller, config))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::Content;
    use super::*;

    #[test]
    fn gitea_s_fields_in_its_order() {
        let config =
            Config::from_lookup(|k| (k == "ROOT_URL").then(|| "http://h.test/".to_string()))
                .unwrap();
        let r = ReactionRecord::new("ghost", Content::PlusOne, 60_000_001);
        let v = serde_json::to_string(&Reaction::new(
            &r,
            &UserRecord::ghost(),
            &Caller::Anonymous,
            &config,
        ))
        .unwrap();
        let at = |f: &str| v.find(&format!("\"{f}\":")).unwrap();
        assert!(at("user") < at("content") && at("content") < at("created_at"));
        let v: serde_json::Value = serde_json::from_str(&v).unwrap();
        assert_eq!(v["content"], "+1");
        assert_eq!(v["created_at"], "1970-01-01T00:01:00Z");
        assert_eq!(v.as_object().unwrap().len(), 3);
        let body: EditReactionOption = serde_json::from_str("{}").unwrap();
        assert_eq!(body.content, "");
        assert!(serde_json::from_str::<EditReactionOption>(r#"{"reaction":"+1"}"#).is_err());
    }
}
