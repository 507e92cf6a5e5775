//! An application's container logs (Coolify's `GET /applications/{uuid}/logs`).
//! A Lambda function cannot reach the server, so the server's runner
//! fetches them, on request:
//!
//! 1. a reader's call files an ask under the server (`SRVLOGS#<server>`,
//!    one item per application, overwritten) and answers 503 with
//!    `Retry-After` until lines newer than [`FRESH`] are kept;
//! 2. the runner's next claim (when it says it reads asks) hands it the
//!    asks; it runs `docker logs --tail N` and sends the text back;
//! 3. the API masks it with the variables' current values, keeps it
//!    (`APPLOGS#<app>` in the team's partition, at most [`MAX_BYTES`]) and
//!    drops the ask it answered. Readers get it, masked again with the
//!    values current then.
//!
//! A call costs a read or two and at most one write, whatever the logs.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value, json};

use crate::{
    auth::Runner,
    db::{self, Cond, Db, Item, Query, keys},
    deploy::{
        apps::AppRecord,
        error::{Error, Result},
        model::timestamp,
        runners,
        runs::mask,
        team::Team,
    },
};

/// Lines a reader gets unless they ask otherwise (Coolify's default).
pub const DEFAULT_LINES: usize = 100;
/// The most lines one call may ask for.
pub const MAX_LINES: usize = 10_000;
/// The most text kept (the last lines that fit): well inside an item's
/// 400 KB and a response's 6 MB.
pub const MAX_BYTES: usize = 256 * 1024;
/// How old kept lines may be and still answer a reader.
pub const FRESH: Duration = Duration::seconds(15);
/// Asks one claim hands over.
const ASKS_PER_CLAIM: i32 = 10;

/// What a reader asks for: `lines` (1 to 10,000, default 100) and
/// `show_timestamps`, as the query sends them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ask {
    pub lines: usize,
    pub timestamps: bool,
}

impl Ask {
    pub fn parse(lines: Option<&str>, timestamps: Option<&str>) -> Result<Ask> {
        let lines = match lines {
            None | Some("") => DEFAULT_LINES,
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_LINES).contains(n))
                .ok_or_else(|| {
                    Error::field(
                        "lines",
                        format!("The lines field must be an integer between 1 and {MAX_LINES}."),
                    )
                })?,
        };
        let timestamps = match timestamps {
            None | Some("") | Some("false") | Some("0") => false,
            Some("true") | Some("1") => true,
            Some(_) => {
                return Err(Error::field(
                    "show_timestamps",
                    "The show_timestamps field must be true or false.",
                ));
            }
        };
        Ok(Ask { lines, timestamps })
    }
}

/// The lines `ask` wants of `app`. Without fresh ones an ask is filed for
/// its server's runner, and the answer is to come back
/// (`Error::LogsPending`); `Error::AppNotRunning` when the runner found no
/// running container.
pub async fn read(db: &Db, team: &Team, app: &AppRecord, ask: Ask) -> Result<String> {
    let kept = db.get(team.key(&keys::app_logs_sk(&app.uuid))).await?;
    if let Some(kept) = kept.filter(|k| answers(k, ask, Utc::now())) {
        if db::text(&kept, "running") != "true" {
            return Err(Error::AppNotRunning);
        }
        let needles = mask::for_run(db, team, &app.uuid, false).await?;
        let text = tail(db::text(&kept, "text"), ask.lines);
        return Ok(mask::mask(text, &needles));
    }
    let mut it = keys::key(&keys::server_log_asks_pk(&app.server_uuid), &app.uuid);
    it.insert("kind".into(), db::s("log_ask"));
    it.insert("team".into(), db::s(&team.name));
    it.insert("application_uuid".into(), db::s(&app.uuid));
    it.insert("build_pack".into(), db::s(&app.build_pack));
    it.insert("lines".into(), db::n(ask.lines as i64));
    it.insert("show_timestamps".into(), db::s(flag(ask.timestamps)));
    it.insert("asked_at".into(), db::s(timestamp()));
    db.put_item(it).await?;
    let heard = runners::last_heard(db, team, &app.server_uuid).await?;
    Err(Error::LogsPending {
        heard: heard.is_some(),
    })
}

