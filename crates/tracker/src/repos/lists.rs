//! Repository listings across owners: the caller's (`GET /user/repos`)
//! and the search (`GET /repos/search`), by name as Gitea's `alpha`.
//!
//! A listing merges *sources*, each read in name order from the table,
//! strongly consistent:
//! - the installation's public repositories (`REPOLIST#public`, one small
//!   entry each: [`super::store::ListEntry`]), whose owners' visibility is
//!   checked page by page;
//! - one owner's repositories (its `REPO#` items), whole or narrowed
//!   ([`Keep`]): the caller's own, an organisation whose repositories a
//!   team of theirs includes;
//! - repositories given one by one (collaborations, teams' grants), read
//!   by id (at most [`MAX_GIVEN`]).
//!
//! Each source is read until it gave `offset + limit + 1` matches or
//! ended; the merge of those is the page. A request examines at most
//! [`MAX_EXAMINED`] entries and [`MAX_SOURCES`] sources (422 past them,
//! never a short page), and pages reach [`RESULT_WINDOW`] results.

use std::collections::{HashMap, HashSet};

use super::{
    Error, RepoRecord, RepoStats, Result,
    access::Permission,
    scope::Viewer,
    store::{self, ListEntry},
};
use crate::{
    accounts::{
        names::{Name, Visibility, fold},
        principal::Caller,
        teams::AccessMode,
        users::{self, OwnerKind, UserRecord},
    },
    db::{self, Db, Query, keys},
    page::Page,
};

/// Entries one request may examine (small listing entries cost about a
/// fiftieth of a read unit each; settings items more).
pub const MAX_EXAMINED: usize = 5_000;
/// Sources one request may merge.
pub const MAX_SOURCES: usize = 40;
/// Repositories given one by one that one request may read.
pub const MAX_GIVEN: usize = 500;
/// The deepest result a page may reach (`page` × `limit`).
pub const RESULT_WINDOW: usize = 1000;
/// Entries read per query page.
const QUERY_PAGE: i32 = 250;

/// Which of an owner's repositories a source keeps.
#[derive(Clone, Debug)]
pub enum Keep {
    All,
    Public,
    Private,
    /// Public ones and these.
    PublicOr(HashSet<i64>),
}

impl Keep {
    fn keeps(&self, repo: &RepoRecord) -> bool {
        match self {
            Keep::All => true,
            Keep::Public => !repo.private,
            Keep::Private => repo.private,
            Keep::PublicOr(ids) => !repo.private || ids.contains(&repo.id),
        }
    }
}

/// What every listed repository matches.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Lower-case parts of the name, any of them (Gitea splits `q` at
    /// commas); none: every name.
    pub words: Vec<String>,
    pub archived: Option<bool>,
    /// `is_private`: only private (`true`) or only public (`false`).
    pub private: Option<bool>,
    /// Private repositories are left out (`private=false`, anonymous
    /// callers, `public-only` tokens).
    pub public_only: bool,
    /// Nothing can match (forks, mirrors, templates, stars: none here).
    pub nothing: bool,
    /// Names ascending (`order=asc`, the default) or descending.
    pub ascending: bool,
}

impl Filter {
    fn name_matches(&self, name: &str) -> bool {
        let lower = fold(name);
        self.words.is_empty() || self.words.iter().any(|w| lower.contains(w.as_str()))
    }

    fn matches(&self, name: &str, private: bool, archived: bool) -> bool {
        !self.nothing
            && self.name_matches(name)
            && self.archived.is_none_or(|a| a == archived)
            && self.private.is_none_or(|p| p == private)
            && !(private && self.public_only)
    }

    fn wants_private(&self) -> bool {
        !self.nothing && !self.public_only && self.private != Some(false)
    }

    fn wants_public(&self) -> bool {
        !self.nothing && self.private != Some(true)
    }
}

/// Go's `strconv.ParseBool`, as Gitea's `FormBool` reads a flag (anything
/// else is false).
fn flag(raw: &str) -> bool {
    matches!(raw, "1" | "t" | "T" | "true" | "TRUE" | "True")
}

