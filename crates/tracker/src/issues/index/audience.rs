//! What a caller's search reads: one source per set of issues they may
//! see, with no issue in two sources, so that the sources' counts add up
//! to what they may see.
//!
//! - everyone: the `Everyone` audience (`GE`);
//! - signed-in users who are not restricted: also `SignedIn` (`GS`), and
//!   the public repositories of private owners they belong to (`O:`);
//! - the private repositories of owners whose every repository they may
//!   read (their own account; organisations where they are an owner or in
//!   a team that includes every repository): `V:<owner>`;
//! - repositories they were given one by one (collaborations, teams'
//!   chosen repositories): one `R:` source each, or, past [`GROUP`] of one
//!   owner, that owner's scope restricted to them;
//! - site admins: every audience.
//!
//! `owner=` keeps what is of that owner (`O:`/`V:`), and `team=` what is of
//! the team's repositories.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};

use super::{
    class::Class,
    lists::Scope,
    query::{Kinds, Source},
};
use crate::{
    accounts::{
        names::Visibility,
        teams::{AccessMode, Membership, TeamRecord},
        users::UserRecord,
    },
    db::{self, Db, keys},
    issues::{Error, Result},
    repos::{
        self, RepoRecord,
        access::{Permission, Unit},
        scope::Viewer,
    },
};

/// Repositories of one owner read one by one before their owner's scope
/// is read instead (restricted to them).
pub const GROUP: usize = 8;

/// Most sources one search reads.
pub const MAX_SOURCES: usize = 40;

/// Most repositories given one by one that a search considers.
pub const MAX_GIVEN: usize = 500;

/// A search's narrowing: an owner (already known to be visible to the
/// caller) and one of its teams.
pub struct Narrowing<'a> {
    pub owner: Option<&'a UserRecord>,
    pub team: Option<&'a TeamRecord>,
}

fn kinds_of(p: &Permission) -> Kinds {
    Kinds {
        issues: p.can_read(Unit::Issues),
        pulls: p.can_read(Unit::Pulls),
    }
}

/// What a team membership lets its member read in every repository of the
/// organisation, when the team includes them all.
fn team_kinds(m: &Membership) -> Option<Kinds> {
    if !(m.includes_all_repositories || m.permission >= AccessMode::Owner) {
        return None;
    }
    if m.permission >= AccessMode::Admin {
        return Some(Kinds::BOTH);
    }
    let unit =
        |name: &str| m.units.get(name).copied().unwrap_or(AccessMode::None) >= AccessMode::Read;
    Some(Kinds {
        issues: unit("repo.issues"),
        pulls: unit("repo.pulls"),
    })
}

/// The sources of a search by `viewer`.
pub async fn sources(db: &Db, viewer: &Viewer<'_>, narrow: &Narrowing<'_>) -> Result<Vec<Source>> {
    let caller = viewer.caller();
    let owner = narrow.owner.map(UserRecord::lower_name);
    let mut out = Vec::new();
    let Some(me) = caller.principal() else {
        // Anonymous: what everyone sees.
        out.push(match &owner {
            None => Source::new(Scope::Global(Class::Everyone), Kinds::BOTH),
            Some(o) => Source::new(Scope::Owner(o.clone()), Kinds::BOTH),
        });
        return narrowed(db, out, narrow).await;
    };
    if viewer.is_admin() {
        match &owner {
            None => {
                for c in [Class::Everyone, Class::SignedIn, Class::Members] {
                    out.push(Source::new(Scope::Global(c), Kinds::BOTH));
                }
            }
            Some(o) => {
                out.push(Source::new(Scope::Owner(o.clone()), Kinds::BOTH));
                out.push(Source::new(Scope::Private(o.clone()), Kinds::BOTH));
            }
        }
        return narrowed(db, out, narrow).await;
    }
    if caller.public_only() {
        out.push(match &owner {
            None => Source::new(Scope::Global(Class::Everyone), Kinds::BOTH),
            Some(o) => Source::new(Scope::Owner(o.clone()), Kinds::BOTH),
        });
        return narrowed(db, out, narrow).await;
    }
    let restricted = me.user.restricted;
    let login = me.user.lower_name();

    // Owners whose every repository the caller reads, with the kinds.
    let mut full: BTreeMap<String, Kinds> = BTreeMap::from([(login.clone(), Kinds::BOTH)]);
    let mut member_of: HashSet<String> = HashSet::new();
    for m in viewer.memberships() {
        let org = crate::name::fold(&m.org);
        member_of.insert(org.clone());
        if let Some(k) = team_kinds(m) {
            let e = full.entry(org).or_default();
            *e = e.union(k);
        }
    }
    let wanted = |o: &str| owner.as_deref().is_none_or(|x| x == o);
    if !restricted {
        match &owner {
            None => {
                out.push(Source::new(Scope::Global(Class::Everyone), Kinds::BOTH));
                out.push(Source::new(Scope::Global(Class::SignedIn), Kinds::BOTH));
            }
            // Public repositories of a visible owner.
            Some(o) => out.push(Source::new(Scope::Owner(o.clone()), Kinds::BOTH)),
        }
    }
    // Public repositories of private owners the caller belongs to (their
    // audience is members-only), unless already read.
    let mut owners: Vec<String> = member_of.iter().cloned().collect();
    owners.push(login.clone());
    owners.retain(|o| wanted(o));
    owners.sort();
    let profiles = profiles(db, &owners).await?;
    let mut public_read: HashSet<String> = HashSet::new();
    for o in &owners {
        let private_owner = profiles
            .get(o)
            .is_some_and(|u| u.visibility == Visibility::Private);
        if restricted {
            if let Some(k) = full.get(o) {
                out.push(Source::new(Scope::Owner(o.clone()), *k));
                public_read.insert(o.clone());
            }
        } else if owner.is_some() || !private_owner {
            // Read through the global audiences or the owner's scope above.
            public_read.insert(o.clone());
        } else {
            out.push(Source::new(Scope::Owner(o.clone()), Kinds::BOTH));
            public_read.insert(o.clone());
        }
    }
    for (o, k) in &full {
        if wanted(o) && k.any() {
            out.push(Source::new(Scope::Private(o.clone()), *k));
        }
    }

    // Repositories given one by one, where not read already.
    let mut given: Vec<i64> = viewer.collaborations().keys().copied().collect();
    for m in viewer.memberships() {
        if let Some(ids) = viewer.team_repos(m.team_id) {
            given.extend(ids);
        }
    }
    given.sort_unstable();
    given.dedup();
    if given.len() > MAX_GIVEN {
        return Err(Error::TooBroad(format!(
            "you were given {} repositories one by one (a search reads at most {MAX_GIVEN} that way): add owner= to narrow it",
            given.len()
        )));
    }
    let found = repos::summaries_by_id(db, &given).await?;
    let visible = viewer.permissions(db, found).await?;
    let others: Vec<String> = visible
        .iter()
        .map(|(r, _)| crate::name::fold(&r.owner))
        .filter(|o| !profiles.contains_key(o))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let others = self::profiles(db, &others).await?;
    let visibility = |o: &str| {
        profiles
            .get(o)
            .or_else(|| others.get(o))
            .map_or(Visibility::Private, |u| u.visibility)
    };
    let mut groups: BTreeMap<(String, bool), Vec<(RepoRecord, Kinds)>> = BTreeMap::new();
    for (r, p) in visible {
        let o = crate::name::fold(&r.owner);
        if !wanted(&o) || full.get(&o).is_some_and(|k| covers(k, &p)) {
            continue;
        }
        // A public repository is read already through the audiences (or
        // the owner's scope) unless the caller is restricted, or its owner
        // is private and the caller not one of its members.
        let through_public = !r.private
            && (public_read.contains(&o)
                || (!restricted && (owner.is_some() || visibility(&o) != Visibility::Private)));
        if through_public {
            continue;
        }
        let k = kinds_of(&p);
        if k.any() {
            groups.entry((o, r.private)).or_default().push((r, k));
        }
    }
    for ((o, private), repos) in groups {
        if repos.len() <= GROUP {
            out.extend(
                repos
                    .into_iter()
                    .map(|(r, k)| Source::new(Scope::Repo(r.id), k)),
            );
        } else {
            let only: HashMap<i64, Kinds> = repos.iter().map(|(r, k)| (r.id, *k)).collect();
            out.push(Source {
                only: Some(Arc::new(only)),
                ..Source::new(Scope::of_owner(&o, private), Kinds::BOTH)
            });
        }
    }
    narrowed(db, out, narrow).await
}

