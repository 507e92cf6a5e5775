//! A run's log: lines its runner sends, one item each (`DEPLOG#<uuid>` /
//! `L#<seq>`, kept 30 days), shown by `GET /deployments/{uuid}` as Coolify
//! does (`logs`: a JSON text of `[{output, type, timestamp, hidden}]`).
//!
//! Bounds: 100 lines a call, 4 KiB a line; 5,000 lines and 1 MiB a
//! deployment, after which one line saying so is the last kept. Sizes are
//! counted as the line's JSON text (escapes included), so the shown log
//! stays within a few MiB of response however the lines are made.
//!
//! A call first takes numbers from the deployment's counters, then
//! writes its lines: by `ADD` when all of them fit whatever the counts are
//! (racing calls then take distinct numbers at once), else, near a bound,
//! by setting the counts on condition they are as read. A failure between
//! the two leaves a gap in the numbers, never two lines under one.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::{
    Config,
    auth::Runner,
    db::{self, Change, Cond, Consistency, Db, Item, Query, Returns, keys, table},
    deploy::{
        deployments,
        error::{Error, Result},
        lifecycle::Status,
        model::{input::Problems, timestamp},
        team::Team,
    },
};

use super::mask;

pub const MAX_LINES_PER_CALL: usize = 100;
pub const MAX_LINE_BYTES: usize = 4096;
pub const MAX_LINES: u32 = 5000;
pub const MAX_BYTES: u64 = 1 << 20;
/// Room kept for the closing line.
const CLOSING_ROOM: u64 = 256;
const KEEP_SECS: i64 = 30 * 86_400;

/// The closing line once a log is full.
pub const FULL: &str =
    "The log reached its limit of 5000 lines or 1 MiB; later lines were dropped.";

/// A line's size as counted against the bounds.
pub fn size_of(output: &str) -> u64 {
    serde_json::to_string(output).map_or(0, |t| t.len() as u64)
}

/// `s` cut to a line's most bytes (at a character boundary).
pub fn clip(s: &str) -> String {
    let mut end = s.len().min(MAX_LINE_BYTES);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The item of line `seq`.
pub fn line_item(deployment: &str, seq: u32, output: &str, kind: &str, hidden: bool) -> Item {
    let mut it = keys::deployment_log_line(deployment, seq);
    it.insert("output".into(), db::s(output));
    it.insert("type".into(), db::s(kind));
    it.insert("timestamp".into(), db::s(timestamp()));
    it.insert("hidden".into(), db::b(hidden));
    it.insert(table::TTL.into(), db::n(crate::time::now() + KEEP_SECS));
    it
}

/// One line as a runner sends it.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LogLineOption {
    pub output: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub hidden: bool,
}

/// The `{lines: [...]}` of a logs call, checked against its bounds.
pub fn parse(body: &Value) -> Result<Vec<LogLineOption>> {
    let mut problems = Problems::default();
    let Some(obj) = body.as_object() else {
        return Err(Error::field("lines", "The lines field is required."));
    };
    for k in obj.keys().filter(|k| *k != "lines") {
        problems.add(k, "This field is not allowed.");
    }
    let Some(raw) = obj.get("lines").and_then(Value::as_array) else {
        return Err(Error::field("lines", "The lines field must be an array."));
    };
    if raw.len() > MAX_LINES_PER_CALL {
        problems.add(
            "lines",
            format!("The lines field must not have more than {MAX_LINES_PER_CALL} items."),
        );
    }
    let mut lines = Vec::new();
    for (i, v) in raw.iter().enumerate() {
        match serde_json::from_value::<LogLineOption>(v.clone()) {
            Err(e) => problems.add(&format!("lines.{i}"), format!("Not a log line: {e}.")),
            Ok(l) if l.output.len() > MAX_LINE_BYTES => problems.add(
                &format!("lines.{i}.output"),
                format!("The output must not be greater than {MAX_LINE_BYTES} bytes."),
            ),
            Ok(l) if l.kind != "stdout" && l.kind != "stderr" => problems.add(
                &format!("lines.{i}.type"),
                "The type must be stdout or stderr.",
            ),
            Ok(l) => lines.push(l),
        }
    }
    problems.into_result()?;
    Ok(lines)
}

/// What a logs call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    pub accepted: usize,
    pub dropped: usize,
    pub cancel: bool,
}

