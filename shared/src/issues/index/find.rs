//! Finding a page of issues through the index, for searches and
//! repository listings alike.
//!
//! 1. The caller's sources ([`Source`]) are counted first (one read of
//!    their counters): empty ones are left out, and the counts give the
//!    total of an unfiltered listing.
//! 2. Each filter names listings that hold a superset of the matches (a
//!    word's, a union of labels', the caller's relation's); the plain kind
//!    and state listings hold everything. When there are several, each is
//!    read once for a page's worth (all at once) and the sparsest is
//!    walked: one read to its end, or else the one whose page reaches
//!    furthest back in time.
//! 3. The walk hands out entries in order; each is checked against the
//!    caller's rights and, unless the listing alone proves it, against the
//!    issue's document for every other filter, until the page is full.
//! 4. Past the page, the walk goes on a little to count: the total is
//!    exact when it reaches the end, and otherwise the count of everything
//!    the caller may see in the asked kinds and states, an upper bound.
//!
//! Every read is bounded ([`LIMITS`]); a page that cannot be completed
//! within them is refused with 422, never answered short.

use std::collections::{HashMap, HashSet};

use futures::future::try_join_all;

use super::{
    counts::{self, Counts},
    cursor,
    doc::Doc,
    lists::{self, Scope},
    query::{Checks, Filter, Kinds, Order, Source},
    walk::{Entry, Place, Walk},
};
use crate::{
    db::{self, Consistency, Db, keys},
    issues::{Error, IssueRecord, Result},
    page::Page,
    repos::{
        self, RepoRecord, RepoStats,
        access::{Permission, Unit},
        scope::Viewer,
    },
};

/// What one request may spend finding a page.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Listing entries read (small items, about 80 bytes each).
    pub entries: usize,
    /// Documents read to check candidates (a few KB each).
    pub documents: usize,
    /// Repositories resolved for entries of the caller's own listings.
    pub repositories: usize,
}

/// The bounds of one request's walk to complete a page.
pub const LIMITS: Limits = Limits {
    entries: 20_000,
    documents: 400,
    repositories: 200,
};

/// What the walk may spend past the page to make the total exact.
const COUNTING: Limits = Limits {
    entries: 2_000,
    documents: 100,
    repositories: 50,
};

/// A cursor is kept for the next page from the second page on (the caller
/// is paging through: page 2 reads page 1 again, pages 3 and on cost one
/// page and a write), and after a first page whose walk read this many
/// entries or checked this many documents. A first page that read less
/// leaves none: most callers ask for it alone, and the write would cost
/// more than what it saves.
const CURSOR_AFTER: (usize, usize) = (2_000, 100);

/// An update-ordered listing read to its end serves `since`/`before`
/// when it holds at most this many issues.
const COMPLETE_SET: usize = 200;

/// A search of the caller's own relations (their `U` listings), whose
/// entries are checked against their permissions.
pub struct Mine {
    pub login: String,
    /// Only these repositories (a team's), when narrowed to them.
    pub only: Option<HashSet<i64>>,
}

/// What is asked.
pub struct Ask<'a> {
    pub sources: Vec<Source>,
    /// Whose rights every shown issue is checked against (searches; a
    /// repository's listing checked the caller's rights on it already).
    pub viewer: Option<&'a Viewer<'a>>,
    pub mine: Option<Mine>,
    pub checks: Checks,
    pub order: Order,
    pub page: Page,
    /// A repository's own listing (its listings name labels by id, and
    /// hold its relations).
    pub in_repo: bool,
    /// The listing's identity for cursors (`None`: no cursors).
    pub cursor: Option<String>,
}

/// A page, its total, and the repositories of its issues.
pub struct Found {
    pub shown: Vec<IssueRecord>,
    pub total: u64,
    pub repos: HashMap<i64, RepoRecord>,
}

