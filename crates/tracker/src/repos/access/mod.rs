//! Who may do what in a repository, computed once per request.
//!
//! Sources, as in Gitea: site admins and the owning user have everything;
//! organisation owners too; team members get their team's access (all
//! units at admin, else per unit) for repositories their team includes;
//! collaborators get their access on every unit; anyone who may see the
//! owner reads a public repository (restricted users only what they were
//! given). A disabled unit is closed to everyone. A blocked user keeps read
//! access but may not open issues or be assigned.

use serde::{Deserialize, Serialize};

use super::{Error, RepoRecord, Result};
use crate::{
    accounts::{
        names::{Visibility, fold},
        principal::{self, Caller, Principal},
        teams::{self, AccessMode, Membership},
        users::{OwnerKind, UserRecord},
    },
    db::{self, Db, keys},
};

/// A repository unit whose access is tracked separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Issues,
    Pulls,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Issues => "repo.issues",
            Unit::Pulls => "repo.pulls",
        }
    }

    pub fn for_pull(is_pull: bool) -> Self {
        if is_pull { Unit::Pulls } else { Unit::Issues }
    }
}

/// The caller's rights on one repository.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Permission {
    /// Overall access (drives `permissions` in the Repository JSON).
    pub mode: AccessMode,
    pub issues: AccessMode,
    pub pulls: AccessMode,
    /// The repository's owner has blocked the caller.
    pub blocked: bool,
}

impl Permission {
    /// Everything, on every unit (owners, site admins, a new repository's
    /// creator).
    pub fn full() -> Self {
        Self {
            mode: AccessMode::Owner,
            issues: AccessMode::Owner,
            pulls: AccessMode::Owner,
            blocked: false,
        }
    }

    pub fn unit(&self, unit: Unit) -> AccessMode {
        match unit {
            Unit::Issues => self.issues,
            Unit::Pulls => self.pulls,
        }
    }

    pub fn can_read(&self, unit: Unit) -> bool {
        self.unit(unit) >= AccessMode::Read
    }

    pub fn can_write(&self, unit: Unit) -> bool {
        self.unit(unit) >= AccessMode::Write
    }

    /// Read access to the repository at all.
    pub fn can_see(&self) -> bool {
        self.mode >= AccessMode::Read
    }

    pub fn is_admin(&self) -> bool {
        self.mode >= AccessMode::Admin
    }

    /// Whether a block keeps the caller from an issue's text and its
    /// comments: blocked by the repository's owner (or, `by_poster`, by the
    /// issue's poster) and not administering the repository (site admins
    /// administer every one), as Gitea lets admins through. The one place
    /// that rule is written.
    pub fn blocked_out(&self, by_poster: bool) -> bool {
        (self.blocked || by_poster) && !self.is_admin()
    }

    /// Gitea's `reqRepoWriter(Issues, PullRequests)`: write on either unit.
    pub fn can_write_issues_or_pulls(&self) -> bool {
        self.can_write(Unit::Issues) || self.can_write(Unit::Pulls)
    }
}

/// A collaborator or team grant stored on the repository.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Grant {
    /// The collaborator (user grants).
    #[serde(default)]
    pub user: Option<String>,
    /// The team (team grants).
    #[serde(default)]
    pub team_id: Option<i64>,
    /// The collaborator's access (user grants).
    #[serde(default)]
    pub mode: Option<AccessMode>,
}

impl Grant {
    /// Both items of the grant: the repository side and the other side.
    pub fn keys(&self, repo_id: i64) -> Vec<db::Item> {
        match (&self.user, self.team_id) {
            (Some(u), _) => vec![
                keys::collaborator(repo_id, u),
                keys::collaboration(u, repo_id),
            ],
            (None, Some(t)) => vec![keys::repo_team(repo_id, t), keys::team_repo(t, repo_id)],
            (None, None) => vec![],
        }
    }
}

