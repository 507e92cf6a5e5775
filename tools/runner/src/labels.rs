//! Traefik labels for an application's domains, in the shape Coolify
//! writes them (its `fqdnLabelsForTraefik`), so a server's Traefik routes
//! to containers this runner starts as it routes to Coolify's.
//!
//! Per domain `i`: an `http-i-<uuid>` router on the `http` entry point and,
//! for an `https://` URL, an `https-i-<uuid>` router on `https` with TLS
//! from the `letsencrypt` resolver (the http router then redirects to it).
//! A URL path becomes a `PathPrefix` and a strip-prefix middleware. The
//! service port is the URL's port if it names one, else the first of
//! `ports_exposes`.

use url::Url;

/// The labels, or the domain that is not a usable URL.
pub fn traefik(uuid: &str, domains: &[String], ports_exposes: &str) -> Result<Vec<String>, String> {
    if domains.is_empty() {
        return Ok(Vec::new());
    }
    let default_port = ports_exposes
        .split(',')
        .map(str::trim)
        .find(|p| !p.is_empty())
        .unwrap_or("80");
    let mut labels = vec![
        "traefik.enable=true".to_owned(),
        "traefik.http.middlewares.gzip.compress=true".to_owned(),
        "traefik.http.middlewares.redirect-to-https.redirectscheme.scheme=https".to_owned(),
    ];
    for (i, domain) in domains.iter().enumerate() {
        let url = Url::parse(domain.trim()).map_err(|e| format!("domain {domain}: {e}"))?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            other => {
                return Err(format!(
                    "domain {domain}: scheme {other} is not http or https"
                ));
            }
        };
        let host = url
            .host_str()
            .filter(|h| !h.contains('`'))
            .ok_or_else(|| format!("domain {domain}: no usable host"))?;
        let path = url.path().trim_end_matches('/');
        if path.contains('`') {
            return Err(format!("domain {domain}: the path has a backquote"));
        }
        let port = url.port().map(|p| p.to_string());
        let port = port.as_deref().unwrap_or(default_port);
        let rule = if path.is_empty() {
            format!("Host(`{host}`)")
        } else {
            format!("Host(`{host}`) && PathPrefix(`{path}`)")
        };
        let http = format!("http-{i}-{uuid}");
        let https_name = format!("https-{i}-{uuid}");
        let served = if https { &https_name } else { &http };
        let mut middlewares = "gzip".to_owned();
        if !path.is_empty() {
            let strip = format!("{served}-stripprefix");
            labels.push(format!(
                "traefik.http.middlewares.{strip}.stripprefix.prefixes={path}"
            ));
            middlewares = format!("{strip},gzip");
        }
        labels.push(format!("traefik.http.routers.{http}.entryPoints=http"));
        labels.push(format!("traefik.http.routers.{http}.rule={rule}"));
        if https {
            labels.push(format!(
                "traefik.http.routers.{http}.middlewares=redirect-to-https"
            ));
            labels.push(format!(
                "traefik.http.routers.{https_name}.entryPoints=https"
            ));
            labels.push(format!("traefik.http.routers.{https_name}.rule={rule}"));
            labels.push(format!("traefik.http.routers.{https_name}.tls=true"));
            labels.push(format!(
                "traefik.http.routers.{https_name}.tls.certresolver=letsencrypt"
            ));
        }
        labels.push(format!(
            "traefik.http.routers.{served}.middlewares={middlewares}"
        ));
        labels.push(format!("traefik.http.routers.{served}.service={served}"));
        labels.push(format!(
            "traefik.http.services.{served}.loadbalancer.server.port={port}"
        ));
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(labels: &[String], want: &str) {
        assert!(labels.iter().any(|l| l == want), "no {want} in {labels:#?}");
    }

    #[test]
    fn https_domain_gets_tls_and_a_redirect() {
        let l = traefik("app1", &["https://app.example.com".into()], "3000,4000").unwrap();
        has(&l, "traefik.enable=true");
        has(&l, "traefik.http.routers.http-0-app1.entryPoints=http");
        has(
            &l,
            "traefik.http.routers.http-0-app1.rule=Host(`app.example.com`)",
        );
        has(
            &l,
            "traefik.http.routers.http-0-app1.middlewares=redirect-to-https",
        );
        has(&l, "traefik.http.routers.https-0-app1.entryPoints=https");
        has(
            &l,
            "traefik.http.routers.https-0-app1.rule=Host(`app.example.com`)",
        );
        has(&l, "traefik.http.routers.https-0-app1.tls=true");
        has(
            &l,
            "traefik.http.routers.https-0-app1.tls.certresolver=letsencrypt",
        );
        has(&l, "traefik.http.routers.https-0-app1.service=https-0-app1");
        has(
            &l,
            "traefik.http.services.https-0-app1.loadbalancer.server.port=3000",
        );
    }

    #[test]
    fn http_domain_has_no_tls() {
        let l = traefik("app1", &["http://plain.example.com".into()], "8080").unwrap();
        has(
            &l,
            "traefik.http.routers.http-0-app1.rule=Host(`plain.example.com`)",
        );
        has(&l, "traefik.http.routers.http-0-app1.middlewares=gzip");
        has(
            &l,
            "traefik.http.services.http-0-app1.loadbalancer.server.port=8080",
        );
        assert!(
            !l.iter().any(|x| x.contains("https-0") || x.contains("tls")),
            "{l:#?}"
        );
    }

    #[test]
    fn a_path_becomes_a_prefix_and_a_port_in_the_url_wins() {
        let l = traefik("u", &["https://example.com:5000/api/".into()], "80").unwrap();
        let rule = "Host(`example.com`) && PathPrefix(`/api`)";
        has(&l, &format!("traefik.http.routers.https-0-u.rule={rule}"));
        has(&l, &format!("traefik.http.routers.http-0-u.rule={rule}"));
        has(
            &l,
            "traefik.http.middlewares.https-0-u-stripprefix.stripprefix.prefixes=/api",
        );
        has(
            &l,
            "traefik.http.routers.https-0-u.middlewares=https-0-u-stripprefix,gzip",
        );
        has(
            &l,
            "traefik.http.services.https-0-u.loadbalancer.server.port=5000",
        );
    }

    #[test]
    fn each_domain_has_its_own_routers() {
        let domains = [
            "https://a.example.com".into(),
            "http://b.example.com".into(),
        ];
        let l = traefik("u", &domains, "80").unwrap();
        has(
            &l,
            "traefik.http.routers.https-0-u.rule=Host(`a.example.com`)",
        );
        has(
            &l,
            "traefik.http.routers.http-1-u.rule=Host(`b.example.com`)",
        );
        assert_eq!(l.iter().filter(|x| *x == "traefik.enable=true").count(), 1);
    }

    #[test]
    fn no_domains_no_labels_and_bad_ones_fail() {
        assert!(traefik("u", &[], "80").unwrap().is_empty());
        assert!(traefik("u", &["ftp://x.example.com".into()], "80").is_err());
        assert!(traefik("u", &["not a url".into()], "80").is_err());
    }
}