/// Whether reading an owner's scopes with `kinds` already shows what `p`
/// allows.
fn covers(kinds: &Kinds, p: &Permission) -> bool {
    (kinds.issues || !p.can_read(Unit::Issues)) && (kinds.pulls || !p.can_read(Unit::Pulls))
}

/// Owner profiles by lower-case name.
async fn profiles(db: &Db, owners: &[String]) -> Result<HashMap<String, UserRecord>> {
    let keys = owners.iter().map(|o| keys::owner(o)).collect();
    let mut out = HashMap::new();
    for item in db
        .batch_get_many(keys, None, db::Consistency::Strong)
        .await?
    {
        let u: UserRecord = db::from_item(item)?;
        out.insert(u.lower_name(), u);
    }
    Ok(out)
}

/// Keeps only the team's repositories when a team narrows the search.
async fn narrowed(db: &Db, sources: Vec<Source>, narrow: &Narrowing<'_>) -> Result<Vec<Source>> {
    let sources = match narrow.team {
        Some(team) if !team.includes_all_repositories => {
            let items = db.query_prefix(&keys::team_pk(team.id), "REPO#").await?;
            let ids: HashSet<i64> = items.iter().map(|i| db::number(i, "repo_id")).collect();
            let ids: Vec<i64> = ids.into_iter().collect();
            let repos = repos::summaries_by_id(db, &ids).await?;
            let mut out = Vec::new();
            for s in sources {
                match &s.scope {
                    Scope::Repo(id) => {
                        if ids.contains(id) {
                            out.push(s);
                        }
                    }
                    Scope::Owner(_) | Scope::Private(_) => {
                        let private = matches!(s.scope, Scope::Private(_));
                        let only: HashMap<i64, Kinds> = repos
                            .iter()
                            .filter(|r| r.private == private)
                            .filter(|r| s.only.as_ref().is_none_or(|o| o.contains_key(&r.id)))
                            .map(|r| {
                                let k = s
                                    .only
                                    .as_ref()
                                    .and_then(|o| o.get(&r.id).copied())
                                    .unwrap_or(s.kinds);
                                (r.id, k)
                            })
                            .collect();
                        if !only.is_empty() {
                            out.push(Source {
                                only: Some(Arc::new(only)),
                                ..s
                            });
                        }
                    }
                    Scope::Global(_) => {}
                }
            }
            out
        }
        _ => sources,
    };
    if sources.len() > MAX_SOURCES {
        return Err(Error::TooBroad(format!(
            "this search would read {} separate sets of repositories (at most {MAX_SOURCES}): add owner= to narrow it",
            sources.len()
        )));
    }
    Ok(sources)
}