/// `/repos/search`'s parameters: the filter and `uid` (0 or unparsable:
/// none, as Gitea's `FormInt64`). Served: `q`, `uid`, `exclusive` (an
/// owner's own repositories are what `uid` lists anyway), `private`,
/// `is_private`, `archived`, `template` and `mode` (nothing is a template,
/// fork or mirror here), `starredBy` (nothing is starred), `sort=alpha`
/// with `order`. Ignored: `includeDesc` (names are matched),
/// `priority_owner_id` (an ordering hint). Refused (422): `topic=true`,
/// `team_id`, and the sorts this listing cannot serve by name.
pub fn search_params(
    pairs: &[(String, String)],
    signed_in: bool,
    public_only: bool,
) -> Result<(Filter, Option<i64>)> {
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    };
    let bad = |why: String| Err(Error::BadListParam(why));
    let mut f = Filter {
        words: get("q")
            .unwrap_or("")
            .split(',')
            .map(|w| fold(w.trim()))
            .filter(|w| !w.is_empty())
            .collect(),
        archived: get("archived").map(flag),
        private: get("is_private").map(flag),
        public_only: public_only || !signed_in || get("private").is_some_and(|p| !flag(p)),
        ascending: true,
        ..Filter::default()
    };
    if f.words.iter().any(|w| w.chars().count() > 255) {
        return bad("q holds at most 255 characters".into());
    }
    if get("topic").is_some_and(flag) {
        return bad("topic search is not served: topics are matched by `q` on names only".into());
    }
    if get("team_id").is_some_and(|t| t != "0") {
        return bad("team_id is not served: list a team's repositories with uid".into());
    }
    f.nothing = get("template").is_some_and(flag) || get("starredBy").is_some_and(|s| s != "0");
    match get("mode") {
        None | Some("source" | "collaborative") => {}
        Some("fork" | "mirror") => f.nothing = true,
        Some(other) => return bad(format!("Invalid search mode: \"{other}\"")),
    }
    let order = get("order").unwrap_or("asc");
    if !matches!(order, "asc" | "desc") {
        return bad(format!("Invalid sort order: \"{order}\""));
    }
    match get("sort") {
        None | Some("alpha") => f.ascending = order == "asc",
        Some(
            s @ ("created" | "updated" | "size" | "git_size" | "lfs_size" | "id" | "stars"
            | "forks"),
        ) => {
            return bad(format!(
                "sort mode \"{s}\" is not served: repositories are listed by name (alpha)"
            ));
        }
        Some(s) => return bad(format!("Invalid sort mode: \"{s}\"")),
    }
    let uid = get("uid")
        .and_then(|u| u.parse::<i64>().ok())
        .filter(|u| *u > 0);
    Ok((f, uid))
}

/// Where a listing's repositories come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The installation's public repositories.
    Public,
    /// One owner's.
    Owner { name: String, keep: Keep },
    /// Given one by one.
    Given(Vec<i64>),
}

/// A listed repository before its page is read in full.
#[derive(Clone, Debug)]
struct Found {
    order: (String, String),
    id: i64,
    owner: String,
    name: String,
    /// Settings, when the source read them.
    repo: Option<RepoRecord>,
}

impl Found {
    fn of(repo: RepoRecord) -> Self {
        Found {
            order: (fold(&repo.name), fold(&repo.owner)),
            id: repo.id,
            owner: repo.owner.clone(),
            name: repo.name.clone(),
            repo: Some(repo),
        }
    }
}

/// A page of a listing: each repository with the caller's permission,
/// its owner and counters, and how many there are.
pub struct Listed {
    pub shown: Vec<(RepoRecord, Permission, UserRecord, RepoStats)>,
    /// Exact when `exact`, else a lower bound past this page (so `Link`
    /// names a next page).
    pub total: u64,
    pub exact: bool,
}

/// Reads sources in name order, within the request's bounds.
struct Walk<'a> {
    db: &'a Db,
    caller: &'a Caller,
    viewer: &'a Viewer<'a>,
    filter: &'a Filter,
    need: usize,
    examined: usize,
    owners: HashMap<Name, Option<UserRecord>>,
}