/// Whether kept lines answer `ask` at `now`: fresh, as many lines or more
/// asked for, timestamps alike.
fn answers(kept: &Item, ask: Ask, now: DateTime<Utc>) -> bool {
    let taken = DateTime::parse_from_rfc3339(db::text(kept, "taken_at"))
        .map(|t| t.with_timezone(&Utc))
        .ok();
    let lines = usize::try_from(db::number(kept, "lines")).unwrap_or(0);
    taken.is_some_and(|t| now - t <= FRESH)
        && lines >= ask.lines
        && (db::text(kept, "show_timestamps") == "true") == ask.timestamps
}

/// How the flags are kept (strings, as `db::text` reads them).
fn flag(on: bool) -> &'static str {
    if on { "true" } else { "false" }
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> &str {
    let body = text.strip_suffix('\n').unwrap_or(text);
    match body.rmatch_indices('\n').nth(n.saturating_sub(1)) {
        Some((i, _)) if n > 0 => &text[i + 1..],
        _ => text,
    }
}

/// Whether a claim's body (`{"log_requests": true}`, optional) says the
/// runner reads asks: older runners send none and get none.
pub fn reads_asks(body: Option<Map<String, Value>>) -> Result<bool> {
    let Some(body) = body else {
        return Ok(false);
    };
    if let Some(k) = body.keys().find(|k| *k != "log_requests") {
        return Err(Error::field(k, "This field is not allowed."));
    }
    match body.get("log_requests") {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(Error::field(
            "log_requests",
            "The log_requests field must be true or false.",
        )),
    }
}

/// The open asks of the runner's server, for its claim.
pub async fn asks_for(db: &Db, runner: &Runner, team: &Team) -> Result<Vec<Value>> {
    let page = db
        .query_page(
            Query::table(keys::server_log_asks_pk(&runner.server_uuid)).limit(ASKS_PER_CLAIM),
        )
        .await?;
    Ok(page
        .items
        .iter()
        .filter(|a| db::text(a, "team") == team.name)
        .map(|a| {
            json!({
                "application_uuid": db::text(a, "application_uuid"),
                "container_name": db::text(a, "application_uuid"),
                "build_pack": db::text(a, "build_pack"),
                "lines": db::number(a, "lines"),
                "show_timestamps": db::text(a, "show_timestamps") == "true",
            })
        })
        .collect())
}

/// What a runner sends: `{running, logs, lines, show_timestamps}`.
#[derive(Debug)]
pub struct Sent {
    pub running: bool,
    pub text: String,
    pub ask: Ask,
}

impl Sent {
    pub fn parse(body: &Map<String, Value>) -> Result<Sent> {
        if let Some(k) = body
            .keys()
            .find(|k| !["running", "logs", "lines", "show_timestamps"].contains(&k.as_str()))
        {
            return Err(Error::field(k, "This field is not allowed."));
        }
        let running = body
            .get("running")
            .and_then(Value::as_bool)
            .ok_or_else(|| Error::field("running", "The running field must be true or false."))?;
        let text = match body.get("logs") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(Error::field("logs", "The logs field must be a string.")),
        };
        let lines = body
            .get("lines")
            .and_then(Value::as_u64)
            .map(|n| n.to_string());
        let timestamps = match body.get("show_timestamps") {
            None => None,
            Some(Value::Bool(b)) => Some(if *b { "true" } else { "false" }),
            Some(_) => {
                return Err(Error::field(
                    "show_timestamps",
                    "The show_timestamps field must be true or false.",
                ));
            }
        };
        let ask = Ask::parse(Some(lines.as_deref().unwrap_or("")), timestamps)?;
        Ok(Sent {
            running,
            text: keep_last(&text, MAX_BYTES).to_string(),
            ask,
        })
    }
}

