//! Branch and tag heads. The tracker holds no git data, so a head commit is
//! what CI reports (`POST /repos/{owner}/{repo}/git/refs`, GitHub's shape
//! of a ref write); pull requests show it as `head.sha` and `base.sha`,
//! and `GET .../git/refs/{filter}` answers Gitea's `Reference` list from
//! it. At most [`MAX_REFS`] a repository, so every listing is one query.

use serde::{Deserialize, Serialize};

use super::{Error, Result};
use crate::{
    Config, accounts,
    db::{self, Change, Cond, Db, Query, Returns, keys},
    time,
};

/// Most refs one repository holds (a write past it is refused).
pub const MAX_REFS: i64 = 500;

/// A stored head: `ref` as sent (`refs/heads/main`) and its commit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefRecord {
    #[serde(rename = "ref")]
    pub name: String,
    pub sha: String,
    #[serde(default)]
    pub updated: i64,
}

fn invalid(field: &str, why: String) -> Error {
    accounts::Error::invalid(field, why).into()
}

/// A full ref name under `refs/heads/` or `refs/tags/`, by git's rules
/// for ref names (`git check-ref-format`): no empty or dot-led component,
/// no `..`, `@{`, `//`, control characters, space or `~^:?*[\`, not
/// ending in `/`, `.` or `.lock`; at most 255 bytes.
pub fn parse_ref(raw: &str) -> Result<String> {
    let bad = |why: &str| invalid("ref", format!("{why} (got {raw:?})"));
    let Some(rest) = raw
        .strip_prefix("refs/heads/")
        .or_else(|| raw.strip_prefix("refs/tags/"))
    else {
        return Err(bad("must start with refs/heads/ or refs/tags/"));
    };
    if raw.len() > 255 {
        return Err(bad("must be at most 255 bytes"));
    }
    let forbidden = |c: char| c.is_control() || " ~^:?*[\\".contains(c);
    if rest.is_empty()
        || rest.contains("..")
        || rest.contains("@{")
        || rest.chars().any(forbidden)
        || rest.ends_with('.')
        || rest.ends_with(".lock")
        || rest
            .split('/')
            .any(|part| part.is_empty() || part.starts_with('.'))
    {
        return Err(bad("is not a valid git ref name"));
    }
    Ok(raw.to_string())
}

/// A commit id: 40 (SHA-1) or 64 (SHA-256) hex digits, kept lower-case.
pub fn parse_sha(raw: &str) -> Result<String> {
    let ok = matches!(raw.len(), 40 | 64) && raw.bytes().all(|b| b.is_ascii_hexdigit());
    if !ok {
        return Err(invalid(
            "sha",
            format!("must be 40 or 64 hexadecimal digits (got {raw:?})"),
        ));
    }
    Ok(raw.to_ascii_lowercase())
}

/// Sets `name` to `sha`: a new ref (`true`) is counted against
/// [`MAX_REFS`] in the same transaction; a known one is moved.
pub async fn set(db: &Db, repo_id: i64, name: &str, sha: &str) -> Result<bool> {
    let rec = RefRecord {
        name: name.to_string(),
        sha: sha.to_string(),
        updated: time::now(),
    };
    let mut item = db::to_item(&rec)?;
    item.extend(keys::repo_ref(repo_id, name));
    let mut tx = db.tx();
    tx.put_if_absent(item)?.change(
        keys::repo_ref_count(repo_id),
        Change::new().add("n", db::n(1)),
        Some(Cond::below("n", db::n(MAX_REFS))),
    )?;
    match db.transact(tx).await {
        Ok(()) => Ok(true),
        Err(e) => match e.failed_condition() {
            Some(0) => {
                db.change(
                    keys::repo_ref(repo_id, name),
                    Change::new()
                        .set("sha", db::s(sha))
                        .set("updated", db::n(rec.updated)),
                    Some(Cond::exists()),
                    Returns::Nothing,
                )
                .await?;
                Ok(false)
            }
            Some(1) => Err(invalid(
                "ref",
                format!("a repository holds at most {MAX_REFS} refs"),
            )),
            _ => Err(e.into()),
        },
    }
}

/// The refs whose full name starts with `refs/<filter>` (all of them
/// without one), by name: Gitea's prefix match. One query of at most
/// [`MAX_REFS`] small items.
pub async fn list(db: &Db, repo_id: i64, filter: Option<&str>) -> Result<Vec<RefRecord>> {
    let filter = filter.unwrap_or("");
    if filter.len() > 255 {
        // No ref name is that long (and a sort key has a limit).
        return Ok(Vec::new());
    }
    let prefix = format!("{}refs/{filter}", keys::REF_PREFIX);
    let q = Query::table(keys::repo_pk(repo_id))
        .prefix(prefix)
        .limit(MAX_REFS as i32);
    let page = db.query_page(q).await?;
    page.items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

/// The body of `POST /repos/{owner}/{repo}/git/refs` (GitHub's create a
/// reference), which here also moves a known one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetRefOption {
    #[serde(rename = "ref")]
    pub name: String,
    pub sha: String,
}

/// A checked ref write.
pub struct RefWrite {
    pub name: String,
    pub sha: String,
}

impl TryFrom<SetRefOption> for RefWrite {
    type Error = Error;

    fn try_from(o: SetRefOption) -> Result<Self> {
        Ok(RefWrite {
            name: parse_ref(&o.name)?,
            sha: parse_sha(&o.sha)?,
        })
    }
}

/// Gitea's `Reference`.
#[derive(Serialize)]
pub struct Reference {
    #[serde(rename = "ref")]
    pub name: String,
    pub url: String,
    pub object: GitObject,
}

#[derive(Serialize)]
pub struct GitObject {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub sha: String,
    pub url: String,
}

impl Reference {
    pub fn new(r: &RefRecord, full_name: &str, config: &Config) -> Self {
        let api = config.url(&format!("api/v1/repos/{full_name}/git"));
        let path = r.name.trim_start_matches("refs/");
        Reference {
            url: format!("{api}/refs/{path}"),
            object: GitObject {
                kind: "commit",
                url: format!("{api}/commits/{}", r.sha),
                sha: r.sha.clone(),
            },
            name: r.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_names_follow_git() {
        for ok in [
            "refs/heads/main",
            "refs/heads/feature/x-1",
            "refs/tags/v1.0",
        ] {
            assert_eq!(parse_ref(ok).unwrap(), ok);
        }
        for bad in [
            "main",
            "heads/main",
            "refs/heads/",
            "refs/heads/a..b",
            "refs/heads/a b",
            "refs/heads/x.lock",
            "refs/heads/.x",
            "refs/heads/a//b",
            "refs/heads/a/",
            "refs/heads/a@{1}",
            "refs/heads/a~1",
            &format!("refs/heads/{}", "b".repeat(250)),
        ] {
            assert!(parse_ref(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn shas_are_40_or_64_hex_digits() {
        let s1 = "A".repeat(40);
        assert_eq!(parse_sha(&s1).unwrap(), "a".repeat(40));
        assert!(parse_sha(&"0".repeat(64)).is_ok());
        for bad in ["", "abc", &"g".repeat(40), &"0".repeat(41), &"0".repeat(63)] {
            assert!(parse_sha(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
