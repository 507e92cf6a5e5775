//! Projects and their environments. A project's item is followed in sort
//! order by its environments and their name guards, so one query reads a
//! project whole. A new project gets a `production` environment.

use serde_json::{Map, Value};

use crate::deploy::model::project::new_environment;
pub use crate::deploy::model::project::{
    EnvironmentRecord, MAX_ENVIRONMENTS, PLACED, Project, ProjectRecord, parse_edit, parse_new,
};
use crate::{
    db::{self, Db, keys},
    deploy::{
        error::{Error, Object, Result},
        model::{self, body::Body, timestamp},
        store::{self, ids, item, quota},
        team::Team,
    },
};

/// The project item's count of its environments.
const ENVIRONMENTS: &str = "envs";

pub async fn create(
    db: &Db,
    team: &Team,
    name: String,
    description: Option<String>,
) -> Result<ProjectRecord> {
    let now = timestamp();
    let numbers = ids::next(db, team, &[ids::Seq::Project, ids::Seq::Environment]).await?;
    let project = ProjectRecord {
        id: Some(numbers[0]),
        uuid: model::new_uuid(),
        name,
        description,
        created_at: now.clone(),
        updated_at: now,
        refs: 0,
    };
    let production = new_environment(&project, "production", numbers[1]);
    let mut tx = db.tx();
    let mut it = item(team, &keys::project_sk(&project.uuid), "project", &project)?;
    it.insert(ENVIRONMENTS.into(), db::n(1));
    tx.put_if_absent(it)?;
    push_environment(&mut tx, team, &production)?;
    let counted = quota::add(&mut tx, team, quota::Kind::Projects)?;
    match db.transact(tx).await {
        Ok(()) => Ok(project),
        Err(e) if e.failed_condition() == Some(counted) => {
            Err(Error::QuotaFull(quota::Kind::Projects.object()))
        }
        Err(e) => Err(e.into()),
    }
}

fn push_environment(tx: &mut db::Tx, team: &Team, env: &EnvironmentRecord) -> Result<()> {
    tx.put_if_absent(item(
        team,
        &keys::environment_sk(&env.project_uuid, &env.uuid),
        "environment",
        env,
    )?)?;
    tx.put_if_absent(team.key(&keys::environment_name_sk(&env.project_uuid, &env.name)))?;
    Ok(())
}

pub async fn list(db: &Db, team: &Team) -> Result<Vec<ProjectRecord>> {
    let mut all: Vec<ProjectRecord> =
        store::list(db, team, keys::PROJECT_PREFIX, "project").await?;
    all.sort_by(|a, b| a.name.cmp(&b.name).then(a.uuid.cmp(&b.uuid)));
    Ok(all)
}

/// A project with its environments, in one query.
pub async fn load(db: &Db, team: &Team, uuid: &str) -> Result<Option<Project>> {
    let Some(uuid) = model::parse_uuid(uuid) else {
        return Ok(None);
    };
    let items = db
        .query_prefix(&keys::deploy_team_pk(&team.name), &keys::project_sk(&uuid))
        .await?;
    let mut project = None;
    let mut environments = Vec::new();
    for i in items {
        match i
            .get("kind")
            .and_then(|k| k.as_s().ok())
            .map(String::as_str)
        {
            Some("project") => project = Some(db::from_item::<ProjectRecord>(i)?),
            Some("environment") => environments.push(db::from_item::<EnvironmentRecord>(i)?),
            _ => {}
        }
    }
    environments.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(project.map(|project| Project {
        project,
        environments,
    }))
}

/// One of the team's projects, or the 404.
pub async fn find(db: &Db, team: &Team, uuid: &str) -> Result<Project> {
    load(db, team, uuid)
        .await?
        .ok_or(Error::NotFound(Object::Project))
}

pub async fn create_environment(
    db: &Db,
    team: &Team,
    project: &Project,
    map: Map<String, Value>,
) -> Result<EnvironmentRecord> {
    let mut b = Body::new(map);
    let name = b.string("name", true, 255);
    let name = b.check("name", name, |n| {
        if !n.chars().all(|c| c.is_alphanumeric() || "-_. ".contains(c)) {
            Err("The name may contain letters, digits, spaces, '-', '_' and '.' only.".into())
        } else if n.len() > 255 {
            // Bytes, not characters: the name is part of a key.
            Err("The name field must not be greater than 255 bytes.".into())
        } else {
            Ok(())
        }
    });
    b.finish()?;
    if project.environments.len() >= MAX_ENVIRONMENTS {
        return Err(Error::TooManyChildren {
            parent: Object::Project,
            max: MAX_ENVIRONMENTS,
        });
    }
    let id = ids::next(db, team, &[ids::Seq::Environment]).await?[0];
    let env = new_environment(&project.project, &name.unwrap_or_default(), id);
    let mut tx = db.tx();
    let parent = team.key(&keys::project_sk(&env.project_uuid));
    store::add_child(&mut tx, parent.clone(), ENVIRONMENTS, MAX_ENVIRONMENTS)?;
    push_environment(&mut tx, team, &env)?;
    match db.transact(tx).await {
        Ok(()) => Ok(env),
        Err(e) => match e.failed_condition() {
            Some(0) if db.get(parent).await?.is_some() => Err(Error::TooManyChildren {
                parent: Object::Project,
                max: MAX_ENVIRONMENTS,
            }),
            Some(0) => Err(Error::NotFound(Object::Project)),
            Some(_) => Err(Error::EnvironmentExists),
            None => Err(e.into()),
        },
    }
}