/// Where a listing's entries come from.
#[derive(Clone, Copy, Debug)]
enum Origin {
    /// A source, and the kind when the listing is of one kind.
    Source(usize, Option<bool>),
    /// The caller's relation listing of one kind.
    Mine(bool),
}

/// A way through the index: its listings and what they prove.
struct Route {
    pks: Vec<String>,
    origins: Vec<Origin>,
    /// Entries need their document checked.
    needs_doc: bool,
    /// Update-ordered listings read to their end (`since`/`before`), whose
    /// matches are then ordered by creation.
    complete: bool,
    /// A filter by names this route serves, dropped when no issue the
    /// caller may see carries any of them.
    discard: Option<Filter>,
}

pub async fn find(db: &Db, ask: Ask<'_>) -> Result<Found> {
    // Orders sorted in memory have no place to resume from.
    let cursors = ask.cursor.as_ref().filter(|_| !ask.order.by_document());
    let after = match (cursors, ask.page.page) {
        (Some(key), page) if page > 1 => cursor::load(db, key, page as u64).await?,
        _ => None,
    };
    let need = match after {
        Some(_) => ask.page.size as usize,
        None => ask.page.offset() + ask.page.size as usize,
    };
    let counted = source_counts(db, &ask.sources).await?;
    let mut checks = ask.checks.clone();
    let live: Vec<bool> = ask
        .sources
        .iter()
        .zip(&counted)
        .map(|(s, c)| has_any(s, c, &checks))
        .collect();
    let universe = total_of(&ask.sources, &counted, &checks);
    if checks.is_plain()
        && ask.mine.is_none()
        && !ask.order.by_document()
        && ask.page.offset() as u64 >= universe
    {
        // Past the end: nothing to read.
        return Ok(Found {
            shown: Vec::new(),
            total: universe,
            repos: HashMap::new(),
        });
    }

    let (route, mut walk) = loop {
        let plan = Plan {
            ask: &ask,
            checks: &checks,
            live: &live,
            fresh: after.is_none(),
            small: universe <= COMPLETE_SET as u64,
        };
        let mut routes = plan.candidates();
        let mut walks: Vec<Walk> = routes.iter().map(|r| plan.walk(r, after)).collect();
        if walks.len() == 1 && routes[0].discard.is_none() {
            break (routes.swap_remove(0), walks.swap_remove(0));
        }
        let probe = need.clamp(20, 1000);
        let reads = walks
            .iter_mut()
            .zip(&routes)
            .map(|(w, r)| w.fill(db, if r.complete { COMPLETE_SET + 1 } else { probe }));
        try_join_all(reads).await?;
        // Names no issue the caller may see carries are discarded (Gitea
        // discards names it does not know); then plan again without them.
        let unknown = routes
            .iter()
            .zip(&walks)
            .find(|(r, w)| r.discard.is_some() && w.all_read() && w.read == 0)
            .and_then(|(r, _)| r.discard);
        if let Some(filter) = unknown {
            checks.discard(filter);
            continue;
        }
        let chosen = choose(&routes, &walks, ask.order.forward());
        break (routes.swap_remove(chosen), walks.swap_remove(chosen));
    };
    let plain = checks.is_plain() && ask.mine.is_none() && !ask.order.by_document();

    let mut run = Run {
        db,
        ask: &ask,
        checks: &checks,
        route: &route,
        docs: 0,
        repos: HashMap::new(),
        accepted: Vec::new(),
        sort_keys: HashMap::new(),
    };
    if route.complete {
        run.complete_set(&mut walk).await?;
    } else if ask.order.by_document() {
        // Every match, sorted by its document.
        run.go(&mut walk, usize::MAX, LIMITS).await?;
        if !walk.exhausted() {
            return Err(Error::TooBroad(format!(
                "this order sorts every match, and this listing has more than one \
                 request may read (at most {} issues): filter by state or labels, or \
                 sort by creation or update",
                LIMITS.documents
            )));
        }
        let keys = std::mem::take(&mut run.sort_keys);
        run.accepted
            .sort_by_key(|p| keys.get(p).copied().unwrap_or_default());
    } else {
        run.go(&mut walk, need, LIMITS).await?;
        if run.accepted.len() < need && !walk.exhausted() {
            return Err(too_broad(&walk, &run));
        }
    }
    let exact = if plain {
        Some(universe)
    } else {
        // Counting on pays when the listings are read to their end (few
        // entries wait) or prove the matches alone (no documents to read):
        // else the total is an upper bound at once.
        if (walk.all_read() || !route.needs_doc) && !walk.exhausted() && !route.complete {
            let counting = Limits {
                entries: walk.read + COUNTING.entries,
                documents: run.docs + COUNTING.documents,
                repositories: run.repos.len() + COUNTING.repositories,
            };
            run.go(&mut walk, usize::MAX, counting).await?;
        }
        walk.exhausted().then_some(run.accepted.len() as u64)
    };
    let before = match after {
        Some(_) => ask.page.offset() as u64,
        None => 0,
    };
    let total = match exact {
        Some(n) if plain => n,
        Some(n) => before + n,
        None => universe.max(before + run.accepted.len() as u64),
    };

    let skip = if after.is_some() {
        0
    } else {
        ask.page.offset()
    };
    let page: Vec<Place> = run
        .accepted
        .iter()
        .skip(skip)
        .take(ask.page.size as usize)
        .copied()
        .collect();
    // More follows: matches past the page, or listings not read to the end.
    let more = run.accepted.len() > skip + page.len() || !walk.exhausted();
    if let (Some(key), Some(last)) = (cursors, page.last())
        && page.len() == ask.page.size as usize
        && (ask.page.page > 1 || walk.read >= CURSOR_AFTER.0 || run.docs >= CURSOR_AFTER.1)
        && more
        && !route.complete
    {
        cursor::save(db, key, ask.page.page as u64 + 1, *last).await?;
    }
    let shown = fetch(db, &page, &checks).await?;
    let repos = repos_of(db, &shown, run.repos).await?;
    Ok(Found {
        shown,
        total,
        repos,
    })
}

