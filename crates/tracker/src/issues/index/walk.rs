//! Reading several listings at once as one, in order: each is read a chunk
//! at a time from its top (newest first) or bottom (oldest first), and an
//! entry is handed out only once no unread entry of any listing can come
//! before it, so the merged order is exact while each listing is read only
//! as deep as the page needs. An issue in several listings (a union of
//! labels) is handed out once.

use std::collections::HashSet;

use futures::future::try_join_all;

use crate::db::{self, Db, DbError, Item, Query, Range};

/// Where an entry sorts: a time (creation or last update, as the listing
/// orders), then repository and number.
pub type Place = (i64, i64, i64);

/// One entry read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub place: Place,
    /// Which listing it came from (its position in [`Walk::new`]'s list).
    pub list: usize,
    /// The entry's `t` attribute, where its listing keeps one (0 else):
    /// comment listings keep the other of a comment's two times there.
    pub extra: i64,
    /// The entry's `i` attribute, where its listing keeps one (0 else):
    /// comment listings keep the comment's issue number there.
    pub issue: i64,
    /// The entry's `c` attribute: an issue's update entry keeps its state
    /// there (with its creation time in `t`).
    pub closed: bool,
}

impl Entry {
    pub fn repo_id(&self) -> i64 {
        self.place.1
    }

    pub fn index(&self) -> i64 {
        self.place.2
    }
}

