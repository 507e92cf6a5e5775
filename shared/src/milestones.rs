//! Milestones of a repository, under the repository's id. The issue
//! counters (`num_issues`, `num_closed_issues`) are changed only by issue
//! writes, inside their transactions, with `ADD` on this item's key; edits
//! here therefore update named attributes and never rewrite the item.

use serde::{Deserialize, Serialize};

use crate::{
    Config, Error, Result,
    db::{self, Db, keys},
    time,
};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MilestoneRecord {
    pub id: i64,
    pub repo_id: i64,
    pub title: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub closed: bool,
    /// When it was last closed (0: never).
    #[serde(default)]
    pub closed_at: i64,
    /// Deadline (0: none).
    #[serde(default)]
    pub due: i64,
    pub created: i64,
    pub updated: i64,
    #[serde(default)]
    pub num_issues: i64,
    #[serde(default)]
    pub num_closed_issues: i64,
}

/// A validated milestone request.
pub struct NewMilestone {
    pub title: String,
    pub description: String,
    pub closed: bool,
    pub due: Option<i64>,
}

/// Titles are trimmed and must not be empty; at most 255 characters.
pub fn parse_title(raw: &str) -> Result<String> {
    let t = raw.trim();
    if t.is_empty() || t.chars().count() > 255 {
        return Err(Error::field("title", "must be 1 to 255 characters"));
    }
    Ok(t.to_string())
}

pub async fn create(db: &Db, repo_id: i64, new: NewMilestone) -> Result<MilestoneRecord> {
    let now = time::now();
    let m = MilestoneRecord {
        id: db.next_id("milestone").await?,
        repo_id,
        title: new.title,
        description: new.description,
        closed: new.closed,
        closed_at: if new.closed { now } else { 0 },
        due: new.due.unwrap_or(0),
        created: now,
        updated: now,
        num_issues: 0,
        num_closed_issues: 0,
    };
    let mut item = db::to_item(&m)?;
    item.extend(keys::milestone(repo_id, m.id));
    // A transaction, so a request's idempotency key records the commit.
    let mut tx = db.tx();
    tx.put_if_absent(item)?;
    db.transact(tx).await?;
    Ok(m)
}

/// Every milestone of a repository, without descriptions (up to 65,535
/// characters each, which filtering and sorting do not need):
/// [`with_descriptions`] fills them in for the few that are shown.
pub async fn list(db: &Db, repo_id: i64) -> Result<Vec<MilestoneRecord>> {
    const SHORT: [&str; 10] = [
        "id",
        "repo_id",
        "title",
        "closed",
        "closed_at",
        "due",
        "created",
        "updated",
        "num_issues",
        "num_closed_issues",
    ];
    let items = db
        .query_prefix_projected(
            &keys::repo_pk(repo_id),
            keys::MILESTONE_PREFIX,
            Some(&SHORT),
        )
        .await?;
    items
        .into_iter()
        .map(|i| db::from_item(i).map_err(Error::from))
        .collect()
}

/// The given milestones, read again in full (one batch of up to 100).
pub async fn with_descriptions(db: &Db, shown: &[MilestoneRecord]) -> Result<Vec<MilestoneRecord>> {
    let mut out = Vec::with_capacity(shown.len());
    for chunk in shown.chunks(100) {
        let keys = chunk
            .iter()
            .map(|m| keys::milestone(m.repo_id, m.id))
            .collect();
        let found: Vec<MilestoneRecord> = db
            .batch_get(keys)
            .await?
            .into_iter()
            .map(db::from_item)
            .collect::<Result<_, _>>()?;
        // Keep the caller's order.
        out.extend(
            chunk
                .iter()
                .filter_map(|m| found.iter().find(|f| f.id == m.id).cloned()),
        );
    }
    Ok(out)
}

pub async fn get(db: &Db, repo_id: i64, id: i64) -> Result<Option<MilestoneRecord>> {
    Ok(db.get_as(keys::milestone(repo_id, id)).await?)
}