/// The longest suffix of `text` within `max` bytes that starts a line.
fn keep_last(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    match text[cut..].find('\n') {
        Some(i) => &text[cut + i + 1..],
        None => &text[cut..],
    }
}

/// Keeps what a runner sent of `app` (masked), and drops the ask it
/// answers. `app` must run on the runner's server (else 404).
pub async fn keep(
    db: &Db,
    team: &Team,
    runner: &Runner,
    app: &AppRecord,
    sent: Sent,
) -> Result<()> {
    if app.server_uuid != runner.server_uuid {
        return Err(Error::NotFound(crate::deploy::error::Object::Application));
    }
    let needles = mask::for_run(db, team, &app.uuid, false).await?;
    let text = sent
        .text
        .split_inclusive('\n')
        .map(|l| mask::mask(l, &needles))
        .collect::<String>();
    let mut it = team.key(&keys::app_logs_sk(&app.uuid));
    it.insert("kind".into(), db::s("app_logs"));
    it.insert("text".into(), db::s(keep_last(&text, MAX_BYTES)));
    it.insert("running".into(), db::s(flag(sent.running)));
    it.insert("lines".into(), db::n(sent.ask.lines as i64));
    it.insert("show_timestamps".into(), db::s(flag(sent.ask.timestamps)));
    it.insert("taken_at".into(), db::s(timestamp()));
    db.put_item(it).await?;
    // An ask for more lines, or the other timestamps, stays for the next claim.
    let answered = Cond::le("lines", db::n(sent.ask.lines as i64)).and(Cond::eq(
        "show_timestamps",
        db::s(flag(sent.ask.timestamps)),
    ));
    let ask = keys::key(&keys::server_log_asks_pk(&app.server_uuid), &app.uuid);
    match db.delete_when(ask, answered).await {
        Ok(()) => Ok(()),
        Err(db::DbError::ConditionFailed) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_default_and_bound() {
        assert_eq!(
            Ask::parse(None, None).unwrap(),
            Ask {
                lines: 100,
                timestamps: false
            }
        );
        assert_eq!(
            Ask::parse(Some("10000"), Some("true")).unwrap(),
            Ask {
                lines: 10_000,
                timestamps: true
            }
        );
        for (lines, ts) in [
            (Some("0"), None),
            (Some("10001"), None),
            (Some("x"), None),
            (Some("-1"), None),
            (None, Some("yes")),
        ] {
            assert!(Ask::parse(lines, ts).is_err(), "{lines:?} {ts:?}");
        }
    }

    #[test]
    fn tails_count_lines_from_the_end() {
        assert_eq!(tail("a\nb\nc\n", 2), "b\nc\n");
        assert_eq!(tail("a\nb\nc", 2), "b\nc");
        assert_eq!(tail("a\nb\n", 5), "a\nb\n");
        assert_eq!(tail("", 3), "");
    }

    #[test]
    fn kept_text_is_the_last_whole_lines_within_bounds() {
        let text = "one\ntwo\nthree\n";
        assert_eq!(keep_last(text, 100), text);
        assert_eq!(keep_last(text, 8), "three\n");
        assert_eq!(keep_last("ééé\nb\n", 5), "b\n");
    }

    #[test]
    fn only_fresh_kept_lines_answer() {
        let now = Utc::now();
        let kept = |age: i64, lines: &str, ts: &str| {
            let mut it = Item::new();
            it.insert(
                "taken_at".into(),
                db::s((now - Duration::seconds(age)).to_rfc3339()),
            );
            it.insert("lines".into(), db::n(lines.parse::<i64>().unwrap()));
            it.insert("show_timestamps".into(), db::s(ts));
            it
        };
        let ask = Ask {
            lines: 100,
            timestamps: false,
        };
        assert!(answers(&kept(1, "100", "false"), ask, now));
        assert!(answers(&kept(1, "500", "false"), ask, now));
        assert!(!answers(&kept(60, "100", "false"), ask, now));
        assert!(!answers(&kept(1, "50", "false"), ask, now));
        assert!(!answers(&kept(1, "100", "true"), ask, now));
    }
}
