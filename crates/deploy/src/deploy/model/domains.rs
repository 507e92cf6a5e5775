//! Application domains: parsing and normalisation, generated domains, and
//! the conflicts a request can meet (their claims are in `store::claims`).

use crate::Config;

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

pub fn normalise(item: &str) -> Result<String, String> {
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
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "Invalid URL: {item}. A domain may not carry a query (?) or a fragment (#)."
        ));
    }
    // `host.` is the same host as `host` (the root of DNS, written out).
    let mut url = url;
    if let Some(host) = url
        .host_str()
        .and_then(|h| h.strip_suffix('.'))
        .map(str::to_string)
        && (host.is_empty() || url.set_host(Some(&host)).is_err())
    {
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

/// What a domain claims: its host, port (when not its scheme's default)
/// and path, whatever the scheme: one reverse proxy routes `http://` and
/// `https://` of a host alike, so they conflict. (Coolify compares whole
/// URLs, so there they do not.) Different paths on one host, or another
/// port, are different claims. A stored value that is not a URL claims
/// itself.
pub fn claim_form(url: &str) -> String {
    let Ok(u) = url::Url::parse(url) else {
        return url.to_string();
    };
    let host = u.host_str().unwrap_or_default();
    let host = host.strip_suffix('.').unwrap_or(host);
    let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = u.path().trim_end_matches('/');
    format!("{host}{port}{path}")
}

/// The distinct claims of `urls`, in order.
pub fn claim_forms(urls: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in urls.iter().map(|u| claim_form(u)) {
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
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

pub use crate::deploy::error::Conflict;

/// The requested claims (`claim_form`s) that are the instance's own.
pub fn instance_conflicts(config: &Config, claims: &[String]) -> Vec<Conflict> {
    let Some(instance) = config
        .instance_domain()
        .and_then(|d| normalise(&d).ok())
        .map(|d| claim_form(&d))
    else {
        return Vec::new();
    };
    claims
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
    fn claims_ignore_the_scheme_and_a_trailing_dot() {
        let form = |u: &str| claim_form(&normalise(u).unwrap());
        let base = form("http://localhost:9000");
        for same in [
            "http://localhost.:9000",
            "https://localhost:9000",
            "HTTP://LocalHost:9000/",
        ] {
            assert_eq!(form(same), base, "{same}");
        }
        assert_eq!(base, "localhost:9000");
        assert_ne!(form("http://localhost:9001"), base, "another port");
        assert_ne!(form("http://localhost:9000/api"), base, "another path");
        assert_eq!(form("http://x.io"), form("https://x.io"), "default ports");
        assert_eq!(
            normalise("http://localhost.:9000").unwrap(),
            "http://localhost:9000"
        );
        for bad in [
            "http://localhost:9000?x=1",
            "http://localhost:9000#f",
            "http://./",
        ] {
            assert!(normalise(bad).is_err(), "{bad}");
        }
        let urls = ["http://a.io".to_string(), "https://a.io/".to_string()];
        assert_eq!(claim_forms(&urls), ["a.io"]);
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
