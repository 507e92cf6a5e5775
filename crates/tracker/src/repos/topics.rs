//! Repository topics, kept on the settings item as a string set (`topics`),
//! so adding or removing one is a single update that cannot lose a
//! concurrent one. Gitea's rules: trimmed and lower-cased,
//! `^[a-z0-9][-.a-z0-9]*$`, at most 35 characters, at most 25 a
//! repository; listed by name.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::json;

use super::{Error, RepoRecord, Result};
use crate::{
    db::{self, Change, Cond, Db, Returns, keys},
    time,
};

/// Most topics one repository carries.
pub const MAX_TOPICS: usize = 25;

/// Gitea's `ValidateTopic`.
pub fn valid(topic: &str) -> bool {
    let b = topic.as_bytes();
    !b.is_empty()
        && b.len() <= 35
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'.'))
}

/// Trimmed and lower-cased, as Gitea takes a topic in.
pub fn normalise(raw: &str) -> String {
    raw.trim().to_lowercase()
}

/// What a topic write got wrong, as Gitea's 422 bodies name it.
fn invalid(message: &str, topics: Vec<String>) -> Error {
    Error::Topics(json!({"message": message, "invalidTopics": topics}))
}

fn too_many() -> Error {
    Error::Topics(json!({"message": "Exceeding maximum number of topics per repo"}))
}

fn no_room() -> Error {
    Error::Topics(json!({"message": "Exceeding maximum allowed topics per repo."}))
}

/// The body of `PUT /repos/{owner}/{repo}/topics`.
#[derive(Debug, Deserialize)]
pub struct RepoTopicOptions {
    pub topics: Vec<String>,
}

/// Gitea's `SanitizeAndValidateTopics`: blanks dropped, duplicates merged;
/// any invalid one refuses the whole list, naming each.
pub fn parse_all(raw: &[String]) -> Result<BTreeSet<String>> {
    let mut ok = BTreeSet::new();
    let mut bad = Vec::new();
    for t in raw.iter().map(|t| normalise(t)).filter(|t| !t.is_empty()) {
        if valid(&t) {
            ok.insert(t);
        } else if !bad.contains(&t) {
            bad.push(t);
        }
    }
    if !bad.is_empty() {
        return Err(invalid("invalid topics", bad));
    }
    if ok.len() > MAX_TOPICS {
        return Err(too_many());
    }
    Ok(ok)
}

/// One topic of a path (`PUT`/`DELETE .../topics/{topic}`).
pub fn parse_one(raw: &str) -> Result<String> {
    let t = normalise(raw);
    if !valid(&t) {
        return Err(invalid("Topic names are invalid", vec![t]));
    }
    Ok(t)
}

fn string_set(topics: impl IntoIterator<Item = String>) -> db::Value {
    db::Value::Ss(topics.into_iter().collect())
}

/// The settings item's `topics` as stored (a string set; absent when none).
pub fn attribute(repo: &RepoRecord) -> Option<db::Value> {
    (!repo.topics.is_empty()).then(|| string_set(repo.topics.iter().cloned()))
}

fn not_gone(e: db::DbError) -> Error {
    match e {
        db::DbError::ConditionFailed => Error::Gone,
        e => e.into(),
    }
}

/// Replaces every topic of `repo`.
pub async fn replace(db: &Db, repo: &RepoRecord, topics: BTreeSet<String>) -> Result<()> {
    let change = Change::new().set("updated", db::n(time::now()));
    let change = match topics.is_empty() {
        true => change.remove("topics"),
        false => change.set("topics", string_set(topics)),
    };
    db.change(
        keys::repo_name(&repo.owner, &repo.name),
        change,
        Some(Cond::eq("id", db::n(repo.id))),
        Returns::Nothing,
    )
    .await
    .map_err(not_gone)?;
    Ok(())
}

/// Adds one topic (nothing when it is there), on condition that the
/// repository carries fewer than [`MAX_TOPICS`].
pub async fn add(db: &Db, repo: &RepoRecord, topic: String) -> Result<()> {
    if repo.topics.contains(&topic) {
        return Ok(());
    }
    if repo.topics.len() >= MAX_TOPICS {
        return Err(no_room());
    }
    let cond = Cond::eq("id", db::n(repo.id)).and(Cond::size_below("topics", MAX_TOPICS as i64));
    db.change(
        keys::repo_name(&repo.owner, &repo.name),
        Change::new()
            .add("topics", string_set([topic]))
            .set("updated", db::n(time::now())),
        Some(cond),
        Returns::Nothing,
    )
    .await
    .map_err(|e| match e {
        db::DbError::ConditionFailed if repo.topics.len() + 1 >= MAX_TOPICS => no_room(),
        e => not_gone(e),
    })?;
    Ok(())
}

/// Removes one topic: 404 when the repository does not carry it.
pub async fn remove(db: &Db, repo: &RepoRecord, topic: String) -> Result<()> {
    if !repo.topics.contains(&topic) {
        return Err(Error::NoSuchTopic(topic));
    }
    db.change(
        keys::repo_name(&repo.owner, &repo.name),
        Change::new()
            .delete("topics", string_set([topic]))
            .set("updated", db::n(time::now())),
        Some(Cond::eq("id", db::n(repo.id))),
        Returns::Nothing,
    )
    .await
    .map_err(not_gone)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_follow_gitea() {
        for ok in ["rust", "a", "0-day", "web.api", &"x".repeat(35)] {
            assert!(valid(ok), "{ok}");
        }
        for bad in ["", "-x", ".x", "Rust", "a b", "ü", "a_b", &"x".repeat(36)] {
            assert!(!valid(bad), "{bad}");
        }
        let all = parse_all(&[" Rust ".into(), "rust".into(), "".into(), "go".into()]).unwrap();
        assert_eq!(all.into_iter().collect::<Vec<_>>(), ["go", "rust"]);
        let Err(Error::Topics(body)) = parse_all(&["ok".into(), "a b".into(), "_x".into()]) else {
            panic!("invalid topics are refused")
        };
        assert_eq!(body["invalidTopics"], json!(["a b", "_x"]));
        let many: Vec<String> = (0..26).map(|i| format!("t{i}")).collect();
        assert!(parse_all(&many).is_err());
        assert!(parse_all(&many[..25]).is_ok());
        assert_eq!(parse_one(" Go ").unwrap(), "go");
    }
}