/// Everything the permission depends on, gathered by [`load`].
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub site_admin: bool,
    pub signed_in: bool,
    pub restricted: bool,
    /// The caller owns the repository (user-owned repositories).
    pub is_owner: bool,
    /// The owner is visible to the caller (public, limited and signed in,
    /// or private and a member).
    pub owner_visible: bool,
    pub private: bool,
    pub has_issues: bool,
    pub has_pulls: bool,
    /// The caller's teams in the owning organisation.
    pub memberships: Vec<Membership>,
    /// Teams granted this repository.
    pub repo_teams: Vec<i64>,
    /// The caller's collaborator access.
    pub collaborator: Option<AccessMode>,
    pub blocked: bool,
    /// The caller's token is limited to public things (`public-only`).
    pub public_only: bool,
    /// The owner is public (not limited or private).
    pub owner_public: bool,
}

/// The permission rules, as a pure function (tested row by row).
pub fn compute(f: &Facts) -> Permission {
    if f.public_only && (f.private || !f.owner_public) {
        return Permission::default();
    }
    let full = |m: AccessMode| (m, m, m);
    let (mut mode, mut issues, mut pulls) = full(AccessMode::None);
    let mut raise = |m: AccessMode, i: AccessMode, p: AccessMode| {
        mode = mode.max(m);
        issues = issues.max(i);
        pulls = pulls.max(p);
    };
    if f.site_admin || f.is_owner {
        let (m, i, p) = full(AccessMode::Owner);
        raise(m, i, p);
    }
    if f.owner_visible && !f.private && !f.restricted {
        let (m, i, p) = full(AccessMode::Read);
        raise(m, i, p);
    }
    if let Some(c) = f.collaborator {
        let (m, i, p) = full(c);
        raise(m, i, p);
    }
    for t in &f.memberships {
        if !(t.includes_all_repositories || f.repo_teams.contains(&t.team_id)) {
            continue;
        }
        if t.permission >= AccessMode::Admin {
            let (m, i, p) = full(t.permission);
            raise(m, i, p);
            continue;
        }
        let unit = |u: Unit| t.units.get(u.name()).copied().unwrap_or(AccessMode::None);
        raise(t.permission, unit(Unit::Issues), unit(Unit::Pulls));
    }
    if !f.has_issues {
        issues = AccessMode::None;
    }
    if !f.has_pulls {
        pulls = AccessMode::None;
    }
    Permission {
        mode,
        issues,
        pulls,
        blocked: f.blocked && !f.site_admin,
    }
}

/// A repository resolved for one request, with the caller's permission.
#[derive(Clone, Debug)]
pub struct RepoContext {
    pub owner: UserRecord,
    pub repo: RepoRecord,
    pub perm: Permission,
}

/// Resolves `/repos/{owner}/{repo}` for the caller: 404 when it does not
/// exist or the caller may not see it (private things are not found, not
/// forbidden). Reads run concurrently: the owner, the repository, the
/// caller's teams in the owner and the owner's block of the caller in one
/// wave; grants on the repository only when they can change the answer.
pub async fn load(db: &Db, caller: &Caller, owner: &str, name: &str) -> Result<RepoContext> {
    let me = caller.principal();
    let memberships = async {
        match me {
            Some(p) => teams::memberships(db, owner, &p.user.name).await.map(Some),
            None => Ok(None),
        }
    };
    let blocked = async {
        match me {
            Some(p) => db
                .get(keys::block(owner, &p.user.name))
                .await
                .map(|i| i.is_some()),
            None => Ok(false),
        }
    };
    let (owner_rec, repo, memberships, blocked) = tokio::join!(
        principal::get_for(db, owner, caller),
        super::get(db, owner, name),
        memberships,
        blocked
    );
    let not_found = || Error::NotFound {
        owner: owner.to_string(),
        name: name.to_string(),
    };
    let (Some(owner_rec), Some(repo)) = (owner_rec?, repo?) else {
        return Err(not_found());
    };
    let memberships = memberships?.unwrap_or_default();
    let mut facts = Facts::of(
        &owner_rec,
        &repo,
        me,
        caller.public_only(),
        memberships,
        blocked?,
    );
    if let Some(p) = me.filter(|_| facts.grants_matter()) {
        let grants = grants(db, repo.id).await?;
        facts.apply_grants(&grants, &p.user.name);
    }
    let perm = compute(&facts);
    if !perm.can_see() {
        return Err(not_found());
    }
    Ok(RepoContext {
        owner: owner_rec,
        repo,
        perm,
    })
}

