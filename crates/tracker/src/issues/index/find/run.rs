//! Walking a route: checking its entries until the page is full.

use std::collections::{HashMap, HashSet};

use super::{
    super::{
        doc::Doc,
        overlay::Overlay,
        query::Checks,
        walk::{Entry, Place, Walk},
    },
    Ask, LIMITS, Limits,
    plan::{Origin, Route},
};
use crate::{
    db::{Consistency, Db, keys},
    issues::{Error, Result},
    repos::{
        self, RepoRecord,
        access::{Permission, Unit},
    },
};

pub(super) fn too_broad(walk: &Walk, run: &Run) -> Error {
    Error::TooBroad(format!(
        "this query would read more than the index allows for one request \
         (read {} entries and checked {} issues; at most {} and {}): narrow it \
         (owner, state, type, labels, more words), or page through it in order",
        walk.read, run.docs, LIMITS.entries, LIMITS.documents
    ))
}

/// One walk's state.
pub(super) struct Run<'a> {
    pub(super) db: &'a Db,
    pub(super) ask: &'a Ask<'a>,
    /// What is checked: the asked filters, but those discarded.
    pub(super) checks: &'a Checks,
    pub(super) route: &'a Route,
    pub(super) docs: usize,
    /// Repositories resolved for the caller's own listings.
    pub(super) repos: HashMap<i64, Option<(RepoRecord, Permission)>>,
    pub(super) accepted: Vec<Place>,
    /// Where each match sorts, for orders no listing keeps.
    pub(super) sort_keys: HashMap<Place, (i64, i64, i64, i64)>,
    /// Issues the index is behind on, as they are now.
    pub(super) overlay: &'a Overlay,
    /// Other routes' walks, read on as far as this one to rule out its
    /// entries ([`Route::sieves`]).
    pub(super) sieves: Vec<Walk>,
}

/// Entries one sieve may read, at most (then it rules out what it covers).
const SIEVE_ENTRIES: usize = 2_000;

impl Run<'_> {
    /// Walks until `need` matches, the end, or `limits`.
    pub(super) async fn go(&mut self, walk: &mut Walk, need: usize, limits: Limits) -> Result<()> {
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
            let batch = self.sift(batch).await?;
            let ok = self.check(&batch).await?;
            self.accepted.extend(ok);
        }
        Ok(())
    }

    /// `batch` without the entries a sieve rules out: each sieve is read
    /// on until it covers the batch (or has read its share), and an entry
    /// of the index's listings that a sieve covers but lacks is dropped
    /// before its document is read.
    async fn sift(&mut self, batch: Vec<Entry>) -> Result<Vec<Entry>> {
        let route: &Route = self.route;
        let listed = |e: &Entry| matches!(route.origins[e.list], Origin::Source(..));
        if !route.needs_doc || self.sieves.is_empty() {
            return Ok(batch);
        }
        let Some(deepest) = batch.iter().rev().find(|e| listed(e)).map(|e| e.place) else {
            return Ok(batch);
        };
        for sieve in &mut self.sieves {
            let mut chunk = batch.len().clamp(20, 1000);
            while !sieve.covers(deepest) && sieve.read < SIEVE_ENTRIES {
                sieve.fill(self.db, chunk).await?;
                chunk = (chunk * 2).min(1000);
            }
        }
        let sieves = &self.sieves;
        Ok(batch
            .into_iter()
            .filter(|e| !listed(e) || !sieves.iter().any(|s| s.lacks(e.place)))
            .collect())
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
                Origin::Overlay => self
                    .overlay
                    .doc(e.repo_id(), e.index())
                    .map(|d| (*e, Some(d.is_pull), e.place)),
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
                    Origin::Mine(_) | Origin::Overlay => {
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
    /// update-ordered listings, its place by creation). An update entry
    /// that carries its issue's creation and state answers a query of
    /// times and state alone without its document.
    async fn documents(
        &mut self,
        kept: Vec<(Entry, Option<bool>, Place)>,
    ) -> Result<Vec<(Entry, Option<bool>, Place)>> {
        let laid = |e: &Entry| matches!(self.route.origins[e.list], Origin::Overlay);
        let alone =
            self.route.complete && self.checks.by_time_and_state() && !self.ask.order.by_document();
        let (carried, kept): (Vec<_>, Vec<_>) = kept
            .into_iter()
            .partition(|(e, kind, _)| alone && kind.is_some() && e.extra != 0 && !laid(e));
        let mut out: Vec<_> = carried
            .into_iter()
            .filter_map(|(e, kind, _)| {
                let k = kind?;
                self.checks.matches_kind_state(k, e.closed).then_some((
                    e,
                    kind,
                    (e.extra, e.repo_id(), e.index()),
                ))
            })
            .collect();
        let keys: Vec<_> = kept
            .iter()
            .filter(|(e, _, _)| !laid(e))
            .map(|(e, _, _)| keys::index_doc(e.repo_id(), e.index()))
            .collect();
        self.docs += keys.len();
        // Strongly consistent: a document the consumer wrote before taking
        // its issue's mark away must not be read as it was before.
        let docs: HashMap<(i64, i64), Doc> = self
            .db
            .batch_get_many(keys, None, Consistency::Strong)
            .await?
            .into_iter()
            .map(Doc::from_item)
            .map(|d| d.map(|d| ((d.repo_id, d.index), d)))
            .collect::<std::result::Result<_, _>>()?;
        for (e, _, place) in kept {
            let found = match laid(&e) {
                true => self.overlay.doc(e.repo_id(), e.index()),
                false => docs.get(&(e.repo_id(), e.index())),
            };
            let Some(d) = found else {
                continue;
            };
            let admitted = match self.route.origins[e.list] {
                Origin::Source(i, _) => self.ask.sources[i].admits(d.repo_id, Some(d.is_pull)),
                Origin::Mine(_) | Origin::Overlay => true,
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
    pub(super) async fn complete_set(&mut self, walk: &mut Walk) -> Result<()> {
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