impl Walk<'_> {
    fn count(&mut self, n: usize) -> Result<()> {
        self.examined += n;
        if self.examined > MAX_EXAMINED {
            return Err(Error::ListTooBroad(format!(
                "the listing would examine more than {MAX_EXAMINED} repositories; \
                 narrow it (`q`, `uid`) or ask for an earlier page"
            )));
        }
        Ok(())
    }

    /// Whether the caller may see `owner`'s public repositories (read once
    /// per owner and request).
    async fn owner_visible(&mut self, names: &[String]) -> Result<()> {
        let wanted: Vec<Name> = names
            .iter()
            .map(|n| Name::new(n.as_str()))
            .filter(|n| !self.owners.contains_key(n))
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        for chunk in wanted.chunks(100) {
            let keys = chunk.iter().map(|n| keys::owner(n.key())).collect();
            for item in self.db.batch_get(keys).await? {
                let u: UserRecord = db::from_item(item)?;
                self.owners.insert(Name::new(&*u.name), Some(u));
            }
            for n in chunk {
                self.owners.entry(n.clone()).or_insert(None);
            }
        }
        Ok(())
    }

    fn sees_owner(&self, owner: &str) -> bool {
        let Some(Some(u)) = self.owners.get(&Name::new(owner)) else {
            return false;
        };
        let me = self.caller.principal();
        match u.visibility {
            Visibility::Public => true,
            _ if self.caller.public_only() => false,
            Visibility::Limited => me.is_some(),
            Visibility::Private => {
                self.viewer.is_admin()
                    || me.is_some_and(|p| p.user.id == u.id)
                    || (u.kind == OwnerKind::Org
                        && self
                            .viewer
                            .memberships()
                            .iter()
                            .any(|m| m.org == u.lower_name()))
            }
        }
    }

    /// Up to `need` matches of one source, and whether it ended.
    async fn read(&mut self, source: &Source) -> Result<(Vec<Found>, bool)> {
        match source {
            Source::Public => self.read_public().await,
            Source::Owner { name, keep } => self.read_owner(name, keep).await,
            Source::Given(ids) => {
                self.count(ids.len())?;
                let mut found: Vec<Found> = store::get_many_by_id(self.db, ids)
                    .await?
                    .into_iter()
                    .filter(|r| self.filter.matches(&r.name, r.private, r.archived))
                    .map(Found::of)
                    .collect();
                sort(&mut found, self.filter.ascending);
                let ended = found.len() <= self.need;
                found.truncate(self.need);
                Ok((found, ended))
            }
        }
    }

    async fn read_public(&mut self) -> Result<(Vec<Found>, bool)> {
        let (mut found, mut start) = (Vec::new(), None);
        loop {
            let q = Query::table(keys::PUBLIC_REPOS_PK)
                .forward(self.filter.ascending)
                .limit(QUERY_PAGE)
                .after(start);
            let page = self.db.query_page(q).await?;
            self.count(page.items.len())?;
            let entries: Vec<ListEntry> = page
                .items
                .into_iter()
                .map(db::from_item)
                .collect::<Result<_, _>>()?;
            let entries: Vec<ListEntry> = entries
                .into_iter()
                .filter(|e| self.filter.matches(&e.name, false, e.archived))
                .collect();
            let owners: Vec<String> = entries.iter().map(|e| e.owner.clone()).collect();
            self.owner_visible(&owners).await?;
            for e in entries.into_iter().filter(|e| self.sees_owner(&e.owner)) {
                found.push(Found {
                    order: (fold(&e.name), fold(&e.owner)),
                    id: e.id,
                    owner: e.owner,
                    name: e.name,
                    repo: None,
                });
                if found.len() >= self.need {
                    return Ok((found, false));
                }
            }
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok((found, true)),
            }
        }
    }

    async fn read_owner(&mut self, owner: &str, keep: &Keep) -> Result<(Vec<Found>, bool)> {
        // An owner the caller may not see (or a `public-only` token a
        // non-public one) lends nothing, not even to the count.
        self.owner_visible(&[owner.to_string()]).await?;
        if !self.sees_owner(owner) {
            return Ok((Vec::new(), true));
        }
        let (mut found, mut start) = (Vec::new(), None);
        loop {
            let q = Query::table(keys::owner_pk(owner))
                .prefix(keys::REPO_NAME_PREFIX)
                .forward(self.filter.ascending)
                .limit(QUERY_PAGE)
                .after(start);
            let page = self.db.query_page(q).await?;
            self.count(page.items.len())?;
            for item in page.items {
                let repo: RepoRecord = db::from_item(item)?;
                if keep.keeps(&repo) && self.filter.matches(&repo.name, repo.private, repo.archived)
                {
                    found.push(Found::of(repo));
                    if found.len() >= self.need {
                        return Ok((found, false));
                    }
                }
            }
            match page.next {
                Some(k) => start = Some(k),
                None => return Ok((found, true)),
            }
        }
    }
}

