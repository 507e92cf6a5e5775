//! The sources' counts: which may hold a match, and everything they hold.

use super::super::{
    counts::{self, Counts},
    lists::Scope,
    overlay::Overlay,
    query::{Checks, Kinds, Source},
};
use crate::{
    db::Db,
    issues::{Error, Result},
    repos::{self, RepoStats},
};

/// The counts of each source (repositories: their counters item;
/// restricted sources: their repositories').
pub(super) async fn source_counts(db: &Db, sources: &[Source]) -> Result<Vec<Counts>> {
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

/// Moves the counts of the sources the index counts (scopes wider than a
/// repository, whose counters the consumer keeps) by what the overlay says
/// the index lacks. A repository's counters move with each write already.
pub(super) fn adjust(sources: &[Source], counted: &mut [Counts], overlay: &Overlay) {
    if overlay.is_empty() {
        return;
    }
    let deltas = overlay.count_deltas();
    for (s, c) in sources.iter().zip(counted.iter_mut()) {
        if s.only.is_some() || matches!(s.scope, Scope::Repo(_)) {
            continue;
        }
        let name = s.scope.name();
        for ((scope, counter), n) in &deltas {
            if *scope != name {
                continue;
            }
            match *counter {
                "io" => c.open_issues += n,
                "ic" => c.closed_issues += n,
                "po" => c.open_pulls += n,
                _ => c.closed_pulls += n,
            }
        }
    }
}

/// Whether a source may hold a match: any issue in a kind it may read
/// and the checks ask for, in an asked state.
pub(super) fn has_any(s: &Source, c: &Counts, checks: &Checks) -> bool {
    checks
        .kinds
        .iter()
        .filter(|k| s.kinds.has(**k))
        .any(|&k| checks.states.iter().any(|&st| c.get(k, st) > 0))
}

/// Everything the sources hold in the asked kinds and states.
pub(super) fn total_of(sources: &[Source], counted: &[Counts], checks: &Checks) -> u64 {
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
