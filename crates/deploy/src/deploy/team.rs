//! The caller as the deploy area sees it: a team and what its token may do.
//! The HTTP layer builds it from the request's token (`http/team.rs`).

use std::sync::Arc;

use crate::{
    auth::scope::{Ability, Scopes},
    db::{Item, keys},
    seal::Sealer,
};

/// The caller's deploy team and what the token may see.
#[derive(Clone, Debug)]
pub struct Team {
    pub name: String,
    /// `read:sensitive` or `root`: secrets are shown.
    pub sensitive: bool,
    /// `deploy` or `root`: deployments may be queued.
    pub can_deploy: bool,
    /// Seals and opens the team's secrets (the process's one sealer).
    pub sealer: Arc<Sealer>,
}

impl Team {
    /// The team a token names (its user's own when it names none).
    pub fn new(team: &str, scopes: &Scopes, user: &str, sealer: Arc<Sealer>) -> Team {
        let name = if team.is_empty() { user } else { team };
        Team {
            name: crate::name::fold(name),
            sensitive: scopes.can(Ability::ReadSensitive),
            can_deploy: scopes.can(Ability::Deploy),
            sealer,
        }
    }

    /// The team a runner's server belongs to: it acts for the team's
    /// server, and sees no secret a token would need `read:sensitive` for.
    pub fn of_runner(folded_name: &str, sealer: Arc<Sealer>) -> Team {
        Team {
            name: folded_name.to_string(),
            sensitive: false,
            can_deploy: false,
            sealer,
        }
    }

    /// The team's cipher.
    pub async fn cipher(
        &self,
        db: &crate::db::Db,
    ) -> Result<Arc<crate::seal::Cipher>, crate::seal::SealError> {
        self.sealer.team(db, &self.name).await
    }

    /// The key of one of this team's items.
    pub fn key(&self, sk: &str) -> Item {
        keys::deploy(&self.name, sk)
    }
}

/// Coolify's team: the account (user or organisation) a deploy team is
/// named after. Its numeric id is that account's id, so it is stable and
/// needs no sequence of its own; a user's own team is `personal_team`.
pub mod coolify {
    use std::collections::BTreeSet;

    use serde_json::{Value, json};

    use super::Team;
    use crate::{
        db::{self, Db, Query, keys},
        deploy::error::{Error, Result},
    };
    use people::accounts::users::{UserRecord, users_of};

    /// Most members `GET /team/members` lists (Coolify's list is not
    /// paged: this keeps the answer within one Lambda response).
    pub const MAX_MEMBERS: usize = 1000;

    /// The account the team is named after, or the 404 (a token's team
    /// outlived its organisation).
    pub async fn account(db: &Db, team: &Team) -> Result<UserRecord> {
        db.get_as::<UserRecord>(keys::owner(&team.name))
            .await?
            .ok_or(Error::NothingFound("Team not found."))
    }

    /// The account of `wanted` (`current`, or the team's numeric id, as
    /// Coolify's `/teams/{id}` takes it): any other id is not the
    /// token's team, 404.
    pub async fn by_id(db: &Db, team: &Team, wanted: &str) -> Result<UserRecord> {
        let account = account(db, team).await?;
        if wanted == "current" || wanted.parse::<i64>().ok() == Some(account.id) {
            Ok(account)
        } else {
            Err(Error::NothingFound("Team not found."))
        }
    }

    /// Coolify's team record.
    pub fn view(a: &UserRecord) -> Value {
        let at = chrono::DateTime::from_timestamp(a.created, 0)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string());
        let description = (!a.description.is_empty()).then_some(a.description.as_str());
        json!({
            "id": a.id,
            "name": a.name,
            "description": description,
            "personal_team": !a.is_org(),
            "show_boarding": false,
            "created_at": at,
            "updated_at": at,
        })
    }

    /// Coolify's member record: `{id, name, email, ...}`.
    fn member(u: &UserRecord) -> Value {
        let at = chrono::DateTime::from_timestamp(u.created, 0)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string());
        let name = if u.full_name.is_empty() {
            &u.name
        } else {
            &u.full_name
        };
        json!({
            "id": u.id,
            "name": name,
            "email": u.email,
            "email_verified_at": null,
            "created_at": at,
            "updated_at": at,
            "two_factor_confirmed_at": null,
            "force_password_reset": false,
        })
    }

    /// The team's members: its user, or the organisation's members (of
    /// any of its teams), by name, at most [`MAX_MEMBERS`].
    pub async fn members(db: &Db, account: &UserRecord) -> Result<Vec<Value>> {
        if !account.is_org() {
            return Ok(vec![member(account)]);
        }
        let teams = db
            .query_prefix(&keys::owner_pk(&account.name), "TEAM#")
            .await?;
        let mut names = BTreeSet::new();
        for t in teams {
            let Some(id) = t
                .get("id")
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse::<i64>().ok())
            else {
                continue;
            };
            let pk = db::text(&keys::team(id), "pk").to_string();
            let mut cursor = None;
            loop {
                let q = Query::table(pk.clone()).prefix("MEMBER#");
                let page = db.query_page(q.after(cursor.take())).await?;
                names.extend(page.items.iter().map(|i| db::text(i, "user").to_string()));
                match page.next {
                    Some(k) if names.len() < MAX_MEMBERS => cursor = Some(k),
                    _ => break,
                }
            }
        }
        let names: Vec<&str> = names.iter().map(String::as_str).take(MAX_MEMBERS).collect();
        let users = users_of(db, names.iter().copied())
            .await
            .map_err(|e| match e {
                people::accounts::Error::Db(e) => Error::Db(e),
                _ => Error::Internal("the team's members could not be read"),
            })?;
        // A member whose account is gone (the ghost) is left out.
        Ok(names
            .iter()
            .map(|n| users.get(n))
            .filter(|u| u.id > 0)
            .map(member)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_without_a_team_acts_for_its_user() {
        let scopes = Scopes::parse(&["read"]).unwrap();
        let sealer = Arc::new(Sealer::new(None));
        let t = Team::new("", &scopes, "Ada", sealer.clone());
        assert_eq!(
            (t.name.as_str(), t.sensitive, t.can_deploy),
            ("ada", false, false)
        );
        let root = Scopes::parse(&["root"]).unwrap();
        let t = Team::new("Acme", &root, "ada", sealer);
        assert_eq!(
            (t.name.as_str(), t.sensitive, t.can_deploy),
            ("acme", true, true)
        );
    }
}