fn sort(found: &mut [Found], ascending: bool) {
    found.sort_by(|a, b| (&a.order, a.id).cmp(&(&b.order, b.id)));
    if !ascending {
        found.reverse();
    }
}

/// The caller's repositories as Gitea's `GET /user/repos` lists them:
/// their own, those they collaborate on, those their teams were given or
/// include, and the public ones of organisations they belong to.
pub fn my_sources(viewer: &Viewer<'_>, me: &str) -> Vec<Source> {
    let mut sources = vec![Source::Owner {
        name: me.to_string(),
        keep: Keep::All,
    }];
    let mut orgs: HashMap<&str, Keep> = HashMap::new();
    for m in viewer.memberships() {
        let whole = m.includes_all_repositories || m.permission == AccessMode::Owner;
        let given = viewer.team_repos(m.team_id).cloned().unwrap_or_default();
        let keep = orgs
            .entry(m.org.as_str())
            .or_insert(Keep::PublicOr(HashSet::new()));
        *keep = match (std::mem::replace(keep, Keep::All), whole) {
            (Keep::PublicOr(mut ids), false) => {
                ids.extend(given);
                Keep::PublicOr(ids)
            }
            _ => Keep::All,
        };
    }
    let collaborations: Vec<i64> = viewer.collaborations().keys().copied().collect();
    sources.extend(orgs.into_iter().map(|(org, keep)| Source::Owner {
        name: org.to_string(),
        keep,
    }));
    if !collaborations.is_empty() {
        sources.push(Source::Given(collaborations));
    }
    sources
}

/// What `/repos/search` reads without `uid`: the public listing, and for
/// a signed-in caller the private repositories they were given (their
/// own, organisations whose repositories a team of theirs includes, and
/// the ones given one by one). Site admins see others' private
/// repositories through `uid`.
pub fn search_sources(viewer: &Viewer<'_>, filter: &Filter) -> Vec<Source> {
    let mut sources = Vec::new();
    if filter.wants_public() {
        sources.push(Source::Public);
    }
    let Some(me) = viewer.caller().principal() else {
        return sources;
    };
    if !filter.wants_private() {
        return sources;
    }
    sources.push(Source::Owner {
        name: me.user.name.clone(),
        keep: Keep::Private,
    });
    let mut whole: HashSet<&str> = HashSet::new();
    let mut given: HashSet<i64> = viewer.collaborations().keys().copied().collect();
    for m in viewer.memberships() {
        if m.includes_all_repositories || m.permission == AccessMode::Owner {
            whole.insert(m.org.as_str());
        } else if let Some(ids) = viewer.team_repos(m.team_id) {
            given.extend(ids);
        }
    }
    sources.extend(whole.into_iter().map(|org| Source::Owner {
        name: org.to_string(),
        keep: Keep::Private,
    }));
    if !given.is_empty() {
        sources.push(Source::Given(given.into_iter().collect()));
    }
    sources
}

