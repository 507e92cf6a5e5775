//! Planning the routes through the index, and choosing the one to walk.

use super::{
    super::{
        lists::{self, Scope},
        overlay::{Overlay, in_scope},
        query::{Checks, Filter, Source},
        walk::{Place, Walk},
    },
    Ask, COMPLETE_SET,
};

/// Where a listing's entries come from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin {
    /// A source, and the kind when the listing is of one kind.
    Source(usize, Option<bool>),
    /// The caller's relation listing of one kind.
    Mine(bool),
    /// Issues the index is behind on, as they are now (`index::overlay`),
    /// checked already.
    Overlay,
}

/// A way through the index: its listings and what they prove.
pub(super) struct Route {
    pub(super) pks: Vec<String>,
    pub(super) origins: Vec<Origin>,
    /// Entries need their document checked.
    pub(super) needs_doc: bool,
    /// Update-ordered listings read to their end (`since`/`before`), whose
    /// matches are then ordered by creation.
    pub(super) complete: bool,
    /// A filter by names this route serves, dropped when no issue the
    /// caller may see carries any of them.
    pub(super) discard: Option<Filter>,
}

/// Listings of a route that sieves another's entries, at most.
const SIEVE_LISTINGS: usize = 8;

/// What the routes are planned from.
pub(super) struct Plan<'a> {
    pub(super) ask: &'a Ask<'a>,
    pub(super) checks: &'a Checks,
    /// Which sources may hold a match (their counters say).
    pub(super) live: &'a [bool],
    /// No cursor: update-ordered complete sets may serve.
    pub(super) fresh: bool,
    /// The plain listings hold few issues: worth reading to their end.
    pub(super) small: bool,
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
    pub(super) fn candidates(&self) -> Vec<Route> {
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
        // when small enough to read to their end, or when one kind is
        // asked for: the other listings hold both kinds, and the plain
        // ones, of that kind only, then sieve them (pulls by label).
        if out.is_empty() || self.small || c.kinds.len() == 1 {
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
    pub(super) fn walk(&self, r: &Route, after: Option<Place>) -> Walk {
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

/// Lays the issues the index is behind on over a route's walk: the
/// current documents that match and that a live source holds (or, for a
/// search of the caller's own relations, any: every entry's repository is
/// checked against the caller's rights) are placed by the route's order.
pub(super) fn lay_over(overlay: &Overlay, plan: &Plan, r: &mut Route, w: &mut Walk) {
    if overlay.is_empty() {
        return;
    }
    let by_update = r.complete || plan.ask.order.by_update();
    let places: Vec<Place> = overlay
        .current()
        .filter(|d| plan.checks.matches(d))
        .filter(|d| {
            plan.ask.mine.is_some()
                || plan
                    .sources()
                    .any(|(_, s)| in_scope(d, &s.scope) && s.admits(d.repo_id, Some(d.is_pull)))
        })
        .map(|d| {
            let time = if by_update { d.updated } else { d.created };
            (time, d.repo_id, d.index)
        })
        .collect();
    let at = w.overlay(overlay.hidden(), &places);
    debug_assert_eq!(at, r.origins.len());
    r.origins.push(Origin::Overlay);
}

impl Route {
    /// Whether the route's listings, read past an entry of another route,
    /// may rule it out: every route holds each match, so an issue one of
    /// them lacks matches nothing. Creation-ordered routes of the sources'
    /// listings only (an issue's place is the same in each of them), of a
    /// few listings (each read is one call per listing).
    pub(super) fn sieves(&self) -> bool {
        !self.complete
            && self.pks.len() <= SIEVE_LISTINGS
            && self
                .origins
                .iter()
                .all(|o| matches!(o, Origin::Source(..) | Origin::Overlay))
    }

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
pub(super) fn choose(routes: &[Route], walks: &[Walk], forward: bool) -> usize {
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
