//! Issue listings. Issues are indexed (`gsi1`) in one partition per
//! repository, kind and state, newest first. An unfiltered listing reads
//! only as many items per partition as the requested page needs and takes
//! its total from the repository counters, so its cost does not grow with
//! the repository; a filtered one reads the partitions it needs in full.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, TryStreamExt};

use super::IssueRecord;
use crate::{
    Result,
    db::{self, Db, keys},
    http::paging::Page,
    repos::RepoStats,
};

/// What a listing asks for. `None` fields do not filter.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Kinds to include: `false` issues, `true` pull requests.
    pub kinds: Vec<bool>,
    /// States to include: `false` open, `true` closed.
    pub states: Vec<bool>,
    /// Any of these label ids.
    pub labels: Option<Vec<i64>>,
    /// Any of these milestone ids.
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
}

impl Filter {
    /// Only kind and state: answerable from the index and the counters.
    pub fn is_plain(&self) -> bool {
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
    }
}

/// Where an issue sits in a listing: enough to sort and fetch it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    created: i64,
    repo_id: i64,
    index: i64,
}

impl Entry {
    fn of(i: &IssueRecord) -> Self {
        Self {
            created: i.created,
            repo_id: i.repo_id,
            index: i.index,
        }
    }

    /// Newest first; ties by repository and number, highest first.
    fn order(&self) -> (i64, i64, i64) {
        (self.created, self.repo_id, self.index)
    }

    /// Where a stored issue sits, from the three attributes [`PLACE`] reads.
    fn from_item(item: &db::Item) -> Option<Self> {
        let n = |name: &str| item.get(name)?.as_n().ok()?.parse().ok();
        Some(Self {
            created: n("created")?,
            repo_id: n("repo_id")?,
            index: n("index")?,
        })
    }
}

/// What an unfiltered listing reads of each issue: where it sits.
const PLACE: [&str; 3] = ["created", "repo_id", "index"];

/// Reads one index partition, newest first, one page (at most 1 MB) at a
/// time: `keep` sees each item and decides what stays in memory, so a long
/// read holds only what the listing needs of each issue. `projection`
/// names the only attributes read (all when `None`).
async fn partition<T>(
    db: &Db,
    pk: String,
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
                        .scan_index_forward(false)
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
/// the total number of matches.
pub async fn list_repo(
    db: &Db,
    repo_id: i64,
    stats: &RepoStats,
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let stats = HashMap::from([(repo_id, stats.clone())]);
    list_many(db, &[(repo_id, filter.kinds.clone())], &stats, filter, page).await
}

/// Issues of several repositories, each with the kinds the caller may read
/// there, merged newest first: the requested page and the total.
pub async fn list_many(
    db: &Db,
    targets: &[(i64, Vec<bool>)],
    stats: &HashMap<i64, RepoStats>,
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let mut parts = Vec::new();
    for (repo_id, kinds) in targets {
        for kind in kinds.iter().filter(|k| filter.kinds.contains(k)) {
            for &state in &filter.states {
                parts.push((*repo_id, *kind, state));
            }
        }
    }
    if filter.is_plain() {
        plain(db, &parts, stats, page).await
    } else {
        filtered(db, &parts, filter, page).await
    }
}

/// Kind and state only: where each partition's newest issues sit, up to
/// the end of the page (three attributes each, however far the page is);
/// the page's issues are then read by key, and the total comes from the
/// counters.
async fn plain(
    db: &Db,
    parts: &[(i64, bool, bool)],
    stats: &HashMap<i64, RepoStats>,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let need = Some(page.offset() + page.size as usize);
    // Collected first: a lazy `map` adapter would keep a closure in the
    // stream's type, which the boxed handler future cannot prove `Send` for.
    let reads: Vec<_> = parts
        .iter()
        .map(|(r, k, s)| {
            partition(
                db,
                keys::issue_list_pk(*r, *k, *s),
                need,
                Some(&PLACE),
                |i| Ok(Entry::from_item(&i)),
            )
        })
        .collect();
    // At most 16 reads in flight, as one Lambda should.
    let all: Vec<Entry> = futures::stream::iter(reads)
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await?
        .into_iter()
        .flatten()
        .collect();
    let total = parts
        .iter()
        .map(|(r, kind, closed)| {
            let s = stats.get(r).cloned().unwrap_or_default();
            let (total, closed_n) = if *kind {
                (s.num_pulls, s.num_closed_pulls)
            } else {
                (s.num_issues, s.num_closed_issues)
            };
            (if *closed { closed_n } else { total - closed_n }).max(0) as u64
        })
        .sum();
    Ok((fetch_page(db, all, page).await?, total))
}

/// The issues of `page` among `all` (newest first), read by key.
async fn fetch_page(db: &Db, mut all: Vec<Entry>, page: Page) -> Result<Vec<IssueRecord>> {
    all.sort_by_key(|e| std::cmp::Reverse(e.order()));
    let ids: Vec<(i64, i64)> = page
        .slice(&all)
        .iter()
        .map(|e| (e.repo_id, e.index))
        .collect();
    let mut found = super::deps::load_all(db, &ids).await?;
    found.sort_by_key(|i| std::cmp::Reverse(Entry::of(i).order()));
    Ok(found)
}

/// Any other filter: every partition read in full, keeping only where each
/// match sits; then the page's issues are read by key. Memory holds one
/// page of the index per read in flight, not the partitions.
async fn filtered(
    db: &Db,
    parts: &[(i64, bool, bool)],
    filter: &Filter,
    page: Page,
) -> Result<(Vec<IssueRecord>, u64)> {
    let reads: Vec<_> = parts
        .iter()
        .map(|(r, k, s)| {
            partition(db, keys::issue_list_pk(*r, *k, *s), None, None, |item| {
                let i: IssueRecord = db::from_item(item)?;
                Ok(filter.matches(&i).then(|| Entry::of(&i)))
            })
        })
        .collect();
    let all: Vec<Entry> = futures::stream::iter(reads)
        .buffer_unordered(16)
        .try_collect::<Vec<_>>()
        .await?
        .into_iter()
        .flatten()
        .collect();
    let total = all.len() as u64;
    Ok((fetch_page(db, all, page).await?, total))
}
