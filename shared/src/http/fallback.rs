//! The answer to every request no route serves. API Gateway's `$default`
//! route, and the local router's catch-all, send such requests to the
//! `fallback` function: a path that some route serves with other methods
//! gets 405 with `Allow`, any other path 404. The dialect is the path's:
//! the deploy API's resources answer as Coolify, everything else as Gitea.
//! Nothing here touches the database.

use std::{convert::Infallible, sync::Arc, time::Instant};

use lambda_http::{Request, http::HeaderValue};

use super::{Dialect, Response, errors::ToResponse};
use crate::{Config, Error, db::MetricsSnapshot, telemetry::RequestLine};

/// One served route, as `cargo xtask routes` lists them for the fallback.
pub struct Known {
    pub method: &'static str,
    pub path: &'static str,
    /// Served by a function of the deploy API.
    pub deploy: bool,
}

/// Why a request reached the fallback, and in which dialect to say so:
/// `allow` lists the methods the path serves (empty: unknown path).
#[derive(Debug, PartialEq, Eq)]
pub struct Miss {
    pub dialect: Dialect,
    pub allow: Vec<&'static str>,
}

impl Miss {
    pub fn error(&self) -> Error {
        match (self.allow.is_empty(), self.dialect) {
            (true, Dialect::Tracker) => Error::not_found(),
            // Coolify's catch-all text.
            (true, Dialect::Deploy) => Error::NotFound("Not found.".into()),
            (false, Dialect::Tracker) => Error::MethodNotAllowed("method not allowed".into()),
            (false, Dialect::Deploy) => Error::MethodNotAllowed("Method not allowed.".into()),
        }
    }
}

/// Every served path with its methods, matched as the local router and
/// API Gateway match them (static segments before parameters).
pub struct Table {
    router: matchit::Router<(bool, Vec<&'static str>)>,
    /// First segments after `/api/v1/` of the deploy API's paths.
    deploy_prefixes: Vec<&'static str>,
}

impl Table {
    pub fn new(routes: &'static [Known]) -> Self {
        let mut paths: Vec<(&str, bool, Vec<&str>)> = Vec::new();
        let mut deploy_prefixes = Vec::new();
        for r in routes {
            match paths.iter_mut().find(|(p, ..)| *p == r.path) {
                Some((.., methods)) => methods.push(r.method),
                None => paths.push((r.path, r.deploy, vec![r.method])),
            }
            if let Some(first) = r.deploy.then(|| first_segment(r.path)).flatten()
                && !deploy_prefixes.contains(&first)
            {
                deploy_prefixes.push(first);
            }
        }
        // A first segment both APIs serve (`teams`: Gitea's `/teams/{id}`,
        // Coolify's `/teams`) stays Gitea's, as it was before Coolify's.
        deploy_prefixes.retain(|p| {
            !routes
                .iter()
                .any(|r| !r.deploy && first_segment(r.path) == Some(*p))
        });
        let mut router = matchit::Router::new();
        for (path, deploy, methods) in paths {
            // The table is generated from route tables whose paths already
            // live together in one router (Cargo.toml's).
            router
                .insert(path, (deploy, methods))
                .expect("served paths must not conflict");
        }
        Self {
            router,
            deploy_prefixes,
        }
    }

    pub fn miss(&self, method: &str, path: &str) -> Miss {
        if let Ok(found) = self.router.at(path) {
            let (deploy, methods) = found.value;
            let allow = if methods.contains(&method) {
                Vec::new() // served: only a misrouted request lands here
            } else {
                methods.clone()
            };
            return Miss {
                dialect: dialect(*deploy),
                allow,
            };
        }
        let deploy = first_segment(path).is_some_and(|s| self.deploy_prefixes.contains(&s));
        Miss {
            dialect: dialect(deploy),
            allow: Vec::new(),
        }
    }
}

fn dialect(deploy: bool) -> Dialect {
    if deploy {
        Dialect::Deploy
    } else {
        Dialect::Tracker
    }
}

fn first_segment(path: &str) -> Option<&str> {
    path.strip_prefix("/api/v1/")?.split('/').next()
}

/// The fallback function's Lambda entry point: configuration once per cold
/// start (no database client), then one answer per event. `function` is
/// the crate's name, for the request line.
pub async fn run(
    function: &'static str,
    routes: &'static [Known],
) -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let config: &'static Arc<Config> = Box::leak(Box::new(Arc::new(Config::from_env()?)));
    let table: &'static Table = Box::leak(Box::new(Table::new(routes)));
    let handler = lambda_http::service_fn(move |req: Request| async move {
        Ok::<_, Infallible>(answer(function, table, config, &req))
    });
    #[cfg(debug_assertions)]
    return lambda_http::runtime(handler)
        .layer(super::emulator::Layer)
        .run()
        .await;
    #[cfg(not(debug_assertions))]
    lambda_http::run(handler).await
}

