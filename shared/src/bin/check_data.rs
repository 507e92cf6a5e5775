//! Operator command: checks what the API keeps as counters and claims
//! against what they count (`shared::doctor`), prints a JSON report, and
//! with `--repair` fixes what two scans, a few seconds apart, agree on (a
//! write in flight during one scan is not taken for drift). Exit status: 0
//! when nothing drifted (or everything was repaired), 1 when drift remains.
//!
//! Environment: `TABLE_NAME` / `DYNAMODB_ENDPOINT` as for the functions.

use shared::{
    Config,
    db::{self, Db},
    doctor::{self, Report},
};

type BoxError = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), BoxError> {
    let repair = std::env::args().any(|a| a == "--repair");
    let config = Config::from_env()?;
    let db = Db::new(db::connect(&config).await, config.table_name.clone());
    let inventory = doctor::scan(&db).await?;
    let mut report = Report {
        items_scanned: inventory.items,
        drift: doctor::check(&inventory),
        ..Report::default()
    };
    if repair && !report.drift.is_empty() {
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        let again = doctor::check(&doctor::scan(&db).await?);
        let (agreed, moving): (Vec<_>, Vec<_>) =
            again.into_iter().partition(|f| report.drift.contains(f));
        report.drift = agreed;
        doctor::repair(&db, &mut report).await?;
        report.skipped += moving.len();
        report.drift.extend(moving);
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    eprintln!(
        "check-data: {} items, {} drift, {} repaired, {} skipped",
        report.items_scanned,
        report.drift.len(),
        report.repaired,
        report.skipped
    );
    let remaining = report.drift.len() - report.repaired;
    std::process::exit(i32::from(remaining > 0));
}