/// Which of `lines` fit after `lines_before` lines of `bytes_before`
/// bytes: how many are kept, whether the closing line follows them, and
/// the counts after.
fn fit(lines_before: u32, bytes_before: u64, lines: &[LogLineOption]) -> (usize, bool, u32, u64) {
    let (mut n, mut bytes) = (lines_before, bytes_before);
    if n >= MAX_LINES {
        return (0, false, n, bytes);
    }
    for (i, l) in lines.iter().enumerate() {
        let size = size_of(&l.output);
        if n + 1 >= MAX_LINES || bytes + size > MAX_BYTES - CLOSING_ROOM {
            // The closing line is the last: no line comes after it.
            return (i, true, MAX_LINES, bytes + size_of(FULL));
        }
        n += 1;
        bytes += size;
    }
    (lines.len(), false, n, bytes)
}

/// Appends `lines` to the runner's run; a sign of life, too.
pub async fn append(
    db: &Db,
    config: &Config,
    team: &Team,
    runner: &Runner,
    uuid: &str,
    lines: &[LogLineOption],
) -> Result<Appended> {
    let mut read = Some(super::held(db, config, team, runner, uuid).await?);
    // Whatever the runner sent, no stored line holds a variable's value.
    let first = read.as_ref().expect("just read");
    let needles = mask::for_run(
        db,
        team,
        &first.application_uuid,
        first.pull_request_id != 0,
    )
    .await?;
    let lines: Vec<LogLineOption> = lines
        .iter()
        .map(|l| LogLineOption {
            output: mask::mask(&l.output, &needles),
            kind: l.kind.clone(),
            hidden: l.hidden,
        })
        .collect();
    let lines = lines.as_slice();
    if let Some(d) = read.take() {
        if let Some(first) = reserve(db, team, runner, &d, lines).await? {
            let items: Vec<Item> = lines
                .iter()
                .zip(first..)
                .map(|(l, seq)| line_item(uuid_of(&d), seq, &l.output, &l.kind, l.hidden))
                .collect();
            if !items.is_empty() {
                db.batch_put(items).await?;
            }
            return Ok(Appended {
                accepted: lines.len(),
                dropped: 0,
                cancel: d.state()? == Status::Cancelled,
            });
        }
        read = Some(d);
    }
    // Near a bound (or when the run ended): fit what is left, on condition
    // the counts are as read.
    for _ in 0..5 {
        let d = match read.take() {
            Some(d) => d,
            None => super::held(db, config, team, runner, uuid).await?,
        };
        let (kept, closing, after_lines, after_bytes) = fit(d.log_lines, d.log_bytes, lines);
        let counts = Change::new()
            .set("log_lines", db::n(after_lines))
            .set("log_bytes", db::n(after_bytes))
            .set("heartbeat_at", db::s(timestamp()));
        let as_read = running(runner).and(Cond::unset_or_eq("log_lines", db::n(d.log_lines)));
        let moved = db
            .change(
                deployments::key_of(team, &d.deployment_uuid),
                counts,
                Some(as_read),
                Returns::Nothing,
            )
            .await;
        match moved {
            Ok(_) => {}
            // Another call took these numbers, or the run ended: again.
            Err(db::DbError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
        let mut items: Vec<Item> = lines[..kept]
            .iter()
            .zip(d.log_lines..)
            .map(|(l, seq)| line_item(uuid_of(&d), seq, &l.output, &l.kind, l.hidden))
            .collect();
        if closing {
            items.push(line_item(
                uuid_of(&d),
                d.log_lines + kept as u32,
                FULL,
                "stderr",
                false,
            ));
        }
        if !items.is_empty() {
            db.batch_put(items).await?;
        }
        return Ok(Appended {
            accepted: kept,
            dropped: lines.len() - kept,
            cancel: d.state()? == Status::Cancelled,
        });
    }
    Err(Error::Busy("the log keeps changing; retry"))
}

/// Takes numbers for all of `lines` at once when they fit below the
/// bounds however the counts stand (`ADD`, on condition there is room):
/// calls that race take distinct numbers without a retry. The first
/// number, or `None` when they might not fit (or the run is not the
/// runner's any more).
async fn reserve(
    db: &Db,
    team: &Team,
    runner: &Runner,
    d: &deployments::DeploymentRecord,
    lines: &[LogLineOption],
) -> Result<Option<u32>> {
    let n = lines.len() as u32;
    let bytes: u64 = lines.iter().map(|l| size_of(&l.output)).sum();
    // Room for these and for the closing line stays after them.
    let (Some(most_lines), Some(most_bytes)) = (
        (MAX_LINES - 1).checked_sub(n),
        (MAX_BYTES - CLOSING_ROOM).checked_sub(bytes),
    ) else {
        return Ok(None);
    };
    let taken = Change::new()
        .add("log_lines", db::n(n))
        .add("log_bytes", db::n(bytes))
        .set("heartbeat_at", db::s(timestamp()));
    let room = running(runner)
        .and(Cond::at_most("log_lines", db::n(most_lines)))
        .and(Cond::at_most("log_bytes", db::n(most_bytes)));
    let moved = db
        .change(
            deployments::key_of(team, &d.deployment_uuid),
            taken,
            Some(room),
            Returns::UpdatedNew,
        )
        .await;
    match moved {
        Ok(attrs) => {
            let after = attrs
                .as_ref()
                .map(|a| db::number(a, "log_lines"))
                .ok_or(Error::Internal("the log's count was not returned"))?;
            let after =
                u32::try_from(after).map_err(|_| Error::Internal("a log count out of range"))?;
            Ok(Some(
                after
                    .checked_sub(n)
                    .ok_or(Error::Internal("the log's count went back"))?,
            ))
        }
        Err(db::DbError::ConditionFailed) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The run is still `runner`'s: it holds it and has not let go.
fn running(runner: &Runner) -> Cond {
    Cond::eq("runner_uuid", db::s(&runner.runner_uuid)).and(Cond::lacks("ended_at"))
}

fn uuid_of(d: &deployments::DeploymentRecord) -> &str {
    &d.deployment_uuid
}

/// The log of a deployment as Coolify shows it, `None` before any line.
pub async fn shown(db: &Db, deployment: &str) -> Result<Option<String>> {
    let log = Query::table(keys::deployment_log_pk(deployment)).consistency(Consistency::Eventual);
    let shown: Vec<Value> = db
        .query_all(log)
        .await?
        .iter()
        .map(|it| {
            json!({
                "output": db::text(it, "output"),
                "type": db::text(it, "type"),
                "timestamp": db::text(it, "timestamp"),
                "hidden": it.get("hidden").and_then(|h| h.as_bool().ok()).copied().unwrap_or(false),
            })
        })
        .collect();
    Ok((!shown.is_empty()).then(|| Value::Array(shown).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(output: &str) -> LogLineOption {
        LogLineOption {
            output: output.into(),
            kind: "stdout".into(),
            hidden: false,
        }
    }

    #[test]
    fn lines_fit_until_a_bound_then_one_closing_line() {
        let few = vec![line("a"), line("b")];
        assert_eq!(fit(0, 0, &few), (2, false, 2, 6));
        // One line short of the most: the next is the closing line.
        let (kept, closing, n, _) = fit(MAX_LINES - 2, 0, &few);
        assert_eq!((kept, closing, n), (1, true, MAX_LINES));
        // Full: nothing more, and no second closing line.
        assert_eq!(fit(MAX_LINES, 10, &few), (0, false, MAX_LINES, 10));
        // Bytes: a line that would pass the MiB closes the log.
        let big = vec![line(&"x".repeat(4000))];
        let (kept, closing, n, _) = fit(7, MAX_BYTES - 1000, &big);
        assert_eq!((kept, closing, n), (0, true, MAX_LINES));
    }

    #[test]
    fn calls_are_bounded_and_lines_checked() {
        let ok = json!({"lines": [{"output": "hi", "type": "stdout"}]});
        assert_eq!(parse(&ok).unwrap(), vec![line("hi")]);
        let many: Vec<Value> = (0..101)
            .map(|_| json!({"output": "x", "type": "stdout"}))
            .collect();
        for (body, field) in [
            (json!({"lines": many}), "lines"),
            (json!({"lines": "x"}), "lines"),
            (json!({"lines": [], "extra": 1}), "extra"),
            (
                json!({"lines": [{"output": "x".repeat(4097), "type": "stdout"}]}),
                "lines.0.output",
            ),
            (
                json!({"lines": [{"output": "x", "type": "log"}]}),
                "lines.0.type",
            ),
            (
                json!({"lines": [{"output": 1, "type": "stdout"}]}),
                "lines.0",
            ),
        ] {
            match parse(&body) {
                Err(Error::Invalid(f)) => assert!(f.contains_key(field), "{body}: {f:?}"),
                other => panic!("{body}: {other:?}"),
            }
        }
        assert_eq!(clip(&"é".repeat(3000)).len(), 4096);
    }
}
