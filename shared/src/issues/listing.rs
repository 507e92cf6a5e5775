//! Issue listings. Issues are indexed (`gsi1`) in one partition per
//! repository, kind and state, newest first. An unfiltered listing in the
//! index's order (newest or oldest first) reads only as many items per
//! partition as the requested page needs and takes its total from the
//! repository counters, so its cost does not grow with the repository; a
//! filtered one, or one in another order, reads the partitions it needs in
//! full. A milestone filter on one repository reads the milestone's
//! membership items instead when that is the smaller read.

use std::{cmp::Ordering, collections::HashMap};

use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, TryStreamExt};

use super::IssueRecord;
use crate::{
    Result,
    db::{self, Consistency, Db, keys},
    http::paging::Page,
    repos::{self, RepoStats},
};

/// The order of a listing (Gitea's `sort`). Ties fall back to creation
/// time, then number, as Gitea's do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Newest first: the index's own order, read backwards.
    #[default]
    Newest,
    /// Oldest first: the index's order, read forwards.
    Oldest,
    /// Last updated first.
    RecentUpdate,
    /// Least recently updated first.
    LeastUpdate,
    /// Last closed first; open ones (never closed, or reopened) last.
    RecentClose,
    /// Most comments first, then newest (Gitea's tie-break).
    MostComment,
    /// Fewest comments first, then newest.
    LeastComment,
}

impl Order {
    /// How the index (creation time, number) serves this order: `Some`
    /// with the direction (`true` forwards) when it does.
    fn index_forward(self) -> Option<bool> {
        match self {
            Order::Newest => Some(false),
            Order::Oldest => Some(true),
            Order::RecentUpdate
            | Order::LeastUpdate
            | Order::RecentClose
            | Order::MostComment
            | Order::LeastComment => None,
        }
    }

    /// Whether `a` comes before `b`.
    fn cmp(self, a: &Entry, b: &Entry) -> Ordering {
        let newest = || b.place().cmp(&a.place());
        match self {
            Order::Newest => newest(),
            Order::Oldest => a.place().cmp(&b.place()),
            Order::RecentUpdate => b.updated.cmp(&a.updated).then_with(newest),
            Order::LeastUpdate => a
                .updated
                .cmp(&b.updated)
                .then_with(|| a.place().cmp(&b.place())),
            Order::RecentClose => b.closed_at.cmp(&a.closed_at).then_with(newest),
            Order::MostComment => b.comments.cmp(&a.comments).then_with(newest),
            Order::LeastComment => a.comments.cmp(&b.comments).then_with(newest),
        }
    }
}

/// What a listing asks for. `None` fields do not filter.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Kinds to include: `false` issues, `true` pull requests.
    pub kinds: Vec<bool>,
    /// States to include: `false` open, `true` closed.
    pub states: Vec<bool>,
    /// Any of these label ids (none: nothing matches).
    pub labels: Option<Vec<i64>>,
    /// Any of these milestone ids (none: nothing matches).
    pub milestones: Option<Vec<i64>>,
    /// Lower-case text to find in the title or body (a number also matches
    /// the issue number).
    pub keyword: Option<String>,
    /// Updated at or after / at or before (Unix seconds).
    pub since: Option<i64>,
    pub before: Option<i64>,
    pub poster: Option<String>,
    pub assignee: Option<String>,
    pub mentioned: Option<String>,
    pub review_requested: Option<String>,
    pub reviewed: Option<String>,
    /// A pull request's base branch.
    pub base: Option<String>,
    pub order: Order,
}

impl Filter {
    /// Only kind and state: the index alone tells what matches.
    fn on_index_only(&self) -> bool {
        self.labels.is_none()
            && self.milestones.is_none()
            && self.keyword.is_none()
            && self.since.is_none()
            && self.before.is_none()
            && self.poster.is_none()
            && self.assignee.is_none()
            && self.mentioned.is_none()
            && self.review_requested.is_none()
            && self.reviewed.is_none()
            && self.base.is_none()
    }

    /// Only kind and state, in the index's order: answerable from the
    /// index (one page of it) and the counters.
    pub fn is_plain(&self) -> bool {
        self.on_index_only() && self.order.index_forward().is_some()
    }

    /// An any-of filter with nothing in it: no issue can match.
    fn matches_nothing(&self) -> bool {
        self.labels.as_ref().is_some_and(Vec::is_empty)
            || self.milestones.as_ref().is_some_and(Vec::is_empty)
    }

