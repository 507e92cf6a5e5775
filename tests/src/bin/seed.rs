//! Seeds the scale benchmark (`make bench-scale`, `bench/scale.py`)
//! straight into the table, as the stream consumer would have filed it:
//! each issue with its index document (`Doc::derive`), listing entries
//! (`lists::entries`) and counters (`counts::deltas`), each comment with its
//! listing entries (`index::stubs`). Nothing goes through the API or the
//! stream; writes are BatchWriteItem calls, several in flight.
//!
//!     seed setup STATE USER_TOKEN USER500_TOKEN
//!     seed point STATE N          (N = 1, 2, 3, 4, in that order)
//!
//! `setup` creates the people and the private side: public owners (users
//! `ada`, `linus`, `grace`; organisations `acme`, `teamorg`), posters
//! `dev00`..`dev11`, the ordinary user `alice` (token USER_TOKEN, member of
//! `teamorg`'s team `devs`, given 3 chosen repositories at point 1) and
//! `bob` (token USER500_TOKEN, in `privorg`'s team `all`, which includes
//! every repository: 500 private repositories of 2 issues each). The points
//! then grow the public side:
//!
//! 1. 40 public repositories, 2,000 issues: `ada/big` 1,000, `ada/small` 20,
//!    the other 38 about 26 each;
//! 2. 400 repositories (the 360 new ones empty), 2,000 issues;
//! 3. 2,000 repositories (the 1,600 new ones empty), 2,000 issues;
//! 4. 2,000 repositories, 20,000 issues: `ada/big` grows to 10,000, the other
//!    9,000 spread over the other 1,998 repositories (4 or 5 each; `small`
//!    keeps 20).
//!
//! Every repository has labels bug, feature, ui, docs and milestones v1, v2.
//! Texts come from a vocabulary of 400 words drawn with Zipf's law (titles
//! of 3-6 words, bodies of 2 KB). Issues carry 0-2 labels, 40 % a
//! milestone, 20 % are pull requests, 25 % closed. Created times: the first
//! point's issues 400 to 200 days ago; the fourth's are older history, 1,000
//! to 400 days ago (repositories interleaved in time), as when
//! repositories are migrated in with their past. So every point's first
//! pages show the same issues, spread over the same repositories, and
//! only the size of the table changes: when the fourth point's issues were
//! the newest, a page of `owner=acme` spread over 29 repositories instead
//! of 3, and the repository and label reads that come with a page's
//! repositories (up to 30 each) moved its cost by half, whatever the size.
//! Numbers follow the order of filing, not of creation. Each issue is
//! updated within 3 days of creation; a fixed set (50 public, 20 private,
//! all seeded by `setup` and point 1) was updated within the last day, as a
//! tracker's daily activity does not grow with its history. The rare word
//! is planted in 12 issues of point 1 and nowhere else; alice's relations
//! (60 created, 60 assigned, 60 mentioned, 40 pull requests asked to review,
//! 40 reviewed) and bob's (40, 40, 40, 20, 20, in `privorg`) are fixed too.
//! Issue 1 of `small` and of `big` has 40 comments, 6 of the last day.
//! STATE (JSON) carries what the next point and `scale.py` need.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    time::{Duration, Instant},
};

use aws_sdk_dynamodb::{
    config::timeout::TimeoutConfig,
    error::DisplayErrorContext,
    types::{PutRequest, ReturnValue, WriteRequest},
};
use serde::{Deserialize, Serialize};
use shared::{
    Config,
    accounts::{
        names::{Email, OwnerName, Visibility},
        orgs::{self, NewOrg},
        teams::{self, AccessMode, NewTeam},
        tokens::{self, NewToken},
        users::{self, NewUser, UserRecord},
    },
    auth::scope::Scopes,
    db::{self, Db, DbError, Item, keys},
    issues::{
        IssueRecord,
        comments::CommentRecord,
        index::stubs,
        index::{class::RepoFacts, counts, doc, lists},
    },
    labels::{self, LabelRecord},
    milestones::MilestoneRecord,
    repos::{self, NewRepo, RepoStats},
    time, words,
};
use tokio::task::JoinSet;