/// The counts of each source (repositories: their counters item;
/// restricted sources: their repositories').
async fn source_counts(db: &Db, sources: &[Source]) -> Result<Vec<Counts>> {
    let scopes: Vec<Scope> = sources
        .iter()
        .filter(|s| s.only.is_none() && !matches!(s.scope, Scope::Repo(_)))
        .map(|s| s.scope.clone())
        .collect();
    let mut repo_ids: Vec<i64> = Vec::new();
    for s in sources {
        match (&s.scope, &s.only) {
            (Scope::Repo(id), _) => repo_ids.push(*id),
            (_, Some(only)) => repo_ids.extend(only.keys()),
            _ => {}
        }
    }
    let (by_scope, stats) = tokio::try_join!(
        async { Ok::<_, Error>(counts::read(db, &scopes).await?) },
        async { Ok::<_, Error>(repos::stats_many(db, &repo_ids).await?) },
    )?;
    let of_stats = |s: &RepoStats, k: Kinds| Counts {
        open_issues: if k.issues {
            s.num_issues - s.num_closed_issues
        } else {
            0
        },
        closed_issues: if k.issues { s.num_closed_issues } else { 0 },
        open_pulls: if k.pulls {
            s.num_pulls - s.num_closed_pulls
        } else {
            0
        },
        closed_pulls: if k.pulls { s.num_closed_pulls } else { 0 },
    };
    Ok(sources
        .iter()
        .map(|s| match (&s.scope, &s.only) {
            (Scope::Repo(id), _) => of_stats(&stats.get(id).cloned().unwrap_or_default(), s.kinds),
            (_, Some(only)) => only.iter().fold(Counts::default(), |acc, (id, k)| {
                let c = of_stats(&stats.get(id).cloned().unwrap_or_default(), *k);
                Counts {
                    open_issues: acc.open_issues + c.open_issues,
                    closed_issues: acc.closed_issues + c.closed_issues,
                    open_pulls: acc.open_pulls + c.open_pulls,
                    closed_pulls: acc.closed_pulls + c.closed_pulls,
                }
            }),
            _ => by_scope.get(&s.scope).copied().unwrap_or_default(),
        })
        .collect())
}

