//! Labels of a repository (under its id) or of an organisation (under its
//! name; usable in all its repositories), in Gitea's `Label` shape.

use serde::{Deserialize, Serialize};

use crate::{
    Config, Error, Result,
    db::{self, Db, Item, keys},
};

/// Where a label lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A repository: its id and full name (for the `url` field).
    Repo {
        id: i64,
        full_name: String,
    },
    Org {
        name: String,
    },
}

impl Scope {
    fn key(&self, label_id: i64) -> Item {
        match self {
            Scope::Repo { id, .. } => keys::repo_label(*id, label_id),
            Scope::Org { name } => keys::org_label(name, label_id),
        }
    }

    fn pk(&self) -> String {
        match self {
            Scope::Repo { id, .. } => keys::repo_pk(*id),
            Scope::Org { name } => keys::owner_pk(name),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LabelRecord {
    pub id: i64,
    pub name: String,
    /// Six lower-case hex digits, no `#`.
    pub color: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub exclusive: bool,
    #[serde(default)]
    pub is_archived: bool,
    pub scope: Scope,
}

/// `#abc`, `abc`, `#aabbcc` or `aabbcc` (any case) → `aabbcc`.
pub fn parse_color(raw: &str) -> Result<String> {
    let hex = raw.trim().trim_start_matches('#');
    let bad = || {
        Error::field(
            "color",
            format!("must be a hex colour like #ee0701 or #e01 (got {raw:?})"),
        )
    };
    if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    match hex.len() {
        6 => Ok(hex.to_lowercase()),
        3 => Ok(hex
            .chars()
            .flat_map(|c| [c, c])
            .collect::<String>()
            .to_lowercase()),
        _ => Err(bad()),
    }
}

pub fn parse_name(raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 50 {
        return Err(Error::field(
            "name",
            format!("must be 1 to 50 characters (got {raw:?})"),
        ));
    }
    Ok(name.to_string())
}

/// A validated label request.
pub struct NewLabel {
    pub name: String,
    pub color: String,
    pub description: String,
    pub exclusive: bool,
    pub is_archived: bool,
}

pub async fn create(db: &Db, scope: Scope, new: NewLabel) -> Result<LabelRecord> {
    let label = LabelRecord {
        id: db.next_id("label").await?,
        name: new.name,
        color: new.color,
        description: new.description,
        exclusive: new.exclusive,
        is_archived: new.is_archived,
        scope,
    };
    let mut item = db::to_item(&label)?;
    item.extend(label.scope.key(label.id));
    // A transaction, so a request's idempotency key records the commit.
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    db.transact(tx).await?;
    Ok(label)
}

/// All labels of a scope, by id (creation order).
pub async fn list(db: &Db, scope: &Scope) -> Result<Vec<LabelRecord>> {
    let items = db.query_prefix(&scope.pk(), keys::LABEL_PREFIX).await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

/// The labels an issue of `repo` may carry: the repository's, and its
/// organisation's when `owner_is_org`.
pub async fn usable_in(
    db: &Db,
    repo: &crate::repos::RepoRecord,
    owner_is_org: bool,
) -> Result<Vec<LabelRecord>> {
    let mut known = list(
        db,
        &Scope::Repo {
            id: repo.id,
            full_name: repo.full_name(),
        },
    )
    .await?;
    if owner_is_org {
        known.extend(
            list(
                db,
                &Scope::Org {
                    name: repo.owner.clone(),
                },
            )
            .await?,
        );
    }
    Ok(known)
}

pub async fn get(db: &Db, scope: &Scope, id: i64) -> Result<Option<LabelRecord>> {
    Ok(db.get_as(scope.key(id)).await?)
}

/// Saves an edited label (only if it still exists).
pub async fn save(db: &Db, label: &LabelRecord) -> Result<()> {
    let mut item = db::to_item(label)?;
    item.extend(label.scope.key(label.id));
    db.put(|p| {
        p.set_item(Some(item))
            .condition_expression("attribute_exists(pk)")
    })
    .await
    .map_err(|e| match e {
        db::DbError::ConditionFailed => Error::not_found(),
        other => other.into(),
    })
}

pub async fn delete(db: &Db, label: &LabelRecord) -> Result<()> {
    db.delete(|d| {
        d.set_key(Some(label.scope.key(label.id)))
            .condition_expression("attribute_exists(pk)")
    })
    .await
    .map_err(|e| match e {
        db::DbError::ConditionFailed => Error::not_found(),
        other => other.into(),
    })
}

/// Gitea's `Label`.
#[derive(Serialize)]
pub struct Label {
    pub id: i64,
    pub name: String,
    pub exclusive: bool,
    pub is_archived: bool,
    pub color: String,
    pub description: String,
    pub url: String,
}

impl Label {
    pub fn new(l: &LabelRecord, config: &Config) -> Self {
        let url = match &l.scope {
            Scope::Repo { full_name, .. } => {
                config.url(&format!("api/v1/repos/{full_name}/labels/{}", l.id))
            }
            Scope::Org { name } => config.url(&format!("api/v1/orgs/{name}/labels/{}", l.id)),
        };
        Self {
            id: l.id,
            name: l.name.clone(),
            exclusive: l.exclusive,
            is_archived: l.is_archived,
            color: l.color.clone(),
            description: l.description.clone(),
            url,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn colours() {
        for (raw, want) in [
            ("#EE0701", "ee0701"),
            ("ee0701", "ee0701"),
            ("#e01", "ee0011"),
            ("ABC", "aabbcc"),
        ] {
            assert_eq!(super::parse_color(raw).unwrap(), want, "{raw}");
        }
        for bad in ["", "#", "#12345", "#1234567", "red", "#ggg"] {
            assert!(super::parse_color(bad).is_err(), "{bad:?}");
        }
    }
}