type Error = Box<dyn std::error::Error>;

const DAY: i64 = 86_400;
const PUBLIC_OWNERS: [&str; 5] = ["ada", "linus", "grace", "acme", "teamorg"];
const ORGS: [&str; 2] = ["acme", "teamorg"];
const LABELS: [&str; 4] = ["bug", "feature", "ui", "docs"];
const MILESTONES: [&str; 2] = ["v1", "v2"];
const DEVS: usize = 12;
const VOCABULARY: usize = 400;
const BODY_BYTES: usize = 2_000;
/// Public repositories at each point, and issues added to them.
const POINTS: [(usize, usize); 4] = [(40, 2_000), (400, 0), (2_000, 0), (2_000, 18_000)];
const PRIVATE_REPOS: usize = 500;
const PRIVATE_ISSUES_EACH: usize = 2;
const SMALL_ISSUES: usize = 20;
const BIG_FIRST: usize = 1_000;
const BIG_LAST: usize = 10_000;
const RARE_MATCHES: usize = 12;
const COMMENTS: usize = 40;
const RECENT_COMMENTS: usize = 6;
/// BatchWriteItem calls in flight (`SEED_CONCURRENCY`).
const IN_FLIGHT: usize = 8;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Repo {
    id: i64,
    owner: String,
    name: String,
    private: bool,
    labels: Vec<(i64, String)>,
    milestones: Vec<(i64, String)>,
    last_index: i64,
    issues: i64,
    closed_issues: i64,
    pulls: i64,
    closed_pulls: i64,
    issue_comments: i64,
    pull_comments: i64,
}

impl Repo {
    fn stats_item(&self) -> Result<Item, DbError> {
        let stats = RepoStats {
            num_issues: self.issues,
            num_closed_issues: self.closed_issues,
            num_pulls: self.pulls,
            num_closed_pulls: self.closed_pulls,
            last_index: self.last_index,
            num_issue_comments: self.issue_comments,
            num_pull_comments: self.pull_comments,
            owner: self.owner.clone(),
            name: self.name.clone(),
            private: Some(self.private),
            has_issues: Some(true),
            has_pull_requests: Some(true),
            ..RepoStats::default()
        };
        let mut item = db::to_item(&stats)?;
        item.extend(keys::repo_stats(self.id));
        Ok(item)
    }

    fn facts(&self) -> RepoFacts {
        RepoFacts {
            id: self.id,
            owner: self.owner.clone(),
            private: self.private,
            owner_visibility: Visibility::Public,
            has_issues: true,
            has_pulls: true,
        }
    }
}

/// What `setup` and each point leave for the next and for `scale.py`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    now: i64,
    point: usize,
    rng: u64,
    /// `since` (recent) and `before` (old) as the bench asks them.
    since: i64,
    before: i64,
    vocabulary: Vec<String>,
    common_word: String,
    common_share: f64,
    rare_word: String,
    owners: Vec<String>,
    filter_owner: String,
    user: String,
    user500: String,
    team_org: String,
    team: String,
    team_repos: Vec<String>,
    private_org: String,
    private_team: String,
    repos: Vec<Repo>,
    private_repos: Vec<Repo>,
    small: usize,
    big: usize,
    /// Items written and seconds taken, per step.
    steps: Vec<(String, u64, f64)>,
}

/// splitmix64: small, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo).max(1) as u64) as i64
    }

    /// `n` distinct positions of `0..len`, in random order.
    fn pick(&mut self, len: usize, n: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..len).collect();
        let n = n.min(len);
        for i in 0..n {
            let j = i + self.below(len - i);
            all.swap(i, j);
        }
        all.truncate(n);
        all
    }
}

/// Words drawn with Zipf's law (exponent 1) over the vocabulary.
struct Zipf<'a> {
    words: &'a [String],
    cdf: Vec<f64>,
}

impl<'a> Zipf<'a> {
    fn new(words: &'a [String]) -> Self {
        let mut sum = 0.0;
        let mut cdf = Vec::with_capacity(words.len());
        for r in 0..words.len() {
            sum += 1.0 / (r + 1) as f64;
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Self { words, cdf }
    }

    fn word(&self, rng: &mut Rng) -> &'a str {
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let at = self.cdf.partition_point(|c| *c < u);
        &self.words[at.min(self.words.len() - 1)]
    }