/// Whether a source may hold a match: any issue in a kind it may read
/// and the checks ask for, in an asked state.
fn has_any(s: &Source, c: &Counts, checks: &Checks) -> bool {
    checks
        .kinds
        .iter()
        .filter(|k| s.kinds.has(**k))
        .any(|&k| checks.states.iter().any(|&st| c.get(k, st) > 0))
}

/// Everything the sources hold in the asked kinds and states.
fn total_of(sources: &[Source], counted: &[Counts], checks: &Checks) -> u64 {
    let mut sum = 0i64;
    for (s, c) in sources.iter().zip(counted) {
        for &k in checks.kinds.iter().filter(|k| s.kinds.has(**k)) {
            for &st in &checks.states {
                sum += c.get(k, st).max(0);
            }
        }
    }
    sum.max(0) as u64
}

/// What the routes are planned from.
struct Plan<'a> {
    ask: &'a Ask<'a>,
    checks: &'a Checks,
    /// Which sources may hold a match (their counters say).
    live: &'a [bool],
    /// No cursor: update-ordered complete sets may serve.
    fresh: bool,
    /// The plain listings hold few issues: worth reading to their end.
    small: bool,
}

impl Plan<'_> {
    /// The live sources, with their positions.
    fn sources(&self) -> impl Iterator<Item = (usize, &Source)> {
        self.ask
            .sources
            .iter()
            .enumerate()
            .filter(|(i, _)| self.live[*i])
    }

    /// The routes worth walking for what is asked.
    fn candidates(&self) -> Vec<Route> {
        let (ask, c) = (self.ask, self.checks);
        if ask.order.by_update() || ask.order.by_document() {
            return vec![self.plain()];
        }
        let mut out = Vec::new();
        for (filter, terms) in c.term_drivers(ask.in_repo) {
            let mut r = Route::new(true);
            r.discard = c.discardable(filter).then_some(filter);
            for (i, s) in self.sources() {
                for term in &terms {
                    r.pks.push(lists::list_pk(&s.scope, term, None));
                    r.origins.push(Origin::Source(i, None));
                }
            }
            out.push(r);
        }
        if let Some(mine) = &ask.mine {
            // The caller's own listings prove the relation, kind and state.
            let rest = Checks {
                relations: Vec::new(),
                owner: None,
                ..c.clone()
            };
            for (rel, _) in c.relations.iter().filter(|(_, w)| *w == mine.login) {
                let mut r = Route::new(c.relations.len() > 1 || !rest.is_plain());
                for &k in &c.kinds {
                    for &st in &c.states {
                        r.pks.push(lists::user_pk(&mine.login, *rel, k, st));
                        r.origins.push(Origin::Mine(k));
                    }
                }
                out.push(r);
            }
        }
        // The plain listings drive when nothing else does, and compete
        // when small enough to read to their end.
        if out.is_empty() || self.small {
            out.push(self.plain());
        }
        if self.fresh && ask.mine.is_none() && (c.since.is_some() || c.before.is_some()) {
            // Issues updated within the window, if few: read in full by
            // update, then sorted by creation.
            let mut r = Route::new(true);
            r.complete = true;
            for (i, s) in self.sources() {
                for &k in c.kinds.iter().filter(|k| s.kinds.has(**k)) {
                    for shard in shards(&s.scope) {
                        r.pks
                            .push(lists::list_pk(&s.scope, &lists::updated_term(k), shard));
                        r.origins.push(Origin::Source(i, Some(k)));
                    }
                }
            }
            if !r.pks.is_empty() {
                out.push(r);
            }
        }
        out
    }

    /// The plain listings: by kind and state (or by update, for those
    /// orders), in every live source.
    fn plain(&self) -> Route {
        let (ask, c) = (self.ask, self.checks);
        let by_update = ask.order.by_update();
        let mut r = Route::new(!c.is_plain() || by_update || ask.order.by_document());
        for (i, s) in self.sources() {
            for &k in c.kinds.iter().filter(|k| s.kinds.has(**k)) {
                let states: &[bool] = if by_update { &[false] } else { &c.states };
                for &st in states {
                    let term = if by_update {
                        lists::updated_term(k)
                    } else {
                        lists::base_term(k, st)
                    };
                    for shard in shards(&s.scope) {
                        r.pks.push(lists::list_pk(&s.scope, &term, shard));
                        r.origins.push(Origin::Source(i, Some(k)));
                    }
                }
            }
        }
        r
    }

    /// A walk over a route's listings.
    fn walk(&self, r: &Route, after: Option<Place>) -> Walk {
        let w = Walk::new(r.pks.clone(), self.ask.order.forward(), after);
        let c = self.checks;
        if r.complete {
            w.within(c.since.unwrap_or(0), c.before.unwrap_or(i64::MAX / 2))
        } else if let Some(before) = c.before.filter(|_| !self.ask.order.by_update()) {
            // An issue updated before a time was created before it too:
            // listings by creation start there.
            w.within(0, before)
        } else {
            w
        }
    }
}

