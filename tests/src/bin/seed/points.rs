//! The private side and the points that grow the public side.

use std::collections::{BTreeMap, HashMap, HashSet};

use shared::{
    accounts::{
        teams::{self},
        users::{self},
    },
    db::Db,
    issues::{comments::CommentRecord, index::doc},
    repos::{self},
};

use crate::{
    BIG_FIRST, BIG_LAST, COMMENTS, DAY, DEVS, Error, POINTS, PRIVATE_ISSUES_EACH, PRIVATE_REPOS,
    RARE_MATCHES, RECENT_COMMENTS, SMALL_ISSUES,
    filing::{add_counts, file, new_repos},
    issues::{count, freshen, make_issue, relate},
    random::{Rng, Zipf},
    state::{Repo, State},
    writer::{Writer, reserve},
};

/// `privorg`'s 500 private repositories, 2 issues each, bob's relations.
pub(crate) async fn private_side(db: &Db, st: &mut State) -> Result<u64, Error> {
    let mut w = Writer::new(db);
    let names = (0..PRIVATE_REPOS)
        .map(|i| (st.private_org.clone(), format!("p-{i:03}")))
        .collect();
    let mut repos = new_repos(db, &mut w, st.now, names, true).await?;
    let mut rng = Rng(st.rng);
    let zipf = Zipf::new(&st.vocabulary);
    let n = PRIVATE_REPOS * PRIVATE_ISSUES_EACH;
    let first_id = reserve(db, "issue", n).await?;
    let mut issues = Vec::with_capacity(n);
    let mut created: Vec<i64> = (0..n)
        .map(|_| st.now - rng.between(30 * DAY, 400 * DAY))
        .collect();
    created.sort_unstable();
    for (k, at) in created.into_iter().enumerate() {
        let repo = &mut repos[k % PRIVATE_REPOS];
        issues.push(make_issue(&mut rng, &zipf, repo, first_id + k as i64, at));
    }
    relate(&mut rng, &mut issues, &st.user500, 40, 20, &[]);
    freshen(&mut rng, st.now, &mut issues, 20, &[]);
    for issue in &issues {
        let repo = repos
            .iter_mut()
            .find(|r| r.id == issue.repo_id)
            .ok_or("repository")?;
        count(repo, issue);
    }
    let by_id: HashMap<i64, &Repo> = repos.iter().map(|r| (r.id, r)).collect();
    let mut deltas = BTreeMap::new();
    file(&mut w, &by_id, &issues, &HashMap::new(), &mut deltas).await?;
    for r in &repos {
        w.push(r.stats_item()?).await?;
    }
    let written = w.finish().await?;
    add_counts(db, &deltas).await?;
    st.private_repos = repos;
    st.rng = rng.0;
    Ok(written)
}

