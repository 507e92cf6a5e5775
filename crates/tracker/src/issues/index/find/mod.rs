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
//!    issue's document for every other filter, until the page is full. An
//!    entry that another route's listings lack (read on as far: a listing
//!    entry costs a fraction of a document) needs no document.
//! 4. Past the page, the walk goes on a little to count: the total is
//!    exact when it reaches the end, and otherwise the count of everything
//!    the caller may see in the asked kinds and states, an upper bound.
//!
//! Every read is bounded ([`LIMITS`]); a page that cannot be completed
//! within them is refused with 422, never answered short.

mod page;
mod plan;
mod run;
mod sources;

use std::collections::{HashMap, HashSet};

use futures::future::try_join_all;

use self::{
    page::{fetch, repos_of},
    plan::{Plan, choose, lay_over},
    run::{Run, too_broad},
    sources::{adjust, has_any, source_counts, total_of},
};
use super::{
    cursor,
    overlay::{Marks, Overlay},
    query::{Checks, Order, Source},
    walk::{Place, Walk},
};
use crate::{
    db::Db,
    issues::{Error, IssueRecord, Result},
    page::Page,
    repos::{RepoRecord, scope::Viewer},
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
    /// Whose writes the index may not hold yet are laid over it.
    pub marks: Marks,
}

/// A page, its total, and the repositories of its issues.
pub struct Found {
    pub shown: Vec<IssueRecord>,
    pub total: u64,
    pub repos: HashMap<i64, RepoRecord>,
}

/// Whether a walk read to its end holds an entry of a repository the
/// caller may read through its source: names in use only where the caller
/// cannot look are unknown to them (else a filter's answer would tell
/// which names the hidden repositories use).
fn readable_entry(ask: &Ask, r: &plan::Route, w: &Walk) -> bool {
    w.pending().iter().any(|e| match r.origins[e.list] {
        plan::Origin::Source(i, kind) => ask.sources[i].admits(e.repo_id(), kind),
        _ => true,
    })
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
    let (mut counted, overlay) = tokio::try_join!(
        source_counts(db, &ask.sources),
        Overlay::load(db, &ask.marks)
    )?;
    adjust(&ask.sources, &mut counted, &overlay);
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

    let (route, mut walk, sieves) = loop {
        let plan = Plan {
            ask: &ask,
            checks: &checks,
            live: &live,
            fresh: after.is_none(),
            small: universe <= COMPLETE_SET as u64,
        };
        let mut routes = plan.candidates();
        let mut walks: Vec<Walk> = routes
            .iter_mut()
            .map(|r| {
                let mut w = plan.walk(r, after);
                lay_over(&overlay, &plan, r, &mut w);
                w
            })
            .collect();
        if walks.len() == 1 && routes[0].discard.is_none() {
            break (routes.swap_remove(0), walks.swap_remove(0), Vec::new());
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
            .find(|(r, w)| {
                r.discard.is_some_and(|f| {
                    w.all_read() && !readable_entry(&ask, r, w) && !overlay.carries(f, &checks)
                })
            })
            .and_then(|(r, _)| r.discard);
        if let Some(filter) = unknown {
            checks.discard(filter);
            continue;
        }
        let chosen = choose(&routes, &walks, ask.order.forward());
        let (route, walk) = (routes.swap_remove(chosen), walks.swap_remove(chosen));
        // The others, read a page's worth already, rule out candidates.
        let sieves: Vec<Walk> = routes
            .iter()
            .zip(walks)
            .filter(|(r, _)| r.sieves())
            .map(|(_, w)| w)
            .collect();
        break (route, walk, sieves);
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
        overlay: &overlay,
        sieves,
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