    pub fn matches(&self, i: &IssueRecord) -> bool {
        let has =
            |list: &[String], who: &Option<String>| who.as_ref().is_none_or(|w| list.contains(w));
        self.kinds.contains(&i.is_pull)
            && self.states.contains(&i.closed)
            && self
                .labels
                .as_ref()
                .is_none_or(|ls| i.labels.iter().any(|l| ls.contains(l)))
            && self
                .milestones
                .as_ref()
                .is_none_or(|ms| ms.contains(&i.milestone))
            && self.keyword.as_ref().is_none_or(|k| {
                i.title.to_lowercase().contains(k)
                    || i.body.to_lowercase().contains(k)
                    || k.parse::<i64>().is_ok_and(|n| n == i.index)
            })
            && self.since.is_none_or(|s| i.updated >= s)
            && self.before.is_none_or(|b| i.updated <= b)
            && self.poster.as_ref().is_none_or(|p| &i.poster == p)
            && has(&i.assignees, &self.assignee)
            && (has(&i.mentions, &self.mentioned) || has(&i.comment_mentions, &self.mentioned))
            && has(&i.review_requested, &self.review_requested)
            && has(&i.reviewed, &self.reviewed)
            && self.base.as_ref().is_none_or(|b| &i.base == b)
    }
}

/// Where an issue sits in a listing: enough to sort and fetch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    created: i64,
    repo_id: i64,
    index: i64,
    updated: i64,
    /// When it was closed; 0 while open.
    closed_at: i64,
    comments: i64,
}

impl Entry {
    fn of(i: &IssueRecord) -> Self {
        Self {
            created: i.created,
            repo_id: i.repo_id,
            index: i.index,
            updated: i.updated,
            closed_at: if i.closed { i.closed_at } else { 0 },
            comments: i.comments,
        }
    }

    /// The index's order: creation time, then repository and number.
    fn place(&self) -> (i64, i64, i64) {
        (self.created, self.repo_id, self.index)
    }

    /// Where a stored issue sits, from the attributes [`PLACE`] reads.
    fn from_item(item: &db::Item) -> Option<Self> {
        let n = |name: &str| item.get(name)?.as_n().ok()?.parse().ok();
        let closed = item
            .get("closed")
            .and_then(|v| v.as_bool().ok())
            .copied()
            .unwrap_or(false);
        let created = n("created")?;
        Some(Self {
            created,
            repo_id: n("repo_id")?,
            index: n("index")?,
            updated: n("updated").unwrap_or(created),
            closed_at: if closed {
                n("closed_at").unwrap_or(0)
            } else {
                0
            },
            comments: n("comments").unwrap_or(0),
        })
    }
}

/// What a listing reads of an issue that only needs its place.
const PLACE: [&str; 7] = [
    "created",
    "repo_id",
    "index",
    "updated",
    "closed",
    "closed_at",
    "comments",
];

/// Reads one index partition in `forward` (oldest first) or backward
/// order, one page (at most 1 MB) at a time: `keep` sees each item and
/// decides what stays in memory, so a long read holds only what the
/// listing needs of each issue. `projection` names the only attributes
/// read (all when `None`).
async fn partition<T>(
    db: &Db,
    pk: String,
    forward: bool,
    limit: Option<usize>,
    projection: Option<&[&str]>,
    mut keep: impl FnMut(db::Item) -> Result<Option<T>>,
) -> Result<Vec<T>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let want = limit.map(|l| (l - out.len()).clamp(1, 1000) as i32);
        let page = db
            .query(|q| {
                db::project(
                    q.index_name("gsi1")
                        .key_condition_expression("gsi1pk = :pk")
                        .expression_attribute_values(":pk", AttributeValue::S(pk.clone()))
                        .scan_index_forward(forward)
                        .set_limit(want)
                        .set_exclusive_start_key(cursor.take()),
                    projection,
                )
            })
            .await?;
        for item in page.items.unwrap_or_default() {
            out.extend(keep(item)?);
        }
        let done = limit.is_some_and(|l| out.len() >= l);
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() && !done => cursor = Some(k),
            _ => return Ok(out),
        }
    }
}

