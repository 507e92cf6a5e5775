//! Operator command: checks what the API keeps as counters and claims
//! against what they count, and the search index against the issues
//! (the `doctor` crate), prints a JSON report (with the read units the scans
//! cost), and with `--repair` fixes what two scans, a few seconds apart,
//! agree on (a write in flight during one scan is not taken for drift).
//! Exit status: 0 when nothing drifted (or everything was repaired), 1
//! when drift remains (including findings that need a look).
//!
//! Environment: `TABLE_NAME` / `DYNAMODB_ENDPOINT` as for the functions,
//! and `SECRETS_KMS_KEY_ID` (the stack's `SecretsKey`) to seal secrets an
//! older release stored in the clear;
//! `DB_ATTEMPT_TIMEOUT_MS` / `DB_OPERATION_TIMEOUT_MS` default to 30 s and
//! 90 s here.

use std::{
    collections::HashSet,
    io::{BufWriter, Write},
    sync::Arc,
    time::Duration,
};

use doctor::Report;
use shared::{
    Config,
    db::{self, Db},
};

type BoxError = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let repair = std::env::args().any(|a| a == "--repair");
    let mut config = Config::from_env()?;
    // An operator's tool, not a request: a scan page (1 MB) or a batch of
    // writes may take longer than a request's bounds (DynamoDB Local takes
    // seconds per page of small items), unless the environment says.
    let unset = |name| std::env::var_os(name).is_none();
    if unset("DB_ATTEMPT_TIMEOUT_MS") {
        config.db_attempt_timeout = Duration::from_secs(30);
    }
    if unset("DB_OPERATION_TIMEOUT_MS") {
        config.db_operation_timeout = Duration::from_secs(90);
    }
    let clients = db::connect(&config).await;
    // Sealing the secrets an older release stored in the clear needs the
    // stack's key, as the functions have it.
    let sealer = Arc::new(shared::seal::Sealer::from_config(
        &config,
        clients.sdk.as_ref(),
    ));
    let db = Db::new(clients, config.table_name.clone());
    let inventory = doctor::scan(&db).await?;
    let mut report = Report {
        items_scanned: inventory.items,
        read_units: inventory.read_units,
        drift: doctor::check(&inventory),
        parked: doctor::parked::report(&inventory, shared::time::now_ms()),
        ..Report::default()
    };
    drop(inventory);
    if repair && !report.drift.is_empty() {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let inventory = doctor::scan(&db).await?;
        report.read_units += inventory.read_units;
        let again = doctor::check(&inventory);
        drop(inventory);
        // An upgrade finds millions of missing entries: look findings up
        // by hash, not by walking the first list for each.
        let (agreed, moving): (Vec<_>, Vec<_>) = {
            let first: HashSet<&doctor::Finding> = report.drift.iter().collect();
            again.into_iter().partition(|f| first.contains(f))
        };
        report.drift = agreed;
        doctor::repair(&db, &sealer, &mut report).await?;
        report.skipped += moving.len();
        report.drift.extend(moving);
    }
    // Written as it is serialised: the report may be large.
    let mut out = BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, &report)?;
    writeln!(out)?;
    out.flush()?;
    eprintln!(
        "check-data: {} items, {:.0} read units, {} drift, {} repaired, {} skipped, {} parked changes{}",
        report.items_scanned,
        report.read_units,
        report.drift.len(),
        report.repaired,
        report.skipped,
        report.parked.changes,
        report
            .parked
            .oldest_age_secs
            .map_or(String::new(), |s| format!(" (the oldest waiting {s} s)"))
    );
    let remaining = report.drift.len() - report.repaired;
    std::process::exit(i32::from(remaining > 0));
}