/// Deletes a project, unless an application uses it, and its
/// environments (see [`store::delete_family`]).
pub async fn delete(db: &Db, team: &Team, project: &Project) -> Result<()> {
    let family = |p: &Project| store::Family {
        count: Some((ENVIRONMENTS, p.environments.len())),
        children: p
            .environments
            .iter()
            .flat_map(|env| {
                [
                    team.key(&keys::environment_sk(&env.project_uuid, &env.uuid)),
                    team.key(&keys::environment_name_sk(&env.project_uuid, &env.name)),
                ]
            })
            .collect(),
        refers_to: Vec::new(),
        updated_at: None,
        counted: Some(quota::Kind::Projects),
    };
    let uuid = &project.project.uuid;
    store::delete_family(
        db,
        team,
        team.key(&keys::project_sk(uuid)),
        family(project),
        || async { Ok(load(db, team, uuid).await?.as_ref().map(family)) },
        Object::Project,
    )
    .await
}

/// PATCH: a new name and/or description (`null` clears the description).
/// Only those attributes are written, so a concurrent write of another
/// attribute (a reference count, an id) is never undone.
pub async fn update(
    db: &Db,
    team: &Team,
    project: &Project,
    edit: model::project::Edit,
) -> Result<ProjectRecord> {
    let mut saved = project.project.clone();
    let mut change = db::Change::new();
    if let Some(name) = edit.name {
        change = change.set("name", db::s(&name));
        saved.name = name;
    }
    match edit.description {
        Some(Some(d)) => {
            change = change.set("description", db::s(&d));
            saved.description = Some(d);
        }
        Some(None) => {
            change = change.remove("description");
            saved.description = None;
        }
        None => {}
    }
    if change.is_empty() {
        return Ok(saved);
    }
    saved.updated_at = timestamp();
    change = change.set("updated_at", db::s(&saved.updated_at));
    let key = team.key(&keys::project_sk(&saved.uuid));
    match db
        .change(key, change, Some(db::Cond::exists()), db::Returns::Nothing)
        .await
    {
        Ok(_) => Ok(saved),
        Err(db::DbError::ConditionFailed) => Err(Error::NotFound(Object::Project)),
        Err(e) => Err(e.into()),
    }
}

/// Deletes an environment (by name, else uuid) that holds no application.
/// Every application created in or moved into an environment bumps its
/// `placed` count in the same transaction, and the delete is conditioned
/// on the count it read before looking for applications: one placed there
/// meanwhile fails the delete, which reads again. A project without
/// applications (`refs`, moved with each of them) needs no look.
pub async fn delete_environment(
    db: &Db,
    team: &Team,
    project: &Project,
    wanted: &str,
) -> Result<()> {
    let uuid = project.project.uuid.clone();
    let mut current: Option<Project> = None;
    for _ in 0..3 {
        let p = current.as_ref().unwrap_or(project);
        let env = p.find_environment(wanted)?.clone();
        let empty_project = p.project.refs <= 0;
        if !empty_project && holds_applications(db, team, &env.uuid).await? {
            return Err(Error::InUse(Object::Environment));
        }
        let placed = if env.placed == 0 {
            db::Cond::unset_or_eq(model::project::PLACED, db::n(0))
        } else {
            db::Cond::eq(model::project::PLACED, db::n(env.placed))
        };
        let mut tx = db.tx();
        tx.delete_when(
            team.key(&keys::environment_sk(&uuid, &env.uuid)),
            db::Cond::exists().and(placed),
        )?;
        tx.delete(team.key(&keys::environment_name_sk(&uuid, &env.name)))?;
        let mut parent = db::Cond::exists();
        if empty_project {
            parent = parent.and(db::Cond::at_most("refs", db::n(0)));
        }
        tx.change(
            team.key(&keys::project_sk(&uuid)),
            db::Change::new().add(ENVIRONMENTS, db::n(-1)),
            Some(parent),
        )?;
        match db.transact(tx).await {
            Ok(()) => return Ok(()),
            Err(e) if e.failed_condition().is_some() => {
                current = Some(find(db, team, &uuid).await?);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Busy("the environment keeps changing; retry"))
}

/// Whether any of the team's applications is placed in the environment
/// `env`: the team's applications are read (at most `quota::MAX_PER_TEAM`,
/// only their placement), as `GET /applications` reads them.
async fn holds_applications(db: &Db, team: &Team, env: &str) -> Result<bool> {
    let query = db::Query::table(keys::deploy_team_pk(&team.name))
        .prefix(keys::APP_PREFIX)
        .fields(&["environment_uuid"]);
    let mut cursor = None;
    loop {
        let page = db.query_page(query.clone().after(cursor.take())).await?;
        if page
            .items
            .iter()
            .any(|i| db::text(i, "environment_uuid") == env)
        {
            return Ok(true);
        }
        match page.next {
            Some(k) => cursor = Some(k),
            None => return Ok(false),
        }
    }
}
