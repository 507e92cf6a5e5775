//! Deploy triggers as Coolify serves them: `/deploy?uuid=a,b&force=&pr=`
//! (GET as in 4.0, POST as in 4.2, which may send the same fields as a
//! JSON body), and an application's start, stop and restart. Each queues
//! a deployment; a stop is a deployment whose action is `stop`, so it
//! waits behind the application's run like any other and its runner
//! reports it the same way.

use serde_json::{Map, Value, json};

use crate::{
    Config,
    db::Db,
    deploy::{
        apps,
        deployments::{self, Action, DeploymentRecord, Trigger},
        error::{Error, Result},
        model::input::Problems,
        team::Team,
    },
};

/// Most applications one `/deploy` names (each is its own transaction).
pub const MAX_UUIDS: usize = 50;

/// A `/deploy` request, read from its query and (POST) body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeployRequest {
    pub uuids: Option<String>,
    pub tags: Option<String>,
    pub force: bool,
    pub pr: i64,
}

/// A text parameter: a JSON string, number or boolean as its text.
fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `true`/`false` (or `1`/`0`) as the query sends it.
pub fn flag(name: &str, raw: Option<&str>, default: bool, problems: &mut Problems) -> bool {
    match raw {
        None | Some("") => default,
        Some("true" | "1") => true,
        Some("false" | "0") => false,
        Some(_) => {
            problems.add(name, format!("The {name} field must be true or false."));
            default
        }
    }
}

/// Reads a `/deploy` request: `get` gives a query parameter, `body` the
/// POST body's fields (query wins).
pub fn parse_deploy<'a>(
    get: impl Fn(&str) -> Option<&'a str>,
    body: Option<&Map<String, Value>>,
) -> Result<DeployRequest> {
    let mut problems = Problems::default();
    let field = |name: &str| -> Option<String> {
        get(name)
            .map(str::to_string)
            .or_else(|| body.and_then(|b| b.get(name)).and_then(text))
    };
    if let Some(b) = body {
        for k in b.keys() {
            if !["uuid", "tag", "force", "pr", "pull_request_id"].contains(&k.as_str()) {
                problems.add(k, "This field is not allowed.");
            }
        }
    }
    let force = flag("force", field("force").as_deref(), false, &mut problems);
    let pr = match field("pr").or_else(|| field("pull_request_id")) {
        None => 0,
        Some(raw) if raw.is_empty() => 0,
        Some(raw) => match raw.parse::<i64>() {
            Ok(n) if n >= 0 => n,
            _ => {
                problems.add("pr", "The pr field must be an integer of 0 or more.");
                0
            }
        },
    };
    problems.into_result()?;
    Ok(DeployRequest {
        uuids: field("uuid").filter(|s| !s.is_empty()),
        tags: field("tag").filter(|s| !s.is_empty()),
        force,
        pr,
    })
}

/// Queues a deployment of each application `req` names, as Coolify
/// answers it: `{deployments: [{message, resource_uuid,
/// deployment_uuid}]}`, 400 for what cannot be read, 404 when nothing is
/// found. Applications have no tags here: a tag matches nothing.
pub async fn deploy(db: &Db, config: &Config, team: &Team, req: DeployRequest) -> Result<Value> {
    let bad = |m: &str| Err(Error::BadRequest(m.into()));
    let (uuids, tags) = (req.uuids.as_deref(), req.tags.as_deref());
    if uuids.is_some() && tags.is_some() {
        return bad("You can only use uuid or tag, not both.");
    }
    if tags.is_some() && req.pr > 0 {
        return bad("You can only use tag or pr, not both.");
    }
    if let Some(tags) = tags {
        if tags.split(',').all(|t| t.trim().is_empty()) {
            return bad("No TAGs provided.");
        }
        return Err(Error::NothingFound("No resources found with this tag."));
    }
    let Some(uuids) = uuids else {
        return bad("You must provide uuid or tag.");
    };
    let list: Vec<&str> = uuids.split(',').filter(|u| !u.is_empty()).collect();
    if list.is_empty() {
        return bad("No UUIDs provided.");
    }
    if list.len() > MAX_UUIDS {
        return Err(Error::field(
            "uuid",
            format!("At most {MAX_UUIDS} uuids may be deployed at once."),
        ));
    }
    let trigger = Trigger {
        force_rebuild: req.force,
        pull_request_id: req.pr,
        ..Trigger::default()
    };
    let mut out = Vec::new();
    for uuid in list {
        let app = match apps::get(db, team, uuid).await {
            Ok(app) => app,
            // Coolify leaves out what it does not find.
            Err(Error::NotFound(_)) => continue,
            Err(e) => return Err(e),
        };
        let d = match deployments::queue_now(db, config, team, &app, trigger).await {
            Ok(d) => d,
            Err(Error::NotFound(_)) => continue,
            Err(e) => return Err(e),
        };
        out.push(json!({
            "message": format!("Application {} deployment queued.", app.name),
            "resource_uuid": uuid,
            "deployment_uuid": d.deployment_uuid,
        }));
    }
    if out.is_empty() {
        return Err(Error::NothingFound("No resources found."));
    }
    Ok(json!({ "deployments": out }))
}

/// Start, restart or stop of one application: the queued deployment.
pub async fn act(
    db: &Db,
    config: &Config,
    team: &Team,
    uuid: &str,
    trigger: Trigger,
) -> Result<DeploymentRecord> {
    let app = apps::get(db, team, uuid).await?;
    deployments::queue_now(db, config, team, &app, trigger).await
}

/// Coolify's answer to a start, restart or stop.
pub fn answer(d: &DeploymentRecord) -> Value {
    match d.action {
        Action::Deploy => json!({
            "message": "Deployment request queued.",
            "deployment_uuid": d.deployment_uuid,
        }),
        Action::Restart => json!({
            "message": "Restart request queued.",
            "deployment_uuid": d.deployment_uuid,
        }),
        // Coolify's stop names no deployment.
        Action::Stop => json!({"message": "Application stopping request queued."}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| *v)
    }

    #[test]
    fn deploy_requests_read_query_then_body() {
        let r = parse_deploy(query(&[("uuid", "a,b"), ("force", "true")]), None).unwrap();
        assert_eq!(
            r,
            DeployRequest {
                uuids: Some("a,b".into()),
                tags: None,
                force: true,
                pr: 0
            }
        );
        let body = json!({"uuid": "c", "pr": 3});
        let r = parse_deploy(query(&[]), body.as_object()).unwrap();
        assert_eq!((r.uuids.as_deref(), r.pr), (Some("c"), 3));
        let r = parse_deploy(query(&[("pull_request_id", "7")]), None).unwrap();
        assert_eq!(r.pr, 7);
        for (pairs, body, field) in [
            (vec![("force", "yes")], None, "force"),
            (vec![("pr", "-1")], None, "pr"),
            (vec![("pr", "x")], None, "pr"),
            (vec![], Some(json!({"uuids": "a"})), "uuids"),
        ] {
            match parse_deploy(query(&pairs), body.as_ref().and_then(Value::as_object)) {
                Err(Error::Invalid(f)) => assert!(f.contains_key(field), "{pairs:?}"),
                other => panic!("{pairs:?}: {other:?}"),
            }
        }
    }
}
