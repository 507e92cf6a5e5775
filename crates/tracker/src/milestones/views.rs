//! Gitea's `Milestone` and the option bodies that create and edit one.

use crate::time::Zone;
use serde::{Deserialize, Serialize};

use super::{
    Result,
    model::{self, Edit, MilestoneRecord, NewMilestone},
};
use crate::{Config, text::present, time};

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

/// Gitea's `CreateMilestoneOption`.
#[derive(Deserialize)]
pub struct CreateMilestoneOption {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub due_on: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
}

impl CreateMilestoneOption {
    /// The command, with dates read in `tz` when they carry no offset.
    pub fn parse(self, tz: Zone) -> Result<NewMilestone> {
        Ok(NewMilestone {
            title: model::title(self.title.as_deref().unwrap_or(""))?,
            description: model::description(self.description)?,
            closed: self.state.as_deref() == Some("closed"),
            due: model::due(self.due_on.as_deref(), tz)?,
        })
    }
}

/// Gitea's `EditMilestoneOption`: an empty title keeps the old one, a
/// `null` `due_on` clears the deadline.
#[derive(Deserialize)]
pub struct EditMilestoneOption {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub state: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub due_on: Option<Option<String>>,
}

impl EditMilestoneOption {
    pub fn parse(self, tz: Zone) -> Result<Edit> {
        Ok(Edit {
            title: self
                .title
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(model::title)
                .transpose()?,
            description: self
                .description
                .map(|d| model::description(Some(d)))
                .transpose()?,
            closed: self.state.map(|s| s == "closed"),
            due: self
                .due_on
                .map(|raw| model::due(raw.as_deref(), tz))
                .transpose()?,
        })
    }
}