/// Grows the public side to point `n`.
pub(crate) async fn point(db: &Db, st: &mut State, n: usize) -> Result<u64, Error> {
    let (want_repos, new_issues) = POINTS[n - 1];
    let mut w = Writer::new(db);
    let mut total = 0;
    let mut rng = Rng(st.rng);
    let have = st.repos.len();
    let names: Vec<(String, String)> = (have..want_repos)
        .map(|i| {
            let owner = st.owners[i % st.owners.len()].clone();
            let name = match i {
                0 => "big".to_string(),
                5 => "small".to_string(),
                _ => format!("r-{i:04}"),
            };
            (owner, name)
        })
        .collect();
    let added = new_repos(db, &mut w, st.now, names, false).await?;
    st.repos.extend(added);
    if n == 1 {
        st.big = 0;
        st.small = 5;
        // alice's team is given three of teamorg's repositories.
        let org = users::get(db, &st.team_org).await?.ok_or("team org")?;
        let t = teams::list(db, &org.name)
            .await?
            .into_iter()
            .find(|t| t.name == st.team)
            .ok_or("team")?;
        let chosen: Vec<&Repo> = st
            .repos
            .iter()
            .filter(|r| r.owner == st.team_org)
            .take(3)
            .collect();
        // The repositories exist before the team is given them.
        total += std::mem::replace(&mut w, Writer::new(db)).finish().await?;
        for r in chosen {
            let record = repos::get(db, &r.owner, &r.name)
                .await?
                .ok_or("chosen repository")?;
            repos::collaborators::put_team(db, &record, &t).await?;
            st.team_repos.push(format!("{}/{}", r.owner, r.name));
        }
    }

    let zipf = Zipf::new(&st.vocabulary);
    let mut issues = Vec::with_capacity(new_issues);
    let mut comments: HashMap<(i64, i64), Vec<CommentRecord>> = HashMap::new();
    if new_issues > 0 {
        let first_id = reserve(db, "issue", new_issues).await?;
        let (big, small) = (st.big, st.small);
        // Which repository each new issue goes to.
        let targets: Vec<usize> = if n == 1 {
            let others: Vec<usize> = (0..st.repos.len())
                .filter(|i| *i != big && *i != small)
                .collect();
            let spread = new_issues - BIG_FIRST - SMALL_ISSUES;
            let mut t = vec![big; BIG_FIRST];
            t.extend(std::iter::repeat_n(small, SMALL_ISSUES));
            t.extend((0..spread).map(|k| others[k % others.len()]));
            t
        } else {
            let others: Vec<usize> = (0..st.repos.len())
                .filter(|i| *i != big && *i != small)
                .collect();
            let to_big = BIG_LAST - BIG_FIRST;
            let mut t = vec![big; to_big];
            t.extend((0..new_issues - to_big).map(|k| others[k % others.len()]));
            t
        };
        let (from, to) = if n == 1 {
            (st.now - 400 * DAY, st.now - 200 * DAY)
        } else {
            (st.now - 1000 * DAY, st.now - 400 * DAY)
        };
        // Repositories take turns in time (the big one is busy throughout),
        // and numbers follow creation within each repository and point.
        let order = rng.pick(targets.len(), targets.len());
        let targets: Vec<usize> = order.into_iter().map(|k| targets[k]).collect();
        let mut created: Vec<i64> = (0..new_issues).map(|_| rng.between(from, to)).collect();
        created.sort_unstable();
        for (k, (&target, at)) in targets.iter().zip(created).enumerate() {
            let repo = &mut st.repos[target];
            issues.push(make_issue(&mut rng, &zipf, repo, first_id + k as i64, at));
        }
        if n == 1 {
            let (big_id, small_id) = (st.repos[big].id, st.repos[small].id);
            let firsts = [(small_id, 5), (big_id, 5)];
            relate(&mut rng, &mut issues, &st.user, 60, 40, &firsts);
            freshen(&mut rng, st.now, &mut issues, 50, &firsts);
            // The rare word: a dozen issues, never again.
            for p in rng.pick(issues.len(), RARE_MATCHES) {
                let issue = &mut issues[p];
                issue.title = format!("{} {}", st.rare_word, issue.title);
            }
            // The common word: the one in about 40 % of the issues.
            let mut df: HashMap<String, usize> = HashMap::new();
            for i in &issues {
                for word in doc::text_words(i) {
                    *df.entry(word).or_default() += 1;
                }
            }
            let (word, share) = st
                .vocabulary
                .iter()
                .map(|v| (v, *df.get(v).unwrap_or(&0) as f64 / issues.len() as f64))
                .min_by(|a, b| (a.1 - 0.4).abs().total_cmp(&(b.1 - 0.4).abs()))
                .ok_or("vocabulary")?;
            st.common_word = word.clone();
            st.common_share = share;
            // Comments on issue 1 of `small` and of `big` (an issue, not
            // a pull request), a few of them recent.
            let first_comment = reserve(db, "comment", 2 * COMMENTS).await?;
            for (k, repo_id) in [small_id, big_id].into_iter().enumerate() {
                let issue = issues
                    .iter_mut()
                    .find(|i| i.repo_id == repo_id && i.index == 1)
                    .ok_or("issue 1")?;
                issue.is_pull = false;
                issue.head.clear();
                issue.base.clear();
                issue.review_requested.clear();
                issue.reviewed.clear();
                issue.comments = COMMENTS as i64;
                let mut list = Vec::new();
                for c in 0..COMMENTS {
                    let at = if c >= COMMENTS - RECENT_COMMENTS {
                        st.now - rng.between(60, DAY)
                    } else {
                        rng.between(issue.created, st.now - 30 * DAY)
                    };
                    list.push(CommentRecord {
                        id: first_comment + (k * COMMENTS + c) as i64,
                        repo_id,
                        index: 1,
                        is_pull: false,
                        poster: format!("dev{:02}", rng.below(DEVS)),
                        body: zipf.title(&mut rng),
                        created: at,
                        updated: at,
                        version: 1,
                    });
                }
                list.sort_by_key(|c| (c.created, c.id));
                issue.updated = issue.updated.max(list.last().map_or(0, |c| c.created));
                comments.insert((repo_id, 1), list);
            }
            for r in [small, big] {
                st.repos[r].issue_comments += COMMENTS as i64;
            }
        }
        for issue in &issues {
            let repo = st
                .repos
                .iter_mut()
                .find(|r| r.id == issue.repo_id)
                .ok_or("repository")?;
            count(repo, issue);
        }
    }
    let touched: HashSet<i64> = issues.iter().map(|i| i.repo_id).collect();
    let by_id: HashMap<i64, &Repo> = st.repos.iter().map(|r| (r.id, r)).collect();
    let mut deltas = BTreeMap::new();
    file(&mut w, &by_id, &issues, &comments, &mut deltas).await?;
    for r in st.repos.iter().filter(|r| touched.contains(&r.id)) {
        w.push(r.stats_item()?).await?;
    }
    total += w.finish().await?;
    add_counts(db, &deltas).await?;
    st.rng = rng.0;
    Ok(total)
}