/// What `/repos/search?uid=` reads: that owner's repositories, all of
/// them when the caller may read every one, else the public ones and
/// those given to the caller. `None` when the owner is unknown (or made
/// before ids were filed) or hidden from the caller.
pub async fn owner_source(db: &Db, viewer: &Viewer<'_>, uid: i64) -> Result<Option<Source>> {
    let Some(name) = users::name_by_id(db, uid).await? else {
        return Ok(None);
    };
    let Some(owner) = users::get(db, &name).await? else {
        return Ok(None);
    };
    if !crate::accounts::lookup::visible_to(db, &owner, viewer.caller()).await? {
        return Ok(None);
    }
    let me = viewer.caller().principal();
    let lower = owner.lower_name();
    let mine = me.is_some_and(|p| p.user.id == owner.id);
    let member_whole = viewer.memberships().iter().any(|m| {
        m.org == lower && (m.includes_all_repositories || m.permission == AccessMode::Owner)
    });
    let keep = if viewer.is_admin() || mine || member_whole {
        Keep::All
    } else {
        let mut ids: HashSet<i64> = viewer.collaborations().keys().copied().collect();
        for m in viewer.memberships().iter().filter(|m| m.org == lower) {
            ids.extend(viewer.team_repos(m.team_id).into_iter().flatten());
        }
        Keep::PublicOr(ids)
    };
    Ok(Some(Source::Owner {
        name: owner.name,
        keep,
    }))
}

/// One page of the merge of `sources`.
pub async fn list(
    db: &Db,
    viewer: &Viewer<'_>,
    sources: Vec<Source>,
    filter: &Filter,
    page: Page,
) -> Result<Listed> {
    let caller = viewer.caller();
    if page.offset() + page.size as usize > RESULT_WINDOW {
        return Err(Error::ListTooBroad(format!(
            "a listing answers its first {RESULT_WINDOW} repositories (page × limit)"
        )));
    }
    if sources.len() > MAX_SOURCES {
        return Err(Error::ListTooBroad(format!(
            "the listing would merge more than {MAX_SOURCES} owners; narrow it with `uid`"
        )));
    }
    if let Some(Source::Given(ids)) = sources.iter().find(|s| matches!(s, Source::Given(_)))
        && ids.len() > MAX_GIVEN
    {
        return Err(Error::ListTooBroad(format!(
            "the caller was given more than {MAX_GIVEN} repositories one by one; narrow it with `uid`"
        )));
    }
    let mut walk = Walk {
        db,
        caller,
        viewer,
        filter,
        need: page.offset() + page.size as usize + 1,
        examined: 0,
        owners: HashMap::new(),
    };
    let mut all = Vec::new();
    let mut exact = true;
    for source in &sources {
        let (found, ended) = walk.read(source).await?;
        exact &= ended;
        all.extend(found);
    }
    sort(&mut all, filter.ascending);
    let mut seen = HashSet::new();
    all.retain(|f| seen.insert(f.id));
    let total = all.len() as u64;
    let shown: Vec<Found> = page.slice(&all).to_vec();
    Ok(Listed {
        shown: complete(db, viewer, shown).await?,
        total,
        exact,
    })
}

