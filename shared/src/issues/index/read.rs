//! Search through the index: the first page costs what it shows plus a
//! bounded overhead, whatever the number of repositories.
//!
//! The listings ([`Source`]s) a search merges are read newest first, a
//! page's worth at a time, concurrently; each entry's repository is
//! checked against the caller's permissions (read once per request for
//! the repositories met), and the shown page's issues are read by key and
//! checked against the filter, so stale entries are skipped. At most
//! [`ROUNDS`] reads per listing are made: a page of a search whose
//! listings are mostly invisible to the caller may come out short, never
//! wrong.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::Select;
use futures::future::try_join_all;

use super::{Counts, Relation, all_scope, owner_scope, public_scope, user_scope};
use crate::{
    auth::Caller,
    db::{self, Consistency, Db, keys},
    http::paging::Page,
    issues::{IssueRecord, Result, listing::Filter, search::readable_kinds},
    repos::{
        self, RepoRecord,
        access::{Permission, Unit},
        scope::Viewer,
    },
};

/// Most reads of one listing per request.
pub const ROUNDS: usize = 8;

/// What a search asks for, once it is known to be one the index serves.
pub struct Request<'a> {
    pub kinds: &'a [bool],
    pub states: &'a [bool],
    /// Only this owner's repositories (lower-case login).
    pub owner: Option<String>,
    /// Only issues the caller has this relation to.
    pub relation: Option<(String, Relation)>,
}

/// One listing merged into a search.
#[derive(Clone, Debug)]
enum Source {
    /// Index entries under a partition key, of one kind.
    Index { pk: String, is_pull: bool },
    /// The issues of one (private, visible) repository, kind and state.
    Repo {
        repo_id: i64,
        is_pull: bool,
        closed: bool,
    },
}

/// Where an issue sorts: newest first by creation, repository, number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Place {
    created: i64,
    repo_id: i64,
    index: i64,
}

struct Cursor {
    source: Source,
    next: Option<db::Item>,
    done: bool,
    /// The last place read (nothing unread sorts above it).
    last: Option<Place>,
}

/// The page, the total and the repositories of the shown issues.
pub struct Found {
    pub shown: Vec<IssueRecord>,
    pub total: u64,
    pub repos: HashMap<i64, RepoRecord>,
}

pub async fn search(
    db: &Db,
    caller: &Caller,
    req: &Request<'_>,
    filter: &Filter,
    page: Page,
) -> Result<Found> {
    let viewer = Viewer::load(db, caller).await?;
    let private = match &req.relation {
        Some(_) => Vec::new(),
        None if viewer.is_admin() && req.owner.is_none() => Vec::new(),
        None => viewer.private_repos(db, req.owner.as_deref()).await?,
    };
    let mut known: HashMap<i64, Option<(RepoRecord, Permission)>> = private
        .iter()
        .map(|(r, p)| (r.id, Some((r.clone(), *p))))
        .collect();

    let mut sources = Vec::new();
    for &is_pull in req.kinds {
        for &closed in req.states {
            let scopes: Vec<String> = match (&req.relation, &req.owner) {
                (Some((login, rel)), _) => vec![user_scope(login, *rel)],
                (None, Some(owner)) => vec![owner_scope(owner)],
                (None, None) if viewer.is_admin() => {
                    (0..super::ENTRY_SHARDS).map(all_scope).collect()
                }
                (None, None) => (0..super::ENTRY_SHARDS).map(public_scope).collect(),
            };
            sources.extend(scopes.into_iter().map(|s| Source::Index {
                pk: keys::search_pk(&s, is_pull, closed),
                is_pull,
            }));
            for (r, p) in &private {
                if readable_kinds(p).contains(&is_pull) {
                    sources.push(Source::Repo {
                        repo_id: r.id,
                        is_pull,
                        closed,
                    });
                }
            }
        }
    }
    let need = page.offset() + page.size as usize;
    let mut cursors: Vec<Cursor> = sources
        .into_iter()
        .map(|source| Cursor {
            source,
            next: None,
            done: false,
            last: None,
        })
        .collect();

    let counted: Vec<String> = cursors
        .iter()
        .filter_map(|c| match &c.source {
            Source::Index { pk, .. } if req.relation.is_some() => Some(pk.clone()),
            _ => None,
        })
        .collect();
    let (total, accepted) = tokio::try_join!(
        total(db, &viewer, req, &private, &counted),
        merge(db, &viewer, &mut cursors, &mut known, need)
    )?;
    // Eventually consistent, as the listings that placed them; each is
    // checked against the filter below.
    let keys = page
        .slice(&accepted)
        .iter()
        .map(|(p, _)| keys::issue(p.repo_id, p.index))
        .collect();
    let mut shown: Vec<IssueRecord> = db
        .batch_get_many(keys, None, Consistency::Eventual)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<std::result::Result<_, _>>()?;
    shown.retain(|i| filter.matches(i));
    shown.sort_by(|a, b| {
        let place = |i: &IssueRecord| Place {
            created: i.created,
            repo_id: i.repo_id,
            index: i.index,
        };
        place(b).cmp(&place(a))
    });
    let repos = shown
        .iter()
        .filter_map(|i| known.get(&i.repo_id).and_then(Option::as_ref))
        .map(|(r, _)| (r.id, r.clone()))
        .collect();
    Ok(Found {
        shown,
        total,
        repos,
    })
}

