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