/// The page's settings (for entries of the public listing), the caller's
/// permissions, owners and counters, in batched reads.
async fn complete(
    db: &Db,
    viewer: &Viewer<'_>,
    shown: Vec<Found>,
) -> Result<Vec<(RepoRecord, Permission, UserRecord, RepoStats)>> {
    let order: Vec<i64> = shown.iter().map(|f| f.id).collect();
    let missing: Vec<db::Item> = shown
        .iter()
        .filter(|f| f.repo.is_none())
        .map(|f| keys::repo_name(&f.owner, &f.name))
        .collect();
    let mut repos: Vec<RepoRecord> = shown.into_iter().filter_map(|f| f.repo).collect();
    for chunk in missing.chunks(100) {
        for item in db.batch_get(chunk.to_vec()).await? {
            let r: RepoRecord = db::from_item(item)?;
            if order.contains(&r.id) {
                repos.push(r);
            }
        }
    }
    let permitted = viewer.permissions(db, repos).await?;
    let ids: Vec<i64> = permitted.iter().map(|(r, _)| r.id).collect();
    let owner_keys: Vec<db::Item> = permitted
        .iter()
        .map(|(r, _)| Name::new(&*r.owner))
        .collect::<HashSet<_>>()
        .iter()
        .map(|n| keys::owner(n.key()))
        .collect();
    let mut owners: HashMap<Name, UserRecord> = HashMap::new();
    for item in db.batch_get(owner_keys).await? {
        let u: UserRecord = db::from_item(item)?;
        owners.insert(Name::new(&*u.name), u);
    }
    let mut stats = store::stats_many(db, &ids).await?;
    let mut out: Vec<_> = permitted
        .into_iter()
        .filter_map(|(r, p)| {
            let owner = owners.get(&Name::new(&*r.owner))?.clone();
            let s = stats.remove(&r.id).unwrap_or_default();
            Some((r, p, owner, s))
        })
        .collect();
    out.sort_by_key(|(r, ..)| order.iter().position(|id| *id == r.id));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_match_names_by_part_and_flags() {
        let f = Filter {
            words: vec!["web".into(), "api".into()],
            ascending: true,
            ..Filter::default()
        };
        assert!(f.matches("My-Web", false, false));
        assert!(
            f.matches("rapid", true, true),
            "any of the words, in any case"
        );
        assert!(!f.matches("site", false, false));
        let only = Filter {
            archived: Some(false),
            private: Some(true),
            ..Filter::default()
        };
        assert!(only.matches("x", true, false));
        assert!(!only.matches("x", false, false) && !only.matches("x", true, true));
        let public = Filter {
            public_only: true,
            ..Filter::default()
        };
        assert!(!public.matches("x", true, false) && !public.wants_private());
        let none = Filter {
            nothing: true,
            ..Filter::default()
        };
        assert!(!none.matches("x", false, false) && !none.wants_public());
    }

    fn params(q: &str) -> Result<(Filter, Option<i64>)> {
        let pairs: Vec<(String, String)> = url_pairs(q);
        search_params(&pairs, true, false)
    }

    fn url_pairs(q: &str) -> Vec<(String, String)> {
        q.split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect()
    }

    #[test]
    fn search_parameters_follow_gitea() {
        let (f, uid) = params("q=Web,%20,api&uid=7&archived=false&is_private=1").unwrap();
        assert_eq!(f.words, ["web", "%20", "api"]);
        assert_eq!(
            (uid, f.archived, f.private),
            (Some(7), Some(false), Some(true))
        );
        assert!(f.ascending && !f.public_only && !f.nothing);
        let (f, uid) = params("uid=x&private=false&order=desc&sort=alpha").unwrap();
        assert!(uid.is_none() && f.public_only && !f.ascending);
        assert!(params("mode=fork").unwrap().0.nothing);
        assert!(params("template=true").unwrap().0.nothing);
        assert!(!params("template=false&mode=source").unwrap().0.nothing);
        for bad in [
            "mode=x",
            "order=up",
            "sort=nosuch",
            "sort=created",
            "topic=true",
            "team_id=3",
        ] {
            assert!(params(bad).is_err(), "{bad}");
        }
        let anon = search_params(&url_pairs("private=true"), false, false)
            .unwrap()
            .0;
        assert!(
            anon.public_only,
            "anonymous callers see public repositories only"
        );
    }

    #[test]
    fn keeps_narrow_an_owner_s_repositories() {
        let mut r = super::super::model::new_record(
            5,
            "o",
            super::super::NewRepo::parse("r", None, Some(true), None).unwrap(),
            0,
        );
        assert!(Keep::All.keeps(&r) && Keep::Private.keeps(&r) && !Keep::Public.keeps(&r));
        assert!(Keep::PublicOr(HashSet::from([5])).keeps(&r));
        assert!(!Keep::PublicOr(HashSet::from([6])).keeps(&r));
        r.private = false;
        assert!(Keep::PublicOr(HashSet::new()).keeps(&r));
    }
}