/// The seed's lookup: a non-zero number naming a milestone of this
/// repository, else the exact title; 404 when neither matches.
pub async fn find(db: &Db, repo_id: i64, id_or_title: &str) -> Result<MilestoneRecord> {
    let by_id = match id_or_title.parse::<i64>() {
        Ok(id) if id != 0 => get(db, repo_id, id).await?,
        _ => None,
    };
    if let Some(m) = by_id {
        return Ok(m);
    }
    let by_title = list(db, repo_id)
        .await?
        .into_iter()
        .find(|m| m.title == id_or_title)
        .ok_or_else(|| {
            Error::NotFound(format!(
                "milestone does not exist [id: 0, name: {id_or_title}]"
            ))
        })?;
    get(db, repo_id, by_title.id)
        .await?
        .ok_or_else(Error::not_found)
}

/// What an edit changes (`None`: keep).
#[derive(Default)]
pub struct Edit {
    pub title: Option<String>,
    pub description: Option<String>,
    pub closed: Option<bool>,
    /// `Some(None)` clears the deadline.
    pub due: Option<Option<i64>>,
}

/// Applies an edit with one conditional UpdateItem (counters untouched).
pub async fn edit(db: &Db, m: &MilestoneRecord, edit: Edit) -> Result<MilestoneRecord> {
    let mut next = m.clone();
    next.updated = time::now();
    if let Some(t) = edit.title {
        next.title = t;
    }
    if let Some(d) = edit.description {
        next.description = d;
    }
    if let Some(c) = edit.closed {
        if c && !m.closed {
            next.closed_at = next.updated;
        }
        next.closed = c;
    }
    if let Some(due) = edit.due {
        next.due = due.unwrap_or(0);
    }
    let attrs = db::to_item(&next)?;
    let fields = [
        "title",
        "description",
        "closed",
        "closed_at",
        "due",
        "updated",
    ];
    let (mut sets, mut removes) = (Vec::new(), Vec::new());
    let mut values = Vec::new();
    for f in fields {
        match attrs.get(f) {
            Some(v) => {
                sets.push(format!("#{f} = :{f}"));
                values.push((format!(":{f}"), v.clone()));
            }
            None => removes.push(format!("#{f}")),
        }
    }
    let mut expr = format!("SET {}", sets.join(", "));
    if !removes.is_empty() {
        expr.push_str(&format!(" REMOVE {}", removes.join(", ")));
    }
    let attrs_after = db
        .update(|mut u| {
            u = u
                .set_key(Some(keys::milestone(m.repo_id, m.id)))
                .update_expression(expr)
                .condition_expression("attribute_exists(pk)")
                .return_values(aws_sdk_dynamodb::types::ReturnValue::AllNew);
            for f in fields {
                u = u.expression_attribute_names(format!("#{f}"), f);
            }
            for (k, v) in values {
                u = u.expression_attribute_values(k, v);
            }
            u
        })
        .await
        .map_err(|e| match e {
            db::DbError::ConditionFailed => Error::not_found(),
            other => other.into(),
        })?;
    match attrs_after {
        Some(item) => Ok(db::from_item(item)?),
        None => Ok(next),
    }
}

pub async fn delete(db: &Db, m: &MilestoneRecord) -> Result<()> {
    db.delete(|d| {
        d.set_key(Some(keys::milestone(m.repo_id, m.id)))
            .condition_expression("attribute_exists(pk)")
    })
    .await
    .map_err(|e| match e {
        db::DbError::ConditionFailed => Error::not_found(),
        other => other.into(),
    })
}

/// Gitea's `Milestone`.
#[derive(Serialize)]
pub struct Milestone {
    pub id: i64,
    pub title: String,
    pub description: String,
    pub state: &'static str,
    pub open_issues: i64,
    pub closed_issues: i64,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    pub due_on: Option<String>,
}

impl Milestone {
    pub fn new(m: &MilestoneRecord, config: &Config) -> Self {
        let tz = config.display_tz;
        Self {
            id: m.id,
            title: m.title.clone(),
            description: m.description.clone(),
            state: if m.closed { "closed" } else { "open" },
            open_issues: m.num_issues - m.num_closed_issues,
            closed_issues: m.num_closed_issues,
            created_at: time::render(m.created, tz),
            updated_at: time::render(m.updated, tz),
            closed_at: (m.closed && m.closed_at > 0).then(|| time::render(m.closed_at, tz)),
            due_on: (m.due > 0).then(|| time::render(m.due, tz)),
        }
    }
}