/// Reads the listings until the first `need` visible entries are known
/// (or [`ROUNDS`] reads were made): those entries, newest first.
async fn merge(
    db: &Db,
    viewer: &Viewer<'_>,
    cursors: &mut [Cursor],
    known: &mut HashMap<i64, Option<(RepoRecord, Permission)>>,
    need: usize,
) -> Result<Vec<(Place, bool)>> {
    let mut pool: Vec<(Place, bool)> = Vec::new();
    let mut seen = HashSet::new();
    let mut accepted: Vec<(Place, bool)> = Vec::new();
    for _ in 0..ROUNDS {
        let reads = cursors
            .iter_mut()
            .filter(|c| !c.done)
            .map(|c| read_more(db, c, need));
        for found in try_join_all(reads).await? {
            pool.extend(found.into_iter().filter(|(p, _)| seen.insert(*p)));
        }
        pool.sort_by_key(|e| std::cmp::Reverse(e.0));
        // Nothing unread sorts above the highest last place of a listing
        // that is not finished: what sorts at or above it is final.
        let bound = cursors
            .iter()
            .filter(|c| !c.done)
            .filter_map(|c| c.last)
            .max();
        let settled = match bound {
            None => pool.len(),
            Some(b) => pool.iter().take_while(|(p, _)| *p >= b).count(),
        };
        // Repositories are resolved only for entries that may be shown:
        // the next ones the page still needs, a window at a time.
        accepted.clear();
        let mut at = 0;
        while at < settled && accepted.len() < need {
            let window = &pool[at..settled.min(at + need - accepted.len())];
            resolve(db, viewer, known, window).await?;
            accepted.extend(window.iter().filter(|(p, is_pull)| {
                known
                    .get(&p.repo_id)
                    .and_then(Option::as_ref)
                    .is_some_and(|(_, perm)| perm.can_read(Unit::for_pull(*is_pull)))
            }));
            at += window.len();
        }
        if bound.is_none() || accepted.len() >= need {
            break;
        }
    }
    Ok(accepted)
}

/// Reads the repositories of `entries` not yet known, with the caller's
/// permissions on them (`None`: not visible, or gone).
async fn resolve(
    db: &Db,
    viewer: &Viewer<'_>,
    known: &mut HashMap<i64, Option<(RepoRecord, Permission)>>,
    entries: &[(Place, bool)],
) -> Result<()> {
    let unknown: Vec<i64> = entries
        .iter()
        .map(|(p, _)| p.repo_id)
        .filter(|id| !known.contains_key(id))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let found = repos::summaries_by_id(db, &unknown).await?;
    let visible = viewer.permissions(db, found).await?;
    for id in unknown {
        known.insert(id, None);
    }
    for (r, p) in visible {
        known.insert(r.id, Some((r, p)));
    }
    Ok(())
}