    fn title(&self, rng: &mut Rng) -> String {
        let n = 3 + rng.below(4);
        (0..n).map(|_| self.word(rng)).collect::<Vec<_>>().join(" ")
    }

    fn body(&self, rng: &mut Rng) -> String {
        let mut out = String::with_capacity(BODY_BYTES + 16);
        let mut n = 0;
        while out.len() < BODY_BYTES {
            out.push_str(self.word(rng));
            n += 1;
            out.push_str(if n % 12 == 0 { ". " } else { " " });
        }
        out
    }
}

/// Pronounceable words that the index keeps as they are (one token, no
/// stop word).
fn vocabulary(rng: &mut Rng, n: usize) -> Vec<String> {
    const C: [&str; 16] = [
        "b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "st",
    ];
    const V: [&str; 6] = ["a", "e", "i", "o", "u", "ou"];
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while out.len() < n {
        let syllables = 2 + rng.below(2);
        let w: String = (0..syllables)
            .map(|_| format!("{}{}", C[rng.below(C.len())], V[rng.below(V.len())]))
            .collect();
        if words::words(&w) == [w.clone()] && seen.insert(w.clone()) {
            out.push(w);
        }
    }
    out
}

/// BatchWriteItem calls of 25 items, [`IN_FLIGHT`] at once, each on a task
/// of its own so they proceed while the next items are computed. They go
/// to the client directly, without `ReturnConsumedCapacity`: DynamoDB
/// Local spends about 60 % more time per item when asked for it, and the
/// seeding's own cost is not what the bench measures.
struct Writer {
    client: aws_sdk_dynamodb::Client,
    table: String,
    buf: Vec<Item>,
    flying: JoinSet<Result<(), String>>,
    most: usize,
    written: u64,
}

