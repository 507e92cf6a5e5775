//! Application domains: parsing and normalisation, generated domains, and
//! claims. A claim item per (team, normalised URL) holds the set of
//! applications using it; a create or PATCH adds itself to the claims of
//! its new domains in the same transaction as the application write, with
//! the condition "nobody holds it" unless the client forces the override.
//! So conflicts cost one item per domain, whatever the team's size, and two
//! concurrent requests cannot both take a free domain.

use serde::Serialize;

use super::Team;
use crate::{
    Config, Result,
    db::{self, Db, DbError, Tx, keys},
};

/// The most domains one application may carry, its own and its compose
/// services' together (each is an item of the application's transaction).
pub const MAX_DOMAINS: usize = 20;

/// Normalised http(s) URLs: lower-case scheme and host, one trailing `/`
/// dropped, duplicates removed, order kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DomainList(Vec<String>);

impl DomainList {
    /// Parses Coolify's comma-separated form. Every bad item is reported,
    /// with Coolify's messages.
    pub fn parse(raw: &str) -> Result<DomainList, Vec<String>> {
        let mut urls = Vec::new();
        let mut errors = Vec::new();
        for item in raw.trim().trim_matches(',').split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            match normalise(item) {
                Ok(u) if !urls.contains(&u) => urls.push(u),
                Ok(_) => {}
                Err(e) => errors.push(e),
            }
        }
        if urls.len() > MAX_DOMAINS {
            errors.push(format!("At most {MAX_DOMAINS} domains are allowed."));
        }
        if errors.is_empty() {
            Ok(DomainList(urls))
        } else {
            Err(errors)
        }
    }

    pub fn from_stored(fqdn: &str) -> DomainList {
        DomainList(
            fqdn.split(',')
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn urls(&self) -> &[String] {
        &self.0
    }

    /// The stored and shown form (`fqdn`): comma-joined, or `None`.
    pub fn fqdn(&self) -> Option<String> {
        (!self.0.is_empty()).then(|| self.0.join(","))
    }

    pub fn extend(&mut self, more: DomainList) {
        for d in more.0 {
            if !self.0.contains(&d) {
                self.0.push(d);
            }
        }
    }
}

const FORBIDDEN: &[char] = &[
    '`', '$', ';', '&', '|', '<', '>', '(', ')', '\\', '\r', '\n', ' ',
];

fn normalise(item: &str) -> Result<String, String> {
    let invalid = || format!("Invalid URL: {item}");
    if item.contains(FORBIDDEN) || item.len() > 1024 {
        return Err(invalid());
    }
    let url = url::Url::parse(item).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "Invalid URL scheme: {} for URL: {item}. Only http and https are supported.",
            url.scheme()
        ));
    }
    if url.host_str().is_none_or(str::is_empty) || !url.username().is_empty() {
        return Err(invalid());
    }
    let text = url.to_string();
    let text = text.strip_suffix('/').unwrap_or(&text);
    // Claims are keyed by the URL; percent-encoding may have grown it.
    if text.len() > 1024 {
        return Err(invalid());
    }
    Ok(text.to_string())
}

/// A generated domain: `{scheme}://{uuid}.{wildcard host}{path}` from the
/// server's wildcard domain, else `http://{uuid}.{ip}.sslip.io`.
pub fn generate(uuid: &str, wildcard: Option<&str>, ip: &str) -> String {
    if let Some(url) = wildcard.and_then(|w| url::Url::parse(w).ok())
        && let Some(host) = url.host_str()
    {
        let path = url.path().trim_end_matches('/');
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        return format!("{}://{uuid}.{host}{port}{path}", url.scheme());
    }
    let host = if ip.contains(':') {
        ip.replace(':', "-")
    } else {
        ip.to_string()
    };
    format!("http://{uuid}.{host}.sslip.io")
}

/// One entry of a 409's `conflicts`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Conflict {
    pub domain: String,
    pub resource_name: String,
    pub resource_uuid: Option<String>,
    pub resource_type: &'static str,
    pub message: String,
}

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
        tx.update(
            keys::domain_claim(&team.name, d),
            "ADD apps :me",
            &[(
                ":me",
                aws_sdk_dynamodb::types::AttributeValue::Ss(vec![app.to_string()]),
            )],
            (!force).then_some("attribute_not_exists(apps)"),
        )?;
    }
    Ok(())
}

/// Removes `app` from the claims of `domains` (an emptied set disappears,
/// which frees the domain).
pub fn release(tx: &mut Tx, team: &Team, app: &str, domains: &[String]) -> Result<(), DbError> {
    for d in domains {
        tx.update(
            keys::domain_claim(&team.name, d),
            "DELETE apps :me",
            &[(
                ":me",
                aws_sdk_dynamodb::types::AttributeValue::Ss(vec![app.to_string()]),
            )],
            None,
        )?;
    }
    Ok(())
}

/// The requested domains that are the instance's own.
pub fn instance_conflicts(config: &Config, domains: &[String]) -> Vec<Conflict> {
    let Some(instance) = config.instance_domain().and_then(|d| normalise(&d).ok()) else {
        return Vec::new();
    };
    domains
        .iter()
        .filter(|d| **d == instance)
        .map(|d| Conflict {
            domain: d.clone(),
            resource_name: "Deploy Instance".into(),
            resource_uuid: None,
            resource_type: "instance",
            message: format!("Domain {d} is already in use by this instance"),
        })
        .collect()
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
        if let Some(aws_sdk_dynamodb::types::AttributeValue::Ss(apps)) = claim.get("apps") {
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
        let keys = chunk
            .iter()
            .map(|a| team.key(&super::apps::sk(a)))
            .collect();
        for item in db.batch_get(keys).await? {
            let get = |k: &str| match item.get(k) {
                Some(aws_sdk_dynamodb::types::AttributeValue::S(v)) => v.clone(),
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
        Some(aws_sdk_dynamodb::types::AttributeValue::S(pk)) => {
            pk.splitn(3, '#').nth(2).map(str::to_string)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_normalises() {
        let d = DomainList::parse(
            " HTTPS://App.Example.COM/ , http://x.io/api/, ,https://app.example.com",
        )
        .unwrap();
        assert_eq!(d.urls(), ["https://app.example.com", "http://x.io/api"]);
        assert_eq!(d.fqdn().unwrap(), "https://app.example.com,http://x.io/api");
        assert_eq!(DomainList::parse("").unwrap().fqdn(), None);
        assert_eq!(
            DomainList::parse("example.com,ftp://x.io").unwrap_err(),
            [
                "Invalid URL: example.com",
                "Invalid URL scheme: ftp for URL: ftp://x.io. Only http and https are supported."
            ]
        );
        assert!(DomainList::parse("https://a.com/$(id)").is_err());
    }

    #[test]
    fn generated_domains() {
        assert_eq!(
            generate("u1", Some("https://apps.example.com"), "1.2.3.4"),
            "https://u1.apps.example.com"
        );
        assert_eq!(
            generate("u1", Some("http://apps.example.com/base/"), "1.2.3.4"),
            "http://u1.apps.example.com/base"
        );
        assert_eq!(
            generate("u1", None, "1.2.3.4"),
            "http://u1.1.2.3.4.sslip.io"
        );
        assert_eq!(
            generate("u1", None, "2001:db8::1"),
            "http://u1.2001-db8--1.sslip.io"
        );
    }
}