/// Reads the next page (up to `need` entries) of one listing.
async fn read_more(db: &Db, c: &mut Cursor, need: usize) -> Result<Vec<(Place, bool)>> {
    let limit = need.clamp(1, 1000) as i32;
    let (out, is_pull) = match &c.source {
        Source::Index { pk, is_pull } => {
            let out = db
                .query(|q| {
                    q.key_condition_expression("pk = :pk")
                        .expression_attribute_values(":pk", db::s(pk))
                        .scan_index_forward(false)
                        .limit(limit)
                        .set_exclusive_start_key(c.next.take())
                })
                .await?;
            (out, *is_pull)
        }
        Source::Repo {
            repo_id,
            is_pull,
            closed,
        } => {
            let pk = keys::issue_list_pk(*repo_id, *is_pull, *closed);
            let out = db
                .query(|q| {
                    db::project(
                        q.index_name("gsi1")
                            .key_condition_expression("gsi1pk = :pk")
                            .expression_attribute_values(":pk", db::s(&pk))
                            .scan_index_forward(false)
                            .limit(limit)
                            .set_exclusive_start_key(c.next.take()),
                        Some(&["created", "repo_id", "index"]),
                    )
                })
                .await?;
            (out, *is_pull)
        }
    };
    let places: Vec<(Place, bool)> = out
        .items
        .unwrap_or_default()
        .iter()
        .filter_map(|item| place_of(&c.source, item))
        .map(|p| (p, is_pull))
        .collect();
    c.last = places.last().map(|(p, _)| *p).or(c.last);
    match out.last_evaluated_key {
        Some(k) if !k.is_empty() => c.next = Some(k),
        _ => c.done = true,
    }
    Ok(places)
}

fn place_of(source: &Source, item: &db::Item) -> Option<Place> {
    let n = |name: &str| item.get(name)?.as_n().ok()?.parse::<i64>().ok();
    match source {
        Source::Index { .. } => {
            let sk = item.get("sk")?.as_s().ok()?;
            let mut parts = sk.split('#').map(|p| p.parse::<i64>().ok());
            Some(Place {
                created: parts.next()??,
                repo_id: parts.next()??,
                index: parts.next()??,
            })
        }
        Source::Repo { .. } => Some(Place {
            created: n("created")?,
            repo_id: n("repo_id")?,
            index: n("index")?,
        }),
    }
}

/// `X-Total-Count`: the counters of the listings searched, plus the
/// private repositories' own counters; a relation's listings are counted
/// (small items, one user's).
async fn total(
    db: &Db,
    viewer: &Viewer<'_>,
    req: &Request<'_>,
    private: &[(RepoRecord, Permission)],
    counted: &[String],
) -> Result<u64> {
    if req.relation.is_some() {
        let counts = counted.iter().map(|pk| count_partition(db, pk));
        return Ok(try_join_all(counts).await?.into_iter().sum());
    }
    let counter_keys = match &req.owner {
        Some(owner) => super::owner_total_keys(owner),
        None => super::total_keys(viewer.is_admin()),
    };
    let ids: Vec<i64> = private.iter().map(|(r, _)| r.id).collect();
    let (items, stats) = tokio::try_join!(
        async {
            Ok::<_, crate::issues::Error>(
                db.batch_get_many(counter_keys, None, Consistency::Eventual)
                    .await?,
            )
        },
        async { Ok(repos::stats_many(db, &ids).await?) }
    )?;
    let mut counts = Counts::default();
    for item in &items {
        counts.add_item(item);
    }
    let mut sum: i64 = 0;
    for &is_pull in req.kinds {
        for &closed in req.states {
            sum += counts.get(is_pull, closed);
            for (r, p) in private {
                if !readable_kinds(p).contains(&is_pull) {
                    continue;
                }
                let s = stats.get(&r.id).cloned().unwrap_or_default();
                let (all, shut) = if is_pull {
                    (s.num_pulls, s.num_closed_pulls)
                } else {
                    (s.num_issues, s.num_closed_issues)
                };
                sum += if closed { shut } else { all - shut };
            }
        }
    }
    Ok(sum.max(0) as u64)
}

/// Most 1 MB pages a relation's count reads (about 8,000 entries each):
/// past that, `X-Total-Count` is a lower bound, so that nobody can make a
/// search expensive by mentioning a user in very many issues.
const COUNT_PAGES: usize = 4;

/// How many entries one listing holds (keys only are counted).
async fn count_partition(db: &Db, pk: &str) -> Result<u64> {
    let mut total = 0u64;
    let mut cursor = None;
    for _ in 0..COUNT_PAGES {
        let out = db
            .query(|q| {
                q.key_condition_expression("pk = :pk")
                    .expression_attribute_values(":pk", db::s(pk))
                    .select(Select::Count)
                    .set_exclusive_start_key(cursor.take())
            })
            .await?;
        total += out.count.max(0) as u64;
        match out.last_evaluated_key {
            Some(k) if !k.is_empty() => cursor = Some(k),
            _ => break,
        }
    }
    Ok(total)
}