impl Writer {
    fn new(db: &Db) -> Self {
        let most = std::env::var("SEED_CONCURRENCY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(IN_FLIGHT);
        // The functions' client gives up after 3.5 s; a seeding call may
        // wait out a pause of DynamoDB Local's JVM.
        let timeouts = TimeoutConfig::builder()
            .operation_timeout(Duration::from_secs(60))
            .operation_attempt_timeout(Duration::from_secs(30))
            .build();
        let config = db.client().config().to_builder().timeout_config(timeouts);
        Self {
            client: aws_sdk_dynamodb::Client::from_conf(config.build()),
            table: db.table().to_string(),
            buf: Vec::with_capacity(25),
            flying: JoinSet::new(),
            most,
            written: 0,
        }
    }

    async fn push(&mut self, item: Item) -> Result<(), Error> {
        self.buf.push(item);
        if self.buf.len() == 25 {
            self.send().await?;
        }
        Ok(())
    }

    async fn send(&mut self) -> Result<(), Error> {
        while self.flying.len() >= self.most {
            if let Some(done) = self.flying.join_next().await {
                done??;
            }
        }
        let batch = std::mem::take(&mut self.buf);
        self.written += batch.len() as u64;
        let (client, table) = (self.client.clone(), self.table.clone());
        self.flying.spawn(write(client, table, batch));
        Ok(())
    }

    async fn finish(mut self) -> Result<u64, Error> {
        if !self.buf.is_empty() {
            self.send().await?;
        }
        while let Some(done) = self.flying.join_next().await {
            done??;
        }
        Ok(self.written)
    }
}

/// One BatchWriteItem, again with what DynamoDB left unprocessed.
async fn write(
    client: aws_sdk_dynamodb::Client,
    table: String,
    items: Vec<Item>,
) -> Result<(), String> {
    let mut pending = items
        .into_iter()
        .map(|i| {
            let put = PutRequest::builder()
                .set_item(Some(i))
                .build()
                .map_err(|e| e.to_string())?;
            Ok(WriteRequest::builder().put_request(put).build())
        })
        .collect::<Result<Vec<_>, String>>()?;
    for attempt in 0..8u64 {
        let sent = client
            .batch_write_item()
            .request_items(&table, pending.clone())
            .send()
            .await;
        match sent {
            Ok(out) => {
                pending = out
                    .unprocessed_items
                    .and_then(|mut m| m.remove(&table))
                    .unwrap_or_default();
                if pending.is_empty() {
                    return Ok(());
                }
            }
            // Puts are idempotent: a call DynamoDB Local was too slow to
            // answer (a pause of its JVM) is sent again.
            Err(e) if attempt < 7 => {
                eprintln!("BatchWriteItem again: {}", DisplayErrorContext(e));
            }
            Err(e) => return Err(format!("BatchWriteItem: {}", DisplayErrorContext(e))),
        }
        tokio::time::sleep(Duration::from_millis(20 << attempt)).await;
    }
    Err("writes left unprocessed after 8 attempts".into())
}

/// Reserves `n` ids of a counter (`COUNTER#<name>`, as `Db::next_id`
/// hands them out): the first of them.
async fn reserve(db: &Db, counter: &str, n: usize) -> Result<i64, Error> {
    let attrs = db
        .update(|u| {
            u.set_key(Some(keys::key(&format!("COUNTER#{counter}"), "COUNTER")))
                .update_expression("ADD n :n")
                .expression_attribute_values(":n", db::n(n))
                .return_values(ReturnValue::UpdatedNew)
        })
        .await?
        .unwrap_or_default();
    let last: i64 = attrs
        .get("n")
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
        .ok_or("counter without a number")?;
    Ok(last - n as i64 + 1)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    let config = Config::from_env()?;
    let db = Db::new(db::connect(&config).await, config.table_name.clone());
    match args.as_slice() {
        [_, cmd, state, user_token, user500_token] if cmd == "setup" => {
            let started = Instant::now();
            let mut st = setup(&db, user_token, user500_token).await?;
            let written = private_side(&db, &mut st).await?;
            st.steps
                .push(("setup".into(), written, started.elapsed().as_secs_f64()));
            report(&st);
            save(state, &st)
        }
        [_, cmd, state, n] if cmd == "point" => {
            let mut st: State = serde_json::from_str(&std::fs::read_to_string(state)?)?;
            let n: usize = n.parse()?;
            if n != st.point + 1 || !(1..=POINTS.len()).contains(&n) {
                return Err(format!("point {n} cannot follow point {}", st.point).into());
            }
            let started = Instant::now();
            let written = point(&db, &mut st, n).await?;
            st.point = n;
            st.steps.push((
                format!("point {n}"),
                written,
                started.elapsed().as_secs_f64(),
            ));
            report(&st);
            save(state, &st)
        }
        _ => Err("usage: seed setup STATE USER_TOKEN USER500_TOKEN | seed point STATE N".into()),
    }
}

fn save(path: &str, st: &State) -> Result<(), Error> {
    std::fs::write(path, serde_json::to_string(st)?)?;
    Ok(())
}

fn report(st: &State) {
    if let Some((step, items, secs)) = st.steps.last() {
        let issues: i64 = st.repos.iter().map(|r| r.last_index).sum();
        println!(
            "seeded {step}: {items} items in {secs:.1} s ({:.0} items/s); now {} public repositories, {issues} public issues, {} private repositories",
            *items as f64 / secs.max(0.001),
            st.repos.len(),
            st.private_repos.len(),
        );
    }
}

async fn user(db: &Db, name: &str) -> Result<UserRecord, Error> {
    Ok(users::create(
        db,
        NewUser {
            name: OwnerName::parse("name", name)?,
            email: Email::parse("email", &format!("{name}@example.com"))?,
            full_name: String::new(),
            password: None,
            visibility: Visibility::Public,
            is_admin: false,
            restricted: false,
        },
    )
    .await?)
}

async fn org(db: &Db, creator: &UserRecord, name: &str) -> Result<UserRecord, Error> {
    Ok(orgs::create(
        db,
        creator,
        NewOrg {
            name: OwnerName::parse("username", name)?,
            full_name: String::new(),
            email: None,
            description: String::new(),
            website: String::new(),
            location: String::new(),
            visibility: Visibility::Public,
            repo_admin_change_team_access: false,
        },
    )
    .await?)
}

async fn token(db: &Db, holder: &UserRecord, secret: &str) -> Result<(), Error> {
    let new = NewToken {
        name: "scale".into(),
        scopes: Scopes::parse(&["all"]).map_err(|e| e.to_string())?,
        team: holder.name.clone(),
    };
    tokens::create_with_secret(db, holder, new, secret).await?;
    Ok(())
}

async fn team(
    db: &Db,
    org: &UserRecord,
    name: &str,
    all: bool,
    member: &str,
) -> Result<teams::TeamRecord, Error> {
    let t = teams::create(
        db,
        org,
        NewTeam {
            name: name.into(),
            description: String::new(),
            permission: AccessMode::Read,
            units: teams::parse_units(AccessMode::Read, None, None)?,
            includes_all_repositories: all,
            can_create_org_repo: false,
        },
    )
    .await?;
    teams::add_member(db, &t, member).await?;
    Ok(t)
}

/// People, owners and teams.
async fn setup(db: &Db, user_token: &str, user500_token: &str) -> Result<State, Error> {
    let root = users::get(db, "root")
        .await?
        .ok_or("the bootstrap admin `root` is missing")?;
    for o in PUBLIC_OWNERS.iter().filter(|o| !ORGS.contains(o)) {
        user(db, o).await?;
    }
    for o in ORGS {
        org(db, &root, o).await?;
    }
    for i in 0..DEVS {
        user(db, &format!("dev{i:02}")).await?;
    }
    let alice = user(db, "alice").await?;
    let bob = user(db, "bob").await?;
    token(db, &alice, user_token).await?;
    token(db, &bob, user500_token).await?;
    let teamorg = users::get(db, "teamorg").await?.ok_or("teamorg")?;
    team(db, &teamorg, "devs", false, "alice").await?;
    let privorg = org(db, &root, "privorg").await?;
    team(db, &privorg, "all", true, "bob").await?;

    let now = time::now();
    let mut rng = Rng(0x5CA1_E5EE_D000_0001);
    let vocabulary = vocabulary(&mut rng, VOCABULARY + 1);
    let (rare, vocabulary) = vocabulary.split_last().ok_or("vocabulary")?;
    Ok(State {
        now,
        rng: rng.0,
        since: now - 2 * DAY,
        before: now - 60 * DAY,
        vocabulary: vocabulary.to_vec(),
        rare_word: rare.clone(),
        owners: PUBLIC_OWNERS.iter().map(|s| s.to_string()).collect(),
        filter_owner: "acme".into(),
        user: "alice".into(),
        user500: "bob".into(),
        team_org: "teamorg".into(),
        team: "devs".into(),
        private_org: "privorg".into(),
        private_team: "all".into(),
        ..State::default()
    })
}

/// New repositories of `owner`s (round robin), each with its labels and
/// milestones.
async fn new_repos(
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

/// An issue's made-up fields; relations and recent updates are set later.
fn make_issue(rng: &mut Rng, zipf: &Zipf, repo: &mut Repo, id: i64, created: i64) -> IssueRecord {
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
fn count(repo: &mut Repo, issue: &IssueRecord) {
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
fn relate(
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
fn freshen(rng: &mut Rng, now: i64, issues: &mut [IssueRecord], n: usize, firsts: &[(i64, usize)]) {
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

/// Files issues (and their comments) as the consumer would: the issue,
/// its document and entries; counters are added to `deltas`.
async fn file(
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
        for (pk, sk) in lists::entries(&d) {
            w.push(keys::key(&pk, &sk)).await?;
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

async fn add_counts(db: &Db, deltas: &BTreeMap<(String, &'static str), i64>) -> Result<(), Error> {
    if deltas.is_empty() {
        return Ok(());
    }
    let mut tx = db.tx();
    counts::add(&mut tx, deltas)?;
    db.transact(tx).await?;
    Ok(())
}

/// `privorg`'s 500 private repositories, 2 issues each, bob's relations.
async fn private_side(db: &Db, st: &mut State) -> Result<u64, Error> {
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
async fn point(db: &Db, st: &mut State, n: usize) -> Result<u64, Error> {
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