impl Route {
    fn new(needs_doc: bool) -> Self {
        Self {
            pks: Vec::new(),
            origins: Vec::new(),
            needs_doc,
            complete: false,
            discard: None,
        }
    }
}

fn shards(scope: &Scope) -> Vec<Option<i64>> {
    if scope.sharded() {
        (0..lists::SHARDS).map(Some).collect()
    } else {
        vec![None]
    }
}

/// The sparsest route after every route read a page's worth: one read to
/// its end with the fewest entries, else the one reaching furthest back.
/// An update-ordered route qualifies only when read to its end and small.
fn choose(routes: &[Route], walks: &[Walk], forward: bool) -> usize {
    let mut best: Option<(usize, (u8, i64))> = None;
    for (i, (r, w)) in routes.iter().zip(walks).enumerate() {
        let score = if w.all_read() {
            (0, w.read as i64)
        } else if r.complete {
            continue;
        } else {
            let reach = w.frontier().map_or(0, |p| p.0);
            (1, if forward { -reach } else { reach })
        };
        if r.complete && w.read > COMPLETE_SET {
            continue;
        }
        if best.is_none_or(|(_, s)| score < s) {
            best = Some((i, score));
        }
    }
    best.map_or(0, |(i, _)| i)
}

fn too_broad(walk: &Walk, run: &Run) -> Error {
    Error::TooBroad(format!(
        "this query would read more than the index allows for one request \
         (read {} entries and checked {} issues; at most {} and {}): narrow it \
         (owner, state, type, labels, more words), or page through it in order",
        walk.read, run.docs, LIMITS.entries, LIMITS.documents
    ))
}

/// One walk's state.
struct Run<'a> {
    db: &'a Db,
    ask: &'a Ask<'a>,
    /// What is checked: the asked filters, but those discarded.
    checks: &'a Checks,
    route: &'a Route,
    docs: usize,
    /// Repositories resolved for the caller's own listings.
    repos: HashMap<i64, Option<(RepoRecord, Permission)>>,
    accepted: Vec<Place>,
    /// Where each match sorts, for orders no listing keeps.
    sort_keys: HashMap<Place, (i64, i64, i64, i64)>,
}

