//! Gitea's `TrackedTime`, `StopWatch` and `AddTimeOption`, and how a page
//! of times finds its issues.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::super::{IssueRecord, views::Issue};
use super::{TimeRecord, stopwatch};
use crate::{
    Config, Result,
    accounts::{
        names::{Visibility, fold},
        principal::{Caller, Principal},
        users::users_of,
    },
    db::{self, Consistency, Db, keys},
    page::Page,
    repos::{self, RepoRecord},
    time,
};

/// Gitea's `AddTimeOption`; unknown fields are refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddTimeOption {
    /// Seconds.
    pub time: i64,
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub user_name: Option<String>,
}

/// Gitea's `TrackedTime`, fields in its order.
#[derive(Serialize)]
pub struct TrackedTime {
    pub id: i64,
    pub created: String,
    pub time: i64,
    pub user_id: i64,
    pub user_name: String,
    pub issue_id: i64,
    /// Gitea's `Issue`, rendered once per issue a page shows.
    pub issue: serde_json::Value,
}

impl TrackedTime {
    pub fn new(t: &TimeRecord, issue: serde_json::Value, config: &Config) -> Self {
        TrackedTime {
            id: t.id,
            created: time::render(t.created, config.display_tz),
            time: t.time,
            user_id: t.user_id,
            user_name: t.user_name.clone(),
            issue_id: t.issue_id,
            issue,
        }
    }

    /// One time and its issue, as a POST answers.
    pub async fn one(
        db: &Db,
        repo: &RepoRecord,
        issue: &IssueRecord,
        t: &TimeRecord,
        config: &Config,
    ) -> Result<Self> {
        let view = Issue::one(db, repo, issue, config).await?;
        Ok(TrackedTime::new(t, json(&view), config))
    }

    /// A page of times with their issues (one batched read of the issues,
    /// strongly consistent; of their repositories when not given). A time
    /// whose issue or repository is gone (its clean-up is under way) is
    /// left out, and so are private ones for `public-only` tokens.
    pub async fn many(
        db: &Db,
        times: &[TimeRecord],
        known: Option<&RepoRecord>,
        caller: &Caller,
        config: &Config,
    ) -> Result<Vec<TrackedTime>> {
        let mut wanted: Vec<(i64, i64)> = times.iter().map(|t| (t.repo_id, t.index)).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let keys = wanted.iter().map(|(r, i)| keys::issue(*r, *i)).collect();
        let issues: Vec<IssueRecord> = db
            .batch_get_many(keys, None, Consistency::Strong)
            .await?
            .into_iter()
            .map(db::from_item)
            .collect::<Result<_, _>>()?;
        let repos = match known {
            Some(r) => HashMap::from([(r.id, r.clone())]),
            None => repositories(db, &issues, caller).await?,
        };
        let mut views = HashMap::new();
        let shown = issues.iter().filter(|i| repos.contains_key(&i.repo_id));
        for (v, i) in Issue::many(db, &repos, &issues, config)
            .await?
            .iter()
            .zip(shown)
        {
            views.insert((i.repo_id, i.index), json(v));
        }
        Ok(times
            .iter()
            .filter_map(|t| {
                let issue = views.get(&(t.repo_id, t.index))?;
                Some(TrackedTime::new(t, issue.clone(), config))
            })
            .collect())
    }
}

/// A rendered issue as JSON (plain fields: it cannot fail to serialise).
fn json(issue: &Issue) -> serde_json::Value {
    serde_json::to_value(issue).unwrap_or_default()
}

/// The repositories of `issues` (for `public-only` tokens, only public
/// ones of public owners).
async fn repositories(
    db: &Db,
    issues: &[IssueRecord],
    caller: &Caller,
) -> Result<HashMap<i64, RepoRecord>> {
    let ids: Vec<i64> = issues
        .iter()
        .map(|i| i.repo_id)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut found = repos::get_many_by_id(db, &ids).await?;
    if caller.public_only() {
        let owners: Vec<String> = found.iter().map(|r| fold(&r.owner)).collect();
        let users = users_of(db, owners.iter().map(String::as_str)).await?;
        found.retain(|r| !r.private && users.get(&fold(&r.owner)).visibility == Visibility::Public);
    }
    Ok(found.into_iter().map(|r| (r.id, r)).collect())
}

/// Gitea's `StopWatch`.
#[derive(Serialize)]
pub struct StopWatch {
    pub created: String,
    pub seconds: i64,
    pub duration: String,
    pub issue_index: i64,
    pub issue_title: String,
    pub repo_owner_name: String,
    pub repo_name: String,
}

/// Seconds as Gitea's `SecToHours` writes them: hours and minutes.
pub fn duration(secs: i64) -> String {
    let (h, m) = (secs / 3600, secs % 3600 / 60);
    match (h, m) {
        (0, m) => format!("{m}m"),
        (h, 0) => format!("{h}h"),
        (h, m) => format!("{h}h {m}m"),
    }
}

/// `GET /user/stopwatches`: the caller's running stopwatch, if its issue
/// is still there (and, for `public-only` tokens, public); the total.
pub async fn stopwatches(
    db: &Db,
    me: &Principal,
    caller: &Caller,
    page: Page,
    config: &Config,
) -> Result<(Vec<StopWatch>, u64)> {
    let Some(sw) = stopwatch::running(db, &me.user.name).await? else {
        return Ok((Vec::new(), 0));
    };
    let Some(issue) = super::super::get(db, sw.repo_id, sw.index).await? else {
        return Ok((Vec::new(), 0));
    };
    let repos = repositories(db, std::slice::from_ref(&issue), caller).await?;
    let Some(repo) = repos.get(&issue.repo_id) else {
        return Ok((Vec::new(), 0));
    };
    if page.offset() > 0 {
        return Ok((Vec::new(), 1));
    }
    let seconds = (time::now() - sw.created).max(0);
    let view = StopWatch {
        created: time::render(sw.created, config.display_tz),
        seconds,
        duration: duration(seconds),
        issue_index: issue.index,
        issue_title: issue.title,
        repo_owner_name: repo.owner.clone(),
        repo_name: repo.name.clone(),
    };
    Ok((vec![view], 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations() {
        assert_eq!(super::duration(59), "0m");
        assert_eq!(super::duration(3600), "1h");
        assert_eq!(super::duration(3 * 3600 + 5 * 60 + 7), "3h 5m");
    }
}