/// Issues of one repository matching `filter`: the requested page, and
/// the total number of matches. The repository's counters are read where
/// they serve: beside the index for an unfiltered listing (its total), and
/// first for a milestone filter. `members` is how many issues and pull
/// requests the filter's milestones hold together (their counters), when
/// the caller knows it: a milestone filter then reads the milestones'
/// membership items instead of the partitions when that reads less.
pub async fn list_repo(
    db: &Db,
    repo_id: i64,
    filter: &Filter,
    members: Option<u64>,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    if filter.matches_nothing() {
        return Ok((Vec::new(), 0));
    }
    let parts = parts(&[(repo_id, filter.kinds.clone())], filter);
    if let (Some(milestones), Some(members)) = (&filter.milestones, members) {
        let stats = repos::stats(db, repo_id).await?;
        let in_partitions: u64 = parts.iter().map(|p| counted(&stats, p)).sum();
        if members_are_cheaper(members, in_partitions) {
            return by_members(db, repo_id, milestones, filter, page).await;
        }
    }
    match filter.order.index_forward() {
        Some(forward) if filter.on_index_only() => {
            let (stats, shown) = tokio::try_join!(
                async { Ok::<_, crate::Error>(repos::stats(db, repo_id).await?) },
                plain_page(db, &parts, forward, filter.order, page),
            )?;
            let total = parts.iter().map(|p| counted(&stats, p)).sum();
            Ok((shown, total))
        }
        _ => filtered(db, &parts, filter, page).await,
    }
}

/// Whether reading a milestone's members (one small key-only item each,
/// then each issue by key, which DynamoDB charges per item rounded up to
/// 4 KB) reads less than the partitions (charged by their total size):
/// an issue is usually well under 4 KB, so members win when there are at
/// most a quarter as many.
fn members_are_cheaper(members: u64, in_partitions: u64) -> bool {
    members.saturating_mul(4) <= in_partitions
}

/// The partitions (repository, kind, state) a listing reads.
fn parts(targets: &[(i64, Vec<bool>)], filter: &Filter) -> Vec<(i64, bool, bool)> {
    let mut parts = Vec::new();
    for (repo_id, kinds) in targets {
        for kind in kinds.iter().filter(|k| filter.kinds.contains(k)) {
            for &state in &filter.states {
                parts.push((*repo_id, *kind, state));
            }
        }
    }
    parts
}

/// How many issues a partition holds, from the repository's counters.
fn counted(stats: &RepoStats, &(_, kind, closed): &(i64, bool, bool)) -> u64 {
    let (total, closed_n) = if kind {
        (stats.num_pulls, stats.num_closed_pulls)
    } else {
        (stats.num_issues, stats.num_closed_issues)
    };
    (if closed { closed_n } else { total - closed_n }).max(0) as u64
}

/// Issues of several repositories, each with the kinds the caller may read
/// there, merged in the filter's order: the requested page and the total.
pub async fn list_many(
    db: &Db,
    targets: &[(i64, Vec<bool>)],
    stats: &HashMap<i64, RepoStats>,
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    if filter.matches_nothing() {
        return Ok((Vec::new(), 0));
    }
    let parts = parts(targets, filter);
    match filter.order.index_forward() {
        Some(forward) if filter.on_index_only() => {
            plain(db, &parts, stats, forward, filter.order, page).await
        }
        _ => filtered(db, &parts, filter, page).await,
    }
}

/// Kind and state only, in the index's order: the page, and the total from
/// the counters.
async fn plain(
    db: &Db,
    parts: &[(i64, bool, bool)],
    stats: &HashMap<i64, RepoStats>,
    forward: bool,
    order: Order,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let shown = plain_page(db, parts, forward, order, page).await?;
    let total = parts
        .iter()
        .map(|p| counted(&stats.get(&p.0).cloned().unwrap_or_default(), p))
        .sum();
    Ok((shown, total))
}

/// Partitions a first page reads in full items: one repository's (its
/// kinds and states), so memory holds at most four pages of issues.
const FULL_ITEM_PARTS: usize = 4;

