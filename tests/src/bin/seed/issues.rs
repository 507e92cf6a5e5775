//! Issues' made-up fields, counters, relations and recent updates.

use shared::issues::IssueRecord;

use crate::{
    DAY, DEVS,
    random::{Rng, Zipf},
    state::Repo,
};

/// An issue's made-up fields; relations and recent updates are set later.
pub(crate) fn make_issue(
    rng: &mut Rng,
    zipf: &Zipf,
    repo: &mut Repo,
    id: i64,
    created: i64,
) -> IssueRecord {
    repo.last_index += 1;
    let index = repo.last_index;
    let is_pull = rng.chance(0.2);
    let closed = rng.chance(0.25);
    let updated = created + rng.between(0, 3 * DAY);
    let mut labels = Vec::new();
    let n = match rng.below(10) {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    };
    for k in rng.pick(repo.labels.len(), n) {
        labels.push(repo.labels[k].0);
    }
    let milestone = if rng.chance(0.4) {
        repo.milestones[rng.below(repo.milestones.len())].0
    } else {
        0
    };
    let dev = |rng: &mut Rng| format!("dev{:02}", rng.below(DEVS));
    let poster = dev(rng);
    let assignees = if rng.chance(0.3) {
        vec![dev(rng)]
    } else {
        Vec::new()
    };
    let mut body = zipf.body(rng);
    let mut mentions = Vec::new();
    if rng.chance(0.05) {
        let who = dev(rng);
        body = format!("@{who} {body}");
        mentions.push(who);
    }
    IssueRecord {
        id,
        repo_id: repo.id,
        index,
        is_pull,
        title: zipf.title(rng),
        body,
        poster,
        assignees,
        labels,
        milestone,
        closed,
        closed_at: if closed { updated } else { 0 },
        created,
        updated,
        version: 1,
        mentions,
        head: if is_pull {
            format!("feature-{index}")
        } else {
            String::new()
        },
        base: if is_pull {
            "main".into()
        } else {
            String::new()
        },
        ..IssueRecord::default()
    }
}

/// Moves the repository counters for a new issue.
pub(crate) fn count(repo: &mut Repo, issue: &IssueRecord) {
    if issue.is_pull {
        repo.pulls += 1;
        repo.closed_pulls += i64::from(issue.closed);
    } else {
        repo.issues += 1;
        repo.closed_issues += i64::from(issue.closed);
    }
}

/// The fixed relations of `who` among `issues`: created, assigned and
/// mentioned in `n` issues each (`firsts` of them in the given
/// repositories first), and asked to review and reviewed `m` pull requests.
pub(crate) fn relate(
    rng: &mut Rng,
    issues: &mut [IssueRecord],
    who: &str,
    n: usize,
    m: usize,
    firsts: &[(i64, usize)],
) {
    let mut created = Vec::new();
    for &(repo_id, k) in firsts {
        let mine: Vec<usize> = (0..issues.len())
            .filter(|i| issues[*i].repo_id == repo_id)
            .collect();
        for p in rng.pick(mine.len(), k) {
            created.push(mine[p]);
        }
    }
    let rest: Vec<usize> = (0..issues.len()).filter(|i| !created.contains(i)).collect();
    for p in rng.pick(rest.len(), n.saturating_sub(created.len())) {
        created.push(rest[p]);
    }
    for i in created {
        issues[i].poster = who.to_string();
    }
    for p in rng.pick(issues.len(), n) {
        issues[p].assignees.push(who.to_string());
    }
    for p in rng.pick(issues.len(), n) {
        let issue = &mut issues[p];
        issue.body = format!("@{who} {}", issue.body);
        issue.mentions.push(who.to_string());
    }
    let pulls: Vec<usize> = (0..issues.len()).filter(|i| issues[*i].is_pull).collect();
    for p in rng.pick(pulls.len(), m) {
        issues[pulls[p]].review_requested.push(who.to_string());
    }
    for p in rng.pick(pulls.len(), m) {
        issues[pulls[p]].reviewed.push(who.to_string());
    }
}

/// Marks `n` issues (`firsts` of them in the given repositories first) as
/// updated within the last day.
pub(crate) fn freshen(
    rng: &mut Rng,
    now: i64,
    issues: &mut [IssueRecord],
    n: usize,
    firsts: &[(i64, usize)],
) {
    let mut chosen = Vec::new();
    for &(repo_id, k) in firsts {
        let mine: Vec<usize> = (0..issues.len())
            .filter(|i| issues[*i].repo_id == repo_id)
            .collect();
        for p in rng.pick(mine.len(), k) {
            chosen.push(mine[p]);
        }
    }
    let rest: Vec<usize> = (0..issues.len()).filter(|i| !chosen.contains(i)).collect();
    for p in rng.pick(rest.len(), n.saturating_sub(chosen.len())) {
        chosen.push(rest[p]);
    }
    for i in chosen {
        let issue = &mut issues[i];
        issue.updated = now - rng.between(60, DAY);
        if issue.closed {
            issue.closed_at = issue.updated;
        }
    }
}