/// Parses a listing entry's sort key.
pub fn place_of(sk: &str) -> Option<Place> {
    let mut parts = sk.split('#').map(|p| p.parse::<i64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// The sort key of a place (a cursor's position).
pub fn sk_of(place: Place) -> String {
    crate::db::keys::index_place_sk(place.0, place.1, place.2)
}

struct List {
    pk: String,
    next: Option<Item>,
    done: bool,
    /// The last place read (nothing unread comes before it).
    last: Option<Place>,
}

pub struct Walk {
    lists: Vec<List>,
    forward: bool,
    /// Start strictly after this place (a cursor).
    after: Option<Place>,
    /// Only entries whose time is within these bounds (inclusive).
    range: Option<(i64, i64)>,
    /// Read but not handed out, in order.
    pool: Vec<Entry>,
    seen: HashSet<(i64, i64)>,
    /// Entries read so far.
    pub read: usize,
}

impl Walk {
    pub fn new(pks: Vec<String>, forward: bool, after: Option<Place>) -> Self {
        // The cursor's own place was shown already.
        let seen = after.map(|p| (p.1, p.2)).into_iter().collect();
        Self {
            lists: pks
                .into_iter()
                .map(|pk| List {
                    pk,
                    next: None,
                    done: false,
                    last: None,
                })
                .collect(),
            forward,
            after,
            range: None,
            pool: Vec::new(),
            seen,
            read: 0,
        }
    }

    /// Only entries whose time (the listing's order) is within `from` and
    /// `to`, inclusive.
    pub fn within(mut self, from: i64, to: i64) -> Self {
        self.range = Some((from, to));
        self
    }

    /// The entries read and not handed out yet, in order.
    pub fn pending(&self) -> &[Entry] {
        &self.pool
    }

    /// Every listing read to its end, every entry handed out.
    pub fn exhausted(&self) -> bool {
        self.pool.is_empty() && self.lists.iter().all(|l| l.done)
    }

    /// Whether every listing was read to its end (entries may wait).
    pub fn all_read(&self) -> bool {
        self.lists.iter().all(|l| l.done)
    }

    /// How far the merged listings are known: the place no unread entry
    /// comes before (`None` before the first read or once all are read).
    pub fn frontier(&self) -> Option<Place> {
        let lasts = self.lists.iter().filter(|l| !l.done).map(|l| l.last);
        let mut bound: Option<Place> = None;
        for last in lasts {
            let last = last?;
            bound = Some(match bound {
                None => last,
                Some(b) if self.forward => b.min(last),
                Some(b) => b.max(last),
            });
        }
        bound
    }

    /// Whether no unread entry can come before or at `place`.
    pub fn covers(&self, place: Place) -> bool {
        if self.all_read() {
            return true;
        }
        match self.frontier() {
            Some(b) if self.forward => place <= b,
            Some(b) => place >= b,
            None => false,
        }
    }

    /// Whether the listings, read past `place`, hold no entry of its issue
    /// (an issue keeps its place, its creation, in every listing).
    pub fn lacks(&self, place: Place) -> bool {
        self.covers(place) && !self.seen.contains(&(place.1, place.2))
    }

    /// Lays entries over the listings (`index::overlay`): entries of the
    /// `hidden` issues are passed over wherever a listing holds them, and
    /// `places` (in any order) are handed out among the rest, in order, as
    /// one more listing, read already. Returns that listing's position.
    pub fn overlay(
        &mut self,
        hidden: impl IntoIterator<Item = (i64, i64)>,
        places: &[Place],
    ) -> usize {
        let at = self.lists.len();
        self.lists.push(List {
            pk: String::new(),
            next: None,
            done: true,
            last: None,
        });
        self.seen.extend(hidden);
        let forward = self.forward;
        let within = |p: &Place| {
            self.range.is_none_or(|(from, to)| p.0 >= from && p.0 <= to)
                && self
                    .after
                    .is_none_or(|a| if forward { *p > a } else { *p < a })
        };
        let laid: Vec<Entry> = places
            .iter()
            .filter(|p| within(p))
            .map(|p| Entry {
                place: *p,
                list: at,
                extra: 0,
                issue: 0,
                closed: false,
            })
            .collect();
        self.pool.extend(laid);
        self.sort();
        at
    }

    fn sort(&mut self) {
        let forward = self.forward;
        self.pool.sort_by(|a, b| {
            if forward {
                a.place.cmp(&b.place)
            } else {
                b.place.cmp(&a.place)
            }
        });
    }

    /// Reads the next `chunk` entries of every listing not yet read to its
    /// end, all at once, strongly consistent: a listing shows what its
    /// writers wrote before it was asked for (with `index::overlay`).
    pub async fn fill(&mut self, db: &Db, chunk: usize) -> Result<(), DbError> {
        let limit = chunk.clamp(1, 1000) as i32;
        let forward = self.forward;
        // A time range: from the first key of `from` to past every key of
        // `to` (`$` sorts after the `#` that follows the time). With a
        // cursor too, the range is cut at the cursor's place, which the
        // page before showed (`new` keeps it out of this walk).
        let mut range = self.range.map(|(from, to)| {
            (
                format!("{:020}", from.max(0)),
                format!("{:020}$", to.max(0)),
            )
        });
        if let (Some((from, to)), Some(at)) = (&mut range, self.after.map(sk_of)) {
            if forward {
                *from = at.max(from.clone());
            } else {
                *to = at.min(to.clone());
            }
        }
        // Nothing can lie within an empty range (`since` after `before`, or
        // a cursor past its end), and DynamoDB refuses one.
        if range.as_ref().is_some_and(|(from, to)| from > to) {
            for l in &mut self.lists {
                l.done = true;
            }
            return Ok(());
        }
        let after = self.after.map(sk_of).filter(|_| range.is_none());
        let reads = self
            .lists
            .iter_mut()
            .enumerate()
            .filter(|(_, l)| !l.done && !l.pk.is_empty())
            .map(|(at, l)| {
                let after = after.clone();
                let range = range.clone();
                async move {
                    let range = match (after, range) {
                        (_, Some((from, to))) => Range::Between(from, to),
                        (Some(sk), None) if forward => Range::Above(sk),
                        (Some(sk), None) => Range::Below(sk),
                        (None, None) => Range::All,
                    };
                    let q = Query::table(&l.pk)
                        .range(range)
                        .forward(forward)
                        .limit(limit)
                        .after(l.next.take());
                    let out = db.query_page(q).await?;
                    let places: Vec<(Place, i64, i64, bool)> = out
                        .items
                        .iter()
                        .filter_map(|i| {
                            let place = place_of(db::text(i, "sk"))?;
                            let (t, issue) = (db::number(i, "t"), db::number(i, "i"));
                            Some((place, t, issue, db::flag(i, "c")))
                        })
                        .collect();
                    if let Some((p, ..)) = places.last() {
                        l.last = Some(*p);
                    }
                    match out.next {
                        Some(k) => l.next = Some(k),
                        None => l.done = true,
                    }
                    Ok::<_, DbError>((at, places))
                }
            });
        for (list, places) in try_join_all(reads).await? {
            self.read += places.len();
            for (place, extra, issue, closed) in places {
                if self.seen.insert((place.1, place.2)) {
                    self.pool.push(Entry {
                        place,
                        list,
                        extra,
                        issue,
                        closed,
                    });
                }
            }
        }
        self.sort();
        Ok(())
    }

    /// Hands out at most `most` of the entries nothing unread can come
    /// before, in order (the rest wait for the next call).
    pub fn settled_up_to(&mut self, most: usize) -> Vec<Entry> {
        let mut all = self.settled();
        let rest = all.split_off(most.min(all.len()));
        self.pool.splice(0..0, rest);
        all
    }

    /// Hands out the entries nothing unread can come before, in order.
    pub fn settled(&mut self) -> Vec<Entry> {
        let count = match self.frontier() {
            None if self.all_read() => self.pool.len(),
            None => 0,
            Some(bound) => self
                .pool
                .iter()
                .take_while(|e| {
                    if self.forward {
                        e.place <= bound
                    } else {
                        e.place >= bound
                    }
                })
                .count(),
        };
        self.pool.drain(..count).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_parse_into_places() {
        let sk = sk_of((100, 7, 3));
        assert_eq!(place_of(&sk), Some((100, 7, 3)));
        assert_eq!(place_of("x#1"), None);
    }

    fn walk(forward: bool, lasts: &[(Option<Place>, bool)], pool: &[Place]) -> Walk {
        let mut w = Walk::new(vec!["a".into(); lasts.len()], forward, None);
        for (l, (last, done)) in w.lists.iter_mut().zip(lasts) {
            l.last = *last;
            l.done = *done;
        }
        w.seen.extend(pool.iter().map(|p| (p.1, p.2)));
        w.pool = pool
            .iter()
            .map(|p| Entry {
                place: *p,
                list: 0,
                extra: 0,
                issue: 0,
                closed: false,
            })
            .collect();
        w
    }

    #[test]
    fn only_entries_no_unread_one_precedes_are_handed_out() {
        // Newest first: list 0 was read down to 50, list 1 down to 80.
        let mut w = walk(
            false,
            &[(Some((50, 0, 0)), false), (Some((80, 0, 0)), false)],
            &[(90, 1, 1), (80, 1, 2), (70, 1, 3)],
        );
        let got: Vec<Place> = w.settled().iter().map(|e| e.place).collect();
        assert_eq!(got, [(90, 1, 1), (80, 1, 2)]);
        assert!(w.covers((80, 9, 9)) && !w.covers((79, 9, 9)));
        assert!(w.lacks((85, 9, 9)), "read past, not held");
        assert!(!w.lacks((90, 1, 1)), "held");
        assert!(!w.lacks((40, 9, 9)), "not read that far");
        // A finished list no longer holds anything back.
        let mut w = walk(
            false,
            &[(Some((50, 0, 0)), false), (Some((80, 0, 0)), true)],
            &[(70, 1, 3)],
        );
        assert_eq!(w.settled().len(), 1);
        // An unread list holds everything back.
        let mut w = walk(
            false,
            &[(None, false), (Some((80, 0, 0)), true)],
            &[(90, 1, 1)],
        );
        assert!(w.settled().is_empty());
        // Oldest first, mirrored.
        let mut w = walk(
            true,
            &[(Some((50, 0, 0)), false)],
            &[(40, 1, 1), (60, 1, 2)],
        );
        assert_eq!(w.settled().len(), 1);
    }
}