/// The page of an unfiltered listing in the index's order. A first page
/// of one repository reads its issues whole from the partitions (a Query
/// costs the items' full size whatever it projects), so nothing is read
/// again by key. Any other page reads where each partition's first issues
/// sit, up to the end of the page (a few attributes each, however far the
/// page is), then the page's issues by key.
async fn plain_page(
    db: &Db,
    parts: &[(i64, bool, bool)],
    forward: bool,
    order: Order,
    page: Page,
) -> Result<Vec<IssueRecord>> {
    let need = Some(page.offset() + page.size as usize);
    if page.offset() == 0 && parts.len() <= FULL_ITEM_PARTS {
        let reads: Vec<_> = parts
            .iter()
            .map(|(r, k, s)| {
                partition(
                    db,
                    keys::issue_list_pk(*r, *k, *s),
                    forward,
                    need,
                    None,
                    |i| Ok(Some(db::from_item::<IssueRecord>(i)?)),
                )
            })
            .collect();
        let mut all = gather(reads).await?;
        all.sort_by(|a, b| order.cmp(&Entry::of(a), &Entry::of(b)));
        all.truncate(page.size as usize);
        return Ok(all);
    }
    // Collected first: a lazy `map` adapter would keep a closure in the
    // stream's type, which the boxed handler future cannot prove `Send` for.
    let reads: Vec<_> = parts
        .iter()
        .map(|(r, k, s)| {
            partition(
                db,
                keys::issue_list_pk(*r, *k, *s),
                forward,
                need,
                Some(&PLACE),
                |i| Ok(Entry::from_item(&i)),
            )
        })
        .collect();
    let all = gather(reads).await?;
    fetch_page(db, all, order, page).await
}

/// Runs partition reads, at most 16 in flight (as one Lambda should).
async fn gather<F, T>(reads: Vec<F>) -> Result<Vec<T>>
where
    F: std::future::Future<Output = Result<Vec<T>>>,
{
    Ok(futures::stream::iter(reads)
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await?
        .into_iter()
        .flatten()
        .collect())
}

/// The issues of `page` among `all`, in `order`, read by key (eventually
/// consistent, as the index that placed them).
async fn fetch_page(
    db: &Db,
    mut all: Vec<Entry>,
    order: Order,
    page: Page,
) -> Result<Vec<IssueRecord>> {
    all.sort_by(|a, b| order.cmp(a, b));
    let keys = page
        .slice(&all)
        .iter()
        .map(|e| keys::issue(e.repo_id, e.index))
        .collect();
    let mut found: Vec<IssueRecord> = db
        .batch_get_many(keys, None, Consistency::Eventual)
        .await?
        .into_iter()
        .map(db::from_item)
        .collect::<Result<_, _>>()?;
    found.sort_by(|a, b| order.cmp(&Entry::of(a), &Entry::of(b)));
    Ok(found)
}

/// Any other filter or order: every partition read in full, keeping only
/// where each match sits (only the attributes that say where, when the
/// filter needs nothing else); then the page's issues are read by key.
/// Memory holds one page of the index per read in flight, not the
/// partitions.
async fn filtered(
    db: &Db,
    parts: &[(i64, bool, bool)],
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let projection = filter.on_index_only().then_some(&PLACE[..]);
    let reads: Vec<_> = parts
        .iter()
        .map(|(r, k, s)| {
            partition(
                db,
                keys::issue_list_pk(*r, *k, *s),
                false,
                None,
                projection,
                |item| {
                    if projection.is_some() {
                        return Ok(Entry::from_item(&item));
                    }
                    let i: IssueRecord = db::from_item(item)?;
                    Ok(filter.matches(&i).then(|| Entry::of(&i)))
                },
            )
        })
        .collect();
    let all = gather(reads).await?;
    let total = all.len() as u64;
    Ok((fetch_page(db, all, filter.order, page).await?, total))
}

/// A milestone filter through the milestones' membership items (keys
/// only, one query per milestone), then the members by key, 100 at a
/// time, keeping where each match sits; then the page's issues are read
/// by key.
async fn by_members(
    db: &Db,
    repo_id: i64,
    milestones: &[i64],
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let mut numbers = Vec::new();
    for m in milestones {
        let items = db
            .query_prefix(&keys::repo_pk(repo_id), &keys::milestone_issue_prefix(*m))
            .await?;
        numbers.extend(items.iter().filter_map(|item| {
            let sk = item.get("sk")?.as_s().ok()?;
            sk.rsplit('#').next()?.parse::<i64>().ok()
        }));
    }
    numbers.sort_unstable();
    numbers.dedup();
    let mut all = Vec::new();
    for chunk in numbers.chunks(100) {
        let ids: Vec<(i64, i64)> = chunk.iter().map(|n| (repo_id, *n)).collect();
        let loaded = super::deps::load_all(db, &ids).await?;
        all.extend(loaded.iter().filter(|i| filter.matches(i)).map(Entry::of));
    }
    let total = all.len() as u64;
    Ok((fetch_page(db, all, filter.order, page).await?, total))
}

#[cfg(test)]
mod tests;