/// The grants stored on a repository (collaborators and teams).
async fn grants(db: &Db, repo_id: i64) -> Result<Vec<Grant>> {
    Ok(db
        .query_prefix(&keys::repo_pk(repo_id), keys::ACCESS_PREFIX)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?)
}

impl Facts {
    /// What the owner, the repository, `me`'s teams in the owner and the
    /// owner's block of `me` tell; grants are applied afterwards.
    fn of(
        owner: &UserRecord,
        repo: &RepoRecord,
        me: Option<&Principal>,
        public_only: bool,
        memberships: Vec<Membership>,
        blocked: bool,
    ) -> Self {
        Facts {
            site_admin: me.is_some_and(Principal::is_site_admin),
            signed_in: me.is_some(),
            restricted: me.is_some_and(|p| p.user.restricted),
            is_owner: me.is_some_and(|p| p.user.id == owner.id),
            owner_visible: owner_visible(owner, me, !memberships.is_empty()),
            private: repo.private,
            has_issues: repo.has_issues,
            has_pulls: repo.has_pull_requests,
            memberships,
            repo_teams: Vec::new(),
            collaborator: None,
            blocked,
            public_only,
            owner_public: owner.visibility == Visibility::Public,
        }
    }

    /// Grants can only raise access: they count for signed-in callers who
    /// are neither site admin, owner nor organisation owner (and are not
    /// read for the others).
    fn grants_matter(&self) -> bool {
        let org_owner = self
            .memberships
            .iter()
            .any(|m| m.permission == AccessMode::Owner);
        self.signed_in && !self.site_admin && !self.is_owner && !org_owner
    }

    /// `login`'s collaborator access and the teams granted the repository.
    fn apply_grants(&mut self, grants: &[Grant], login: &str) {
        let login = fold(login);
        self.collaborator = grants
            .iter()
            .find(|g| g.user.as_deref() == Some(login.as_str()))
            .and_then(|g| g.mode);
        self.repo_teams = grants.iter().filter_map(|g| g.team_id).collect();
    }
}

fn owner_visible(owner: &UserRecord, me: Option<&Principal>, member: bool) -> bool {
    match owner.visibility {
        Visibility::Public => true,
        Visibility::Limited => me.is_some(),
        Visibility::Private => {
            me.is_some_and(|p| p.is_site_admin() || p.user.id == owner.id)
                || (owner.kind == OwnerKind::Org && member)
        }
    }
}

impl RepoContext {
    /// Gitea's `reqRepoWriter(Issues, PullRequests)`, for routes that
    /// write labels or milestones. The repository was resolved first
    /// (404); then the caller must be signed in (401), as Gitea orders
    /// them; one who may write neither unit gets 403.
    pub fn writer(self, caller: &Caller) -> Result<Self> {
        principal::signed_in(caller)?;
        if !self.perm.can_write_issues_or_pulls() {
            return Err(Error::NotWriter);
        }
        Ok(self)
    }

    /// Write access to the repository itself (Gitea's code writers: what
    /// may move a branch head), after the same 404-then-401 order.
    pub fn pusher(self, caller: &Caller) -> Result<Self> {
        principal::signed_in(caller)?;
        if self.perm.mode < AccessMode::Write {
            return Err(Error::NotWriter);
        }
        Ok(self)
    }

    /// Repository admins only (settings, collaborators), after the same
    /// 404-then-401 order.
    pub fn admin(self, caller: &Caller) -> Result<Self> {
        principal::signed_in(caller)?;
        if !self.perm.is_admin() {
            return Err(Error::NotAdmin);
        }
        Ok(self)
    }

    /// The owner's access only (deleting the repository).
    pub fn owner(self, caller: &Caller) -> Result<Self> {
        principal::signed_in(caller)?;
        if self.perm.mode < AccessMode::Owner {
            return Err(Error::NotOwner);
        }
        Ok(self)
    }
}

mod others;

pub use others::{Other, others};

#[cfg(test)]
mod tests;
