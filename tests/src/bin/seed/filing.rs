//! Filing repositories and issues as the consumer would, and their counters.

use std::collections::{BTreeMap, HashMap};

use shared::{
    db::{self, Db, keys},
    issues::{
        IssueRecord,
        comments::CommentRecord,
        index::stubs,
        index::{class::RepoFacts, counts, doc, lists},
    },
    labels::{self, LabelRecord},
    milestones::MilestoneRecord,
    repos::{self, NewRepo},
};

use crate::{
    Error, LABELS, MILESTONES,
    state::Repo,
    writer::{Writer, reserve},
};

/// New repositories of `owner`s (round robin), each with its labels and
/// milestones.
pub(crate) async fn new_repos(
    db: &Db,
    w: &mut Writer,
    now: i64,
    names: Vec<(String, String)>,
    private: bool,
) -> Result<Vec<Repo>, Error> {
    let n = names.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let (repo_id, label_id, milestone_id) = tokio::try_join!(
        reserve(db, "repo", n),
        reserve(db, "label", n * LABELS.len()),
        reserve(db, "milestone", n * MILESTONES.len()),
    )?;
    let mut out = Vec::with_capacity(n);
    for (i, (owner, name)) in names.into_iter().enumerate() {
        let record = repos::model::new_record(
            repo_id + i as i64,
            &owner,
            NewRepo {
                name: name.clone(),
                description: String::new(),
                private,
                default_branch: "main".into(),
            },
            now,
        );
        let mut repo = Repo {
            id: record.id,
            owner: owner.clone(),
            name,
            private,
            ..Repo::default()
        };
        w.push(repos::settings_item(&record)?).await?;
        for (k, l) in LABELS.iter().enumerate() {
            let label = LabelRecord {
                id: label_id + (i * LABELS.len() + k) as i64,
                name: l.to_string(),
                color: "ee0701".into(),
                description: String::new(),
                exclusive: false,
                is_archived: false,
                scope: labels::Scope::Repo {
                    id: repo.id,
                    full_name: record.full_name(),
                },
            };
            let mut item = db::to_item(&label)?;
            item.extend(keys::repo_label(repo.id, label.id));
            w.push(item).await?;
            repo.labels.push((label.id, label.name));
        }
        for (k, t) in MILESTONES.iter().enumerate() {
            let m = MilestoneRecord {
                id: milestone_id + (i * MILESTONES.len() + k) as i64,
                repo_id: repo.id,
                title: t.to_string(),
                created: now,
                updated: now,
                ..MilestoneRecord::default()
            };
            let mut item = db::to_item(&m)?;
            item.extend(keys::milestone(repo.id, m.id));
            w.push(item).await?;
            repo.milestones.push((m.id, m.title));
        }
        w.push(repo.stats_item()?).await?;
        out.push(repo);
    }
    Ok(out)
}

/// Files issues (and their comments) as the consumer would: the issue,
/// its document and entries; counters are added to `deltas`.
pub(crate) async fn file(
    w: &mut Writer,
    repos: &HashMap<i64, &Repo>,
    issues: &[IssueRecord],
    comments: &HashMap<(i64, i64), Vec<CommentRecord>>,
    deltas: &mut BTreeMap<(String, &'static str), i64>,
) -> Result<(), Error> {
    let mut names: HashMap<i64, (RepoFacts, HashMap<i64, String>)> = HashMap::new();
    for issue in issues {
        let repo = repos
            .get(&issue.repo_id)
            .ok_or("issue of an unknown repository")?;
        let (facts, label_names) = names.entry(repo.id).or_insert_with(|| {
            (
                repo.facts(),
                repo.labels.iter().cloned().collect::<HashMap<_, _>>(),
            )
        });
        let milestone_title = repo
            .milestones
            .iter()
            .find(|(id, _)| *id == issue.milestone)
            .map(|(_, t)| t.as_str());
        let cx = doc::Context {
            repo: facts,
            label_names,
            milestone_title,
        };
        let mut d = doc::Doc::derive(issue, &cx, None);
        let own = comments.get(&(issue.repo_id, issue.index));
        for c in own.into_iter().flatten() {
            d.count_comment(&c.body, 1);
        }
        for ((pk, sk), stub) in lists::entries(&d) {
            w.push(lists::entry_item(&pk, &sk, stub.as_ref())).await?;
        }
        for (k, n) in counts::deltas(None, Some(&d)) {
            *deltas.entry(k).or_insert(0) += n;
        }
        w.push(doc::Doc { rev: 1, ..d }.to_item()?).await?;
        w.push(issue.to_item()?).await?;
        for c in own.into_iter().flatten() {
            w.push(c.to_item()?).await?;
            for ((pk, sk), stub) in stubs::stubs(&c.place()) {
                w.push(stub.item(&pk, &sk)).await?;
            }
        }
    }
    Ok(())
}

pub(crate) async fn add_counts(
    db: &Db,
    deltas: &BTreeMap<(String, &'static str), i64>,
) -> Result<(), Error> {
    if deltas.is_empty() {
        return Ok(());
    }
    let mut tx = db.tx();
    // One shard takes the seed's counts (readers sum them all).
    counts::add(&mut tx, deltas, 0)?;
    db.transact(tx).await?;
    Ok(())
}
