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

mod filing;
mod issues;
mod people;
mod points;
mod random;
mod state;
mod writer;

use std::time::Instant;

use shared::{
    Config,
    db::{self, Db},
};

use crate::{
    people::setup,
    points::{point, private_side},
    state::State,
};

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
