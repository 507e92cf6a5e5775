//! Seeds a table with many issues for the scale benchmarks, straight
//! through the storage layer (the API would take minutes for 10,000):
//!
//!     seed OWNER PREFIX REPOS ISSUES_PER_REPO [private]
//!     seed user NAME TOKEN
//!
//! The first creates user-owned repositories `PREFIX-0..REPOS` of OWNER
//! (an existing user), public unless `private`, holding ISSUES_PER_REPO
//! issues each (every tenth closed, every fifth a pull request), with
//! counters and search index entries to match. The second creates an
//! ordinary user with a token whose secret is TOKEN.

use shared::{
    Config,
    accounts::{
        names::{Email, OwnerName, Visibility},
        tokens::{self, NewToken},
        users::{self, NewUser},
    },
    auth::scope::Scopes,
    db::{self, Db, keys},
    issues::{
        IssueRecord,
        index::{context, counts, doc, lists},
    },
    repos::{self, NewRepo, RepoStats},
    time,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let config = Config::from_env()?;
    let db = Db::new(db::connect(&config).await, config.table_name.clone());
    if let [_, user, name, secret] = args.as_slice()
        && user == "user"
    {
        return seed_user(&db, name, secret).await;
    }
    let (owner, prefix, repos_n, issues_n, private) = match args.as_slice() {
        [_, o, p, r, i] => (o, p, r, i, false),
        [_, o, p, r, i, private] if private == "private" => (o, p, r, i, true),
        _ => return Err("usage: seed OWNER PREFIX REPOS ISSUES_PER_REPO [private]".into()),
    };
    let (repos_n, issues_n): (usize, i64) = (repos_n.parse()?, issues_n.parse()?);
    let owner = users::get(&db, owner)
        .await?
        .ok_or("owner does not exist")?;
    let now = time::now();
    for r in 0..repos_n {
        let new = NewRepo {
            name: format!("{prefix}-{r}"),
            description: String::new(),
            private,
            default_branch: "main".into(),
        };
        let repo = repos::create(&db, &owner, new).await?;
        let mut stats = RepoStats {
            owner: repo.owner.clone(),
            name: repo.name.clone(),
            last_index: issues_n,
            private: Some(repo.private),
            has_issues: Some(repo.has_issues),
            has_pull_requests: Some(repo.has_pull_requests),
            ..RepoStats::default()
        };
        let mut items = Vec::new();
        let mut issues = Vec::new();
        for n in 1..=issues_n {
            let issue = IssueRecord {
                id: repo.id * 1_000_000 + n,
                repo_id: repo.id,
                index: n,
                is_pull: n % 5 == 0,
                title: format!("Scale issue {n} of {}", repo.name),
                body: "Seeded for the scale benchmark.".into(),
                poster: owner.name.to_lowercase(),
                closed: n % 10 == 0,
                created: now - issues_n + n,
                updated: now - issues_n + n,
                version: 1,
                ..IssueRecord::default()
            };
            let (total, closed) = if issue.is_pull {
                (&mut stats.num_pulls, &mut stats.num_closed_pulls)
            } else {
                (&mut stats.num_issues, &mut stats.num_closed_issues)
            };
            *total += 1;
            *closed += i64::from(issue.closed);
            items.push(issue.to_item()?);
            issues.push(issue);
        }
        db.batch_put(items).await?;
        let mut stats_item = db::to_item(&stats)?;
        stats_item.extend(keys::repo_stats(repo.id));
        db.batch_put(vec![stats_item]).await?;
        // Filed in the search index as its consumer would file them.
        let cx = context::load(&db, repo.id)
            .await?
            .ok_or("repository gone")?;
        let mut filed = Vec::new();
        let mut deltas = std::collections::BTreeMap::new();
        for issue in &issues {
            let context = doc::Context {
                repo: &cx.facts,
                label_names: &cx.label_names,
                milestone_title: None,
            };
            let d = doc::Doc::derive(issue, &context, None);
            filed.extend(lists::entries(&d).iter().map(|(pk, sk)| keys::key(pk, sk)));
            for (k, n) in counts::deltas(None, Some(&d)) {
                *deltas.entry(k).or_insert(0) += n;
            }
            filed.push(doc::Doc { rev: 1, ..d }.to_item()?);
        }
        db.batch_put(filed).await?;
        let mut tx = db.tx();
        counts::add(&mut tx, &deltas)?;
        db.transact(tx).await?;
    }
    println!(
        "seeded {repos_n} repositories of {} with {issues_n} issues each",
        owner.name
    );
    Ok(())
}

async fn seed_user(db: &Db, name: &str, secret: &str) -> Result<(), Box<dyn std::error::Error>> {
    let new = NewUser {
        name: OwnerName::parse("name", name)?,
        email: Email::parse("email", &format!("{name}@example.com"))?,
        full_name: String::new(),
        password: None,
        visibility: Visibility::Public,
        is_admin: false,
        restricted: false,
    };
    let user = users::create(db, new).await?;
    let token = NewToken {
        name: "scale".into(),
        scopes: Scopes::parse(&["all"]).map_err(|e| e.to_string())?,
        team: user.name.clone(),
    };
    tokens::create_with_secret(db, &user, token, secret).await?;
    println!("seeded user {name}");
    Ok(())
}
