//! Domain claims. A claim item per (team, normalised URL) holds the set of
//! applications using it; a create or PATCH adds itself to the claims of
//! its new domains in the same transaction as the application write, with
//! the condition "nobody holds it" unless the client forces the override.
//! So conflicts cost one item per domain, whatever the team's size, and two
//! concurrent requests cannot both take a free domain.

use super::app_sk;
use crate::{
    db::{self, Change, Cond, Db, DbError, Tx, Value, keys},
    deploy::{error::Result, model::domains::Conflict, team::Team},
};

/// Adds `app` to the claims of `domains`. Without `force` each claim must
/// be free.
pub fn claim(
    tx: &mut Tx,
    team: &Team,
    app: &str,
    domains: &[String],
    force: bool,
) -> Result<(), DbError> {
    for d in domains {
        tx.change(
            keys::domain_claim(&team.name, d),
            Change::new().add("apps", Value::Ss(vec![app.to_string()])),
            (!force).then(|| Cond::lacks("apps")),
        )?;
    }
    Ok(())
}

/// Removes `app` from the claims of `domains` (an emptied set disappears,
/// which frees the domain).
pub fn release(tx: &mut Tx, team: &Team, app: &str, domains: &[String]) -> Result<(), DbError> {
    for d in domains {
        tx.change(
            keys::domain_claim(&team.name, d),
            Change::new().delete("apps", Value::Ss(vec![app.to_string()])),
            None,
        )?;
    }
    Ok(())
}

/// Which of the team's applications, apart from `me`, hold `domains`: one
/// batch read of the claims, one of the holders' names.
pub async fn conflicts(
    db: &Db,
    team: &Team,
    me: Option<&str>,
    domains: &[String],
) -> Result<Vec<Conflict>> {
    let mut found = Vec::new();
    if domains.is_empty() {
        return Ok(found);
    }
    let claims = db
        .batch_get(
            domains
                .iter()
                .map(|d| keys::domain_claim(&team.name, d))
                .collect(),
        )
        .await?;
    let mut holders: Vec<(String, String)> = Vec::new();
    for claim in claims {
        let domain = claim_domain(&claim).unwrap_or_default();
        if let Some(Value::Ss(apps)) = claim.get("apps") {
            for app in apps.iter().filter(|a| Some(a.as_str()) != me) {
                holders.push((domain.clone(), app.clone()));
            }
        }
    }
    let mut names = std::collections::HashMap::new();
    let mut wanted: Vec<&String> = holders.iter().map(|(_, a)| a).collect();
    wanted.sort();
    wanted.dedup();
    for chunk in wanted.chunks(100) {
        let keys = chunk.iter().map(|a| team.key(&app_sk(a))).collect();
        for item in db.batch_get(keys).await? {
            let get = |k: &str| match item.get(k) {
                Some(Value::S(v)) => v.clone(),
                _ => String::new(),
            };
            names.insert(get("uuid"), get("name"));
        }
    }
    for domain in domains {
        for (d, app) in holders.iter().filter(|(d, _)| d == domain) {
            let name = names.get(app).cloned().unwrap_or_default();
            found.push(Conflict {
                domain: d.clone(),
                message: format!("Domain {d} is already in use by application '{name}'"),
                resource_name: name,
                resource_uuid: Some(app.clone()),
                resource_type: "application",
            });
        }
    }
    Ok(found)
}

/// The domain a claim item is for, from its partition key.
fn claim_domain(item: &db::Item) -> Option<String> {
    match item.get("pk") {
        Some(Value::S(pk)) => pk.splitn(3, '#').nth(2).map(str::to_string),
        _ => None,
    }
}