fn answer(function: &str, table: &Table, config: &Arc<Config>, req: &Request) -> Response {
    let started = Instant::now();
    let ids = super::request::ids_of(req);
    let request_id = ids.request_id.as_str();
    let config = super::request::config_for(config, req);
    let (method, path) = (req.method().as_str(), req.uri().path());
    let miss = table.miss(method, path);
    let mut res = miss
        .error()
        .into_response(miss.dialect, &config, request_id);
    if let Ok(v) = HeaderValue::from_str(&miss.allow.join(", "))
        && !miss.allow.is_empty()
    {
        res.headers_mut().insert("allow", v);
    }
    if let Ok(v) = HeaderValue::from_str(request_id) {
        res.headers_mut().insert("x-request-id", v);
    }
    RequestLine {
        function,
        ids: &ids,
        method,
        path,
        route: None,
        user: None,
        status: res.status().as_u16(),
        latency: started.elapsed(),
        cost: &MetricsSnapshot::default(),
    }
    .write(&config.metrics_namespace, config.metrics_dimensions);
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTES: &[Known] = &[
        Known {
            method: "GET",
            path: "/api/v1/repos/{owner}/{repo}",
            deploy: false,
        },
        Known {
            method: "PATCH",
            path: "/api/v1/repos/{owner}/{repo}",
            deploy: false,
        },
        Known {
            method: "GET",
            path: "/api/v1/repos/issues/search",
            deploy: false,
        },
        Known {
            method: "GET",
            path: "/api/v1/applications/{uuid}",
            deploy: true,
        },
        Known {
            method: "GET",
            path: "/api/v1/teams",
            deploy: true,
        },
        Known {
            method: "GET",
            path: "/api/v1/teams/{id}",
            deploy: false,
        },
    ];

    #[test]
    fn known_paths_answer_405_with_their_methods_in_their_dialect() {
        let t = Table::new(ROUTES);
        let miss = |m, p| t.miss(m, p);
        assert_eq!(
            miss("POST", "/api/v1/repos/o/r"),
            Miss {
                dialect: Dialect::Tracker,
                allow: vec!["GET", "PATCH"]
            }
        );
        // The static path wins over the parameters, as in the routers.
        assert_eq!(miss("POST", "/api/v1/repos/issues/search").allow, ["GET"]);
        assert_eq!(
            miss("DELETE", "/api/v1/applications/x"),
            Miss {
                dialect: Dialect::Deploy,
                allow: vec!["GET"]
            }
        );
    }

    #[test]
    fn unknown_paths_answer_404_in_the_dialect_of_their_prefix() {
        let t = Table::new(ROUTES);
        for (path, dialect) in [
            ("/api/v1/applications/x/y/z", Dialect::Deploy),
            ("/api/v1/applicationsx", Dialect::Tracker),
            // A prefix both APIs serve stays Gitea's.
            ("/api/v1/teams/1/repos", Dialect::Tracker),
            ("/api/v1/nothing", Dialect::Tracker),
            ("/", Dialect::Tracker),
            ("/api/v2/applications", Dialect::Tracker),
        ] {
            assert_eq!(
                t.miss("GET", path),
                Miss {
                    dialect,
                    allow: vec![]
                },
                "{path}"
            );
        }
        let e = t.miss("GET", "/api/v1/applications/a/b").error();
        assert!(matches!(e, Error::NotFound(m) if m == "Not found."));
    }
}