impl Run<'_> {
    /// Walks until `need` matches, the end, or `limits`.
    async fn go(&mut self, walk: &mut Walk, need: usize, limits: Limits) -> Result<()> {
        let mut chunk = need.clamp(20, 1000);
        while self.accepted.len() < need {
            if self.docs >= limits.documents || self.repos.len() >= limits.repositories {
                return Ok(());
            }
            let room = need - self.accepted.len();
            // Documents cost a read each: check about what the page still
            // needs (a sparse route was chosen, so most match).
            let most = if self.route.needs_doc {
                room.saturating_mul(2).saturating_add(5).min(100)
            } else {
                room.min(1000)
            };
            let batch = walk.settled_up_to(most);
            if batch.is_empty() {
                if walk.exhausted() || walk.read >= limits.entries {
                    return Ok(());
                }
                walk.fill(self.db, chunk).await?;
                chunk = (chunk * 2).min(1000);
                continue;
            }
            let ok = self.check(&batch).await?;
            self.accepted.extend(ok);
        }
        Ok(())
    }

    /// The entries of `batch` that match and that the caller may see:
    /// checked against their documents (unless the listing proves the
    /// match), then against the caller's rights on their repositories, read
    /// now, so a repository made private a moment ago (whose entries the
    /// consumer has yet to move) shows nothing.
    async fn check(&mut self, batch: &[Entry]) -> Result<Vec<Place>> {
        // (entry, kind when known, place to keep)
        let mut kept: Vec<(Entry, Option<bool>, Place)> = batch
            .iter()
            .filter_map(|e| match self.route.origins[e.list] {
                Origin::Source(i, kind) => self.ask.sources[i]
                    .admits(e.repo_id(), kind)
                    .then_some((*e, kind, e.place)),
                Origin::Mine(kind) => Some((*e, Some(kind), e.place)),
            })
            .collect();
        if self.route.needs_doc {
            kept = self.documents(kept).await?;
        }
        if self.ask.viewer.is_none() {
            return Ok(kept.into_iter().map(|(_, _, p)| p).collect());
        }
        let unresolved: Vec<i64> = kept
            .iter()
            .map(|(e, _, _)| e.repo_id())
            .filter(|id| !self.repos.contains_key(id))
            .collect();
        if !unresolved.is_empty() {
            self.resolve(unresolved).await?;
        }
        let owner = self.checks.owner.as_deref();
        let only = self.ask.mine.as_ref().and_then(|m| m.only.as_ref());
        Ok(kept
            .into_iter()
            .filter(|(e, kind, _)| {
                let Some((r, p)) = self.repos.get(&e.repo_id()).and_then(Option::as_ref) else {
                    return false;
                };
                let readable = match kind {
                    Some(k) => p.can_read(Unit::for_pull(*k)),
                    None => p.can_read(Unit::Issues) || p.can_read(Unit::Pulls),
                };
                // The caller's own listings span every repository.
                let narrowed = match self.route.origins[e.list] {
                    Origin::Mine(_) => {
                        owner.is_none_or(|o| crate::name::fold(&r.owner) == o)
                            && only.is_none_or(|ids| ids.contains(&r.id))
                    }
                    Origin::Source(..) => true,
                };
                readable && narrowed
            })
            .map(|(_, _, p)| p)
            .collect())
    }

    /// The entries whose documents match, each with its kind (and, for
    /// update-ordered listings, its place by creation).
    async fn documents(
        &mut self,
        kept: Vec<(Entry, Option<bool>, Place)>,
    ) -> Result<Vec<(Entry, Option<bool>, Place)>> {
        let keys = kept
            .iter()
            .map(|(e, _, _)| keys::index_doc(e.repo_id(), e.index()))
            .collect();
        self.docs += kept.len();
        let docs: HashMap<(i64, i64), Doc> = self
            .db
            .batch_get_many(keys, None, Consistency::Eventual)
            .await?
            .into_iter()
            .map(Doc::from_item)
            .map(|d| d.map(|d| ((d.repo_id, d.index), d)))
            .collect::<std::result::Result<_, _>>()?;
        let mut out = Vec::new();
        for (e, _, place) in kept {
            let Some(d) = docs.get(&(e.repo_id(), e.index())) else {
                continue;
            };
            let admitted = match self.route.origins[e.list] {
                Origin::Source(i, _) => self.ask.sources[i].admits(d.repo_id, Some(d.is_pull)),
                Origin::Mine(_) => true,
            };
            if !(admitted && self.checks.matches(d)) {
                continue;
            }
            // Update-ordered entries are placed by creation from here on.
            let place = if self.route.complete {
                (d.created, d.repo_id, d.index)
            } else {
                place
            };
            if self.ask.order.by_document() {
                self.sort_keys.insert(place, self.ask.order.document_key(d));
            }
            out.push((e, Some(d.is_pull), place));
        }
        Ok(out)
    }

    /// Reads the repositories of entries about to be accepted, with the
    /// caller's permissions there.
    async fn resolve(&mut self, ids: Vec<i64>) -> Result<()> {
        let Some(viewer) = self.ask.viewer else {
            return Ok(());
        };
        let ids: Vec<i64> = ids
            .into_iter()
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let found = repos::summaries_by_id(self.db, &ids).await?;
        let visible = viewer.permissions(self.db, found).await?;
        for id in ids {
            self.repos.insert(id, None);
        }
        for (r, p) in visible {
            self.repos.insert(r.id, Some((r, p)));
        }
        Ok(())
    }

    /// An update-ordered route read to its end: its matches, newest (or
    /// oldest) first by creation.
    async fn complete_set(&mut self, walk: &mut Walk) -> Result<()> {
        while !walk.all_read() {
            walk.fill(self.db, 1000).await?;
        }
        let all = walk.settled();
        let mut out = Vec::new();
        for batch in all.chunks(100) {
            out.extend(self.check(batch).await?);
        }
        // The documents gave creation places: order by them.
        out.sort();
        if !self.ask.order.forward() {
            out.reverse();
        }
        self.accepted = out;
        Ok(())
    }
}

