//! Gitea's `Label` and the option bodies that create and edit one.

use serde::{Deserialize, Serialize};

use super::{
    Result,
    model::{self, LabelEdit, LabelRecord, NewLabel, Scope},
};
use crate::Config;

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

/// Gitea's `CreateLabelOption`.
#[derive(Deserialize)]
pub struct CreateLabelOption {
    pub name: String,
    pub color: String,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub exclusive: Option<bool>,
    #[serde(default)]
    pub is_archived: Option<bool>,
}

impl TryFrom<CreateLabelOption> for NewLabel {
    type Error = super::Error;

    fn try_from(o: CreateLabelOption) -> Result<Self> {
        Ok(NewLabel {
            name: model::name(&o.name)?,
            color: model::color(&o.color)?,
            description: model::description(o.description)?,
            exclusive: o.exclusive.unwrap_or(false),
            is_archived: o.is_archived.unwrap_or(false),
        })
    }
}

/// Gitea's `EditLabelOption`.
#[derive(Deserialize)]
pub struct EditLabelOption {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub exclusive: Option<bool>,
    #[serde(default)]
    pub is_archived: Option<bool>,
}

impl TryFrom<EditLabelOption> for LabelEdit {
    type Error = super::Error;

    fn try_from(o: EditLabelOption) -> Result<Self> {
        Ok(LabelEdit {
            name: o.name.as_deref().map(model::name).transpose()?,
            color: o.color.as_deref().map(model::color).transpose()?,
            description: o
                .description
                .map(|d| model::description(Some(d)))
                .transpose()?,
            exclusive: o.exclusive,
            is_archived: o.is_archived,
        })
    }
}
