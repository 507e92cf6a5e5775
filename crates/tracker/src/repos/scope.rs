//! The repositories a caller may search: every public repository of an
//! owner they may see, plus (signed in) what they own, what their teams
//! and collaborations give them, or (site admin) everything. Permissions
//! are computed from a few reads for the whole set, not per repository.

use std::collections::{HashMap, HashSet};

use super::Result;
use super::{
    RepoRecord,
    access::{Facts, Permission, compute},
};
use crate::{
    accounts::{
        names::{Name, Visibility},
        principal::{Caller, Principal},
        teams::{AccessMode, Membership, TeamRecord},
        users::{OwnerKind, UserRecord},
    },
    db::{self, Db, keys},
};

/// What the caller was given, read once: all team memberships, the repos
/// of teams that do not include every repository, collaborations.
#[derive(Default)]
struct Grants {
    memberships: Vec<Membership>,
    team_repos: HashMap<i64, HashSet<i64>>,
    collaborations: HashMap<i64, AccessMode>,
}

async fn grants(db: &Db, me: &Principal) -> Result<Grants> {
    let pk = keys::owner_pk(&me.user.name);
    let (members, collabs) = tokio::try_join!(
        db.query_prefix(&pk, "MEMBER#"),
        db.query_prefix(&pk, "COLLAB#")
    )?;
    let memberships: Vec<Membership> = members
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    let mut out = Grants {
        memberships,
        ..Grants::default()
    };
    for item in collabs {
        let id = item
            .get("repo_id")
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse().ok());
        let mode = item
            .get("mode")
            .and_then(|v| v.as_s().ok())
            .and_then(|m| serde_json::from_value(serde_json::Value::String(m.clone())).ok());
        if let (Some(id), Some(mode)) = (id, mode) {
            out.collaborations.insert(id, mode);
        }
    }
    let teams: Vec<i64> = out
        .memberships
        .iter()
        .filter(|m| !m.includes_all_repositories)
        .map(|m| m.team_id)
        .collect();
    let pks: Vec<String> = teams.iter().map(|t| keys::team_pk(*t)).collect();
    let reads = pks.iter().map(|pk| db.query_prefix(pk, "REPO#"));
    for (team, items) in teams
        .iter()
        .zip(futures::future::try_join_all(reads).await?)
    {
        let ids = items.iter().filter_map(|i| {
            i.get("repo_id")
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse().ok())
        });
        out.team_repos.insert(*team, ids.collect());
    }
    Ok(out)
}

/// Repositories of a team (all of its organisation's when it includes all).
pub async fn team_repos(db: &Db, team: &TeamRecord) -> Result<Vec<RepoRecord>> {
    if team.includes_all_repositories {
        return super::list_by_owner(db, &team.org).await;
    }
    let items = db.query_prefix(&keys::team_pk(team.id), "REPO#").await?;
    let ids: Vec<i64> = items
        .iter()
        .filter_map(|i| {
            i.get("repo_id")
                .and_then(|v| v.as_n().ok())
                .and_then(|n| n.parse().ok())
        })
        .collect();
    super::get_many_by_id(db, &ids).await
}

/// The caller's standing, read once per request: what repositories they
/// were given, so permissions on any set of repositories cost only the
/// owners' profiles.
pub struct Viewer<'a> {
    caller: &'a Caller,
    admin: bool,
    grants: Grants,
}

impl<'a> Viewer<'a> {
    pub async fn load(db: &Db, caller: &'a Caller) -> Result<Self> {
        Self::load_with(db, caller, false).await
    }

    /// Like [`Viewer::load`], reading a site admin's grants too (what they
    /// were given, not what they may see: `GET /user/repos`).
    pub async fn load_given(db: &Db, caller: &'a Caller) -> Result<Self> {
        Self::load_with(db, caller, true).await
    }

    async fn load_with(db: &Db, caller: &'a Caller, admins_too: bool) -> Result<Self> {
        let me = caller.principal();
        let admin = me.is_some_and(Principal::is_site_admin);
        let grants = match me.filter(|_| admins_too || !admin) {
            Some(p) => grants(db, p).await?,
            None => Grants::default(),
        };
        Ok(Self {
            caller,
            admin,
            grants,
        })
    }

    pub fn is_admin(&self) -> bool {
        self.admin
    }

    pub fn caller(&self) -> &Caller {
        self.caller
    }

    /// The caller's team memberships, in every organisation.
    pub fn memberships(&self) -> &[Membership] {
        &self.grants.memberships
    }

    /// The repositories a team of the caller was given (teams that do not
    /// include every repository of their organisation).
    pub fn team_repos(&self, team_id: i64) -> Option<&HashSet<i64>> {
        self.grants.team_repos.get(&team_id)
    }

    /// The repositories the caller collaborates on, with their access.
    pub fn collaborations(&self) -> &HashMap<i64, AccessMode> {
        &self.grants.collaborations
    }

    /// The repositories among `repos` the caller may read, with their
    /// permissions.
    pub async fn permissions(
        &self,
        db: &Db,
        repos: Vec<RepoRecord>,
    ) -> Result<Vec<(RepoRecord, Permission)>> {
        let me = self.caller.principal();
        let admin = self.admin;
        let public_only = self.caller.public_only();
        let grants = &self.grants;
        let mut seen = HashSet::new();
        let repos: Vec<RepoRecord> = repos.into_iter().filter(|r| seen.insert(r.id)).collect();

        let owner_names: HashSet<Name> = repos.iter().map(|r| Name::new(&*r.owner)).collect();
        let mut owners: HashMap<Name, UserRecord> = HashMap::new();
        let keys: Vec<_> = owner_names.iter().map(|o| keys::owner(o.key())).collect();
        for chunk in keys.chunks(100) {
            for item in db.batch_get(chunk.to_vec()).await? {
                let u: UserRecord = db::from_item(item)?;
                owners.insert(Name::new(&*u.name), u);
            }
        }

        let mut out = Vec::new();
        for repo in repos {
            let Some(owner) = owners.get(&Name::new(&*repo.owner)) else {
                continue;
            };
            let org = owner.lower_name();
            let memberships: Vec<Membership> = grants
                .memberships
                .iter()
                .filter(|m| m.org == org)
                .cloned()
                .collect();
            let owner_visible = match owner.visibility {
                Visibility::Public => true,
                Visibility::Limited => me.is_some(),
                Visibility::Private => {
                    admin
                        || me.is_some_and(|p| p.user.id == owner.id)
                        || (owner.kind == OwnerKind::Org && !memberships.is_empty())
                }
            };
            let facts = Facts {
                site_admin: admin,
                signed_in: me.is_some(),
                restricted: me.is_some_and(|p| p.user.restricted),
                is_owner: me.is_some_and(|p| p.user.id == owner.id),
                owner_visible,
                private: repo.private,
                has_issues: repo.has_issues,
                has_pulls: repo.has_pull_requests,
                repo_teams: memberships
                    .iter()
                    .filter(|m| {
                        grants
                            .team_repos
                            .get(&m.team_id)
                            .is_some_and(|ids| ids.contains(&repo.id))
                    })
                    .map(|m| m.team_id)
                    .collect(),
                memberships,
                collaborator: grants.collaborations.get(&repo.id).copied(),
                blocked: false,
                public_only,
                owner_public: owner.visibility == Visibility::Public,
            };
            let perm = compute(&facts);
            if perm.can_see() {
                out.push((repo, perm));
            }
        }
        Ok(out)
    }
}
