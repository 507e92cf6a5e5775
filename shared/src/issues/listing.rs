//! The first page of a repository's unfiltered listing, newest or oldest
//! first, read straight from the issues' own index (`gsi1`, one partition
//! per kind and state): whole issues, as many per partition as the page
//! needs, beside the repository's counters for the total. Nothing is read
//! again by key, and a write shows here as soon as the index has it, which
//! is before the search index does. Every other page and filter goes
//! through the search index (`index::find`).

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Error, IssueRecord, Result};
use crate::{
    db::{self, Db, keys},
    repos::{self, RepoStats},
};

/// How many issues of a kind and state the counters hold.
pub fn counted(stats: &RepoStats, is_pull: bool, closed: bool) -> u64 {
    let (total, closed_n) = if is_pull {
        (stats.num_pulls, stats.num_closed_pulls)
    } else {
        (stats.num_issues, stats.num_closed_issues)
    };
    (if closed { closed_n } else { total - closed_n }).max(0) as u64
}

/// The first `size` issues of a repository in the asked kinds and states,
/// newest first (or oldest, `forward`), and how many there are.
pub async fn first_page(
    db: &Db,
    repo_id: i64,
    kinds: &[bool],
    states: &[bool],
    forward: bool,
    size: usize,
) -> Result<(Vec<IssueRecord>, u64)> {
    let parts: Vec<(bool, bool)> = kinds
        .iter()
        .flat_map(|k| states.iter().map(move |s| (*k, *s)))
        .collect();
    let reads = parts
        .iter()
        .map(|(k, s)| partition(db, keys::issue_list_pk(repo_id, *k, *s), forward, size));
    let (stats, read) = tokio::try_join!(
        async { Ok::<_, Error>(repos::stats(db, repo_id).await?) },
        futures::future::try_join_all(reads),
    )?;
    let mut all: Vec<IssueRecord> = read.into_iter().flatten().collect();
    all.sort_by_key(|i| (i.created, i.index));
    if !forward {
        all.reverse();
    }
    all.truncate(size);
    let total = parts.iter().map(|(k, s)| counted(&stats, *k, *s)).sum();
    Ok((all, total))
}

/// The first `limit` issues of one partition (a query returns at most
/// 1 MB: large issues take several).
async fn partition(db: &Db, pk: String, forward: bool, limit: usize) -> Result<Vec<IssueRecord>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = db
            .query(|q| {
                q.index_name("gsi1")
                    .key_condition_expression("gsi1pk = :pk")
                    .expression_attribute_values(":pk", AttributeValue::S(pk.clone()))
                    .scan_index_forward(forward)
                    .limit((limit - out.len()).clamp(1, 1000) as i32)
                    .set_exclusive_start_key(cursor.take())
            })
            .await?;
        for item in page.items.unwrap_or_default() {
            out.push(db::from_item(item)?);
        }
        match page.last_evaluated_key {
            Some(k) if !k.is_empty() && out.len() < limit => cursor = Some(k),
            _ => return Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_give_each_kind_and_state() {
        let s = RepoStats {
            num_issues: 10,
            num_closed_issues: 4,
            num_pulls: 3,
            num_closed_pulls: 1,
            ..RepoStats::default()
        };
        assert_eq!(counted(&s, false, false), 6);
        assert_eq!(counted(&s, false, true), 4);
        assert_eq!(counted(&s, true, false), 2);
        assert_eq!(counted(&s, true, true), 1);
    }
}