/// The page's issues, read by key (eventually consistent, as the index
/// that placed them), in the page's order; one that no longer matches its
/// kind, state or time window (the index trails writes by a moment) is
/// left out.
async fn fetch(db: &Db, page: &[Place], checks: &Checks) -> Result<Vec<IssueRecord>> {
    let keys = page.iter().map(|p| keys::issue(p.1, p.2)).collect();
    let mut found: HashMap<(i64, i64), IssueRecord> = HashMap::new();
    for item in db.batch_get_many(keys, None, Consistency::Eventual).await? {
        let i: IssueRecord = db::from_item(item)?;
        found.insert((i.repo_id, i.index), i);
    }
    Ok(page
        .iter()
        .filter_map(|p| found.remove(&(p.1, p.2)))
        .filter(|i| {
            checks.matches_kind_state(i.is_pull, i.closed)
                && checks.since.is_none_or(|s| i.updated >= s)
                && checks.before.is_none_or(|b| i.updated <= b)
        })
        .collect())
}

/// The repositories of the shown issues: those already resolved, the rest
/// read by id.
async fn repos_of(
    db: &Db,
    shown: &[IssueRecord],
    resolved: HashMap<i64, Option<(RepoRecord, Permission)>>,
) -> Result<HashMap<i64, RepoRecord>> {
    let mut out: HashMap<i64, RepoRecord> = resolved
        .into_values()
        .flatten()
        .map(|(r, _)| (r.id, r))
        .collect();
    let missing: Vec<i64> = shown
        .iter()
        .map(|i| i.repo_id)
        .filter(|id| !out.contains_key(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    for r in repos::summaries_by_id(db, &missing).await? {
        out.insert(r.id, r);
    }
    out.retain(|id, _| shown.iter().any(|i| i.repo_id == *id));
    Ok(out)
}
