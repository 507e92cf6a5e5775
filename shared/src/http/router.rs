//! Routing and the request lifecycle. Each function declares its routes
//! with [`routes!`](crate::routes); [`handle`] then matches the path,
//! enforces the body limit, authenticates, checks the route's scope or
//! ability, calls the handler, renders errors in the API's dialect and logs
//! one line with the request's DynamoDB cost.

use std::{future::Future, pin::Pin, sync::Arc, time::Instant};

use lambda_http::{Body, Request, http::HeaderValue};

use super::{
    Ctx, Query, Response, Route, errors::ToResponse, extract, idempotency, limits, public_only,
};
pub use crate::app::App;
use crate::{
    Config, Error, Result,
    auth::{self, Caller},
    db::{self, Db},
    http::Dialect,
    telemetry::{RequestLine, RouteName},
};

pub type BoxFuture<'a> = Pin<Box<dyn Future<Output = Result<Response>> + Send + 'a>>;

/// What `routes!` generates for a function.
pub trait Service: Send + Sync + 'static {
    /// The function crate's name: the `Function` dimension of its metrics.
    const FUNCTION: &'static str;
    const DIALECT: Dialect;
    /// The DynamoDB actions the function may call.
    const GRANT: &'static db::Grant;
    fn routes() -> &'static [Route];
    fn router() -> &'static PathRouter;
    fn call(index: usize, cx: &Ctx) -> BoxFuture<'_>;
}

/// Path matcher over a route table (methods resolved after the path).
pub struct PathRouter(matchit::Router<Vec<(&'static str, usize)>>);

impl PathRouter {
    pub fn new(routes: &'static [Route]) -> Self {
        let mut by_path: Vec<(&str, Vec<(&'static str, usize)>)> = Vec::new();
        for (i, r) in routes.iter().enumerate() {
            match by_path.iter_mut().find(|(p, _)| *p == r.path) {
                Some((_, methods)) => methods.push((r.method, i)),
                None => by_path.push((r.path, vec![(r.method, i)])),
            }
        }
        let mut router = matchit::Router::new();
        for (path, methods) in by_path {
            // The route table is static; a conflict is a programming error
            // caught by every test of the function.
            router
                .insert(path, methods)
                .expect("route table paths must not conflict");
        }
        Self(router)
    }

    /// The matched route index and decoded path parameters.
    fn find(&self, method: &str, path: &str) -> Result<(usize, Vec<(String, String)>)> {
        let m = self.0.at(path).map_err(|_| Error::not_found())?;
        let index = m
            .value
            .iter()
            .find(|(meth, _)| *meth == method)
            .map(|(_, i)| *i)
            .ok_or_else(Error::not_found)?;
        let params = m
            .params
            .iter()
            .map(|(k, v)| {
                let decoded = percent_encoding::percent_decode_str(v)
                    .decode_utf8_lossy()
                    .into_owned();
                (k.to_string(), decoded)
            })
            .collect();
        Ok((index, params))
    }
}

/// Declares a function's DynamoDB grant, then its routes, one per line:
/// `dynamodb { table: &[..], indexes: &[..], rare: &[..] };`
/// `METHOD "path" { guard: .., archived: .., sees: &[..], idempotent: .., limits: .. } => handler;`
/// Every field of [`db::Grant`] (but its name, the crate's) and of
/// [`Route`] must be given. Generates `DYNAMODB`, `ROUTES` and the `Api`
/// service that dispatches to the handlers.
#[macro_export]
macro_rules! routes {
    (
        dialect: $dialect:ident;
        dynamodb { $($grant:ident: $granted:expr),* $(,)? };
        $($method:ident $path:literal { $($field:ident: $value:expr),* $(,)? } => $handler:path;)*
    ) => {
        /// The DynamoDB actions this function may call, in IAM's terms:
        /// `cargo xtask routes` writes them into its policy in
        /// template.yaml, and its `Db` refuses any other call.
        pub const DYNAMODB: $crate::db::Grant = $crate::db::Grant {
            function: env!("CARGO_PKG_NAME"),
            $($grant: $granted),*
        };

        /// Every route this function serves (template.yaml and the local
        /// router must list the same, a test checks).
        pub const ROUTES: &[$crate::http::Route] = &[
            $($crate::http::Route { method: stringify!($method), path: $path, $($field: $value),* },)*
        ];

        /// The function's request dispatcher.
        pub struct Api;

        static ROUTER: std::sync::OnceLock<$crate::http::PathRouter> = std::sync::OnceLock::new();

        impl $crate::http::Service for Api {
            // Expanded in the function's crate, so its name, not `shared`.
            const FUNCTION: &'static str = env!("CARGO_PKG_NAME");
            const DIALECT: $crate::http::Dialect = $crate::http::Dialect::$dialect;
            const GRANT: &'static $crate::db::Grant = &DYNAMODB;
            fn routes() -> &'static [$crate::http::Route] {
                ROUTES
            }
            fn router() -> &'static $crate::http::PathRouter {
                ROUTER.get_or_init(|| $crate::http::PathRouter::new(ROUTES))
            }
            fn call(index: usize, cx: &$crate::http::Ctx) -> $crate::http::BoxFuture<'_> {
                let handlers: &[for<'a> fn(&'a $crate::http::Ctx) -> $crate::http::BoxFuture<'a>] =
                    &[$(|cx| Box::pin($handler(cx)),)*];
                handlers[index](cx)
            }
        }
    };
}

/// Handles one request end to end. Never fails: every error becomes a
/// response in the service's dialect.
pub async fn handle<S: Service>(app: &App, req: Request) -> Response {
    let started = Instant::now();
    let ids = super::request::ids_of(&req);
    let request_id = ids.request_id.as_str();
    let method = req.method().as_str().to_owned();
    let path = req.uri().path().to_owned();
    let db = app.db.for_request().granted(S::GRANT);
    let config = super::request::config_for(&app.config, &req);
    let render = |e: Error| {
        if e.status(S::DIALECT).is_server_error() {
            tracing::error!(request_id, error = %e, "request failed");
        }
        e.into_response(S::DIALECT, &config, request_id)
    };

    // Matched first, so that the request line names the route even when
    // the request fails before its handler (401, 403, 413).
    let found = S::router().find(&method, &path);
    let matched = found.as_ref().ok().map(|(index, _)| &S::routes()[*index]);
    let prepared = match found {
        Ok((index, params)) => {
            let cx = Box::pin(prepare::<S>(
                app,
                &config,
                req,
                index,
                params,
                db.clone(),
                request_id,
            ));
            cx.await.map(|cx| (index, cx))
        }
        Err(e) => Err(e),
    };
    let (route, user, mut res) = match prepared {
        Ok((index, cx)) => {
            let route = &S::routes()[index];
            let user = cx.caller.principal().map(|p| p.user.name.clone());
            let res = Box::pin(run_route::<S>(index, route, &cx, render)).await;
            (Some(route), user, res)
        }
        Err(e) => (None, None, render(e)),
    };
    if let Some(route) = route
        && let Err(limits::TooLarge(bytes)) = limits::fit(&mut res, &route.limits)
    {
        res = render(Error::Internal(format!(
            "the response would take {bytes} bytes, over Lambda's limit, even with {:?} left out",
            route.limits
        )));
    }
    if let Ok(v) = HeaderValue::from_str(request_id) {
        res.headers_mut().insert("x-request-id", v);
    }
    let cost = db.metrics();
    RequestLine {
        function: S::FUNCTION,
        ids: &ids,
        method: &method,
        path: &path,
        route: matched.map(|r| RouteName {
            method: r.method,
            path: r.path,
        }),
        user: user.as_deref(),
        status: res.status().as_u16(),
        latency: started.elapsed(),
        cost: &cost,
    }
    .write(&app.config.metrics_namespace, app.config.metrics_dimensions);
    res
}

/// Everything between the route match and the handler: body limit,
/// credentials, the route's guard.
async fn prepare<S: Service>(
    app: &App,
    config: &Arc<Config>,
    req: Request,
    index: usize,
    params: Vec<(String, String)>,
    db: Db,
    request_id: &str,
) -> Result<Ctx> {
    let route = S::routes()[index];
    db.set_budget(route.limits.reads);
    let query = Query::parse(req.uri().query());
    let (parts, body) = req.into_parts();
    let body = match body {
        Body::Empty => Vec::new(),
        Body::Text(t) => t.into_bytes(),
        Body::Binary(b) => b,
        _ => Vec::new(),
    };
    let limit = route.limits.body.min(config.max_body_bytes);
    if body.len() > limit {
        return Err(Error::PayloadTooLarge(limit));
    }
    // A function without table access (the docs) cannot look a credential
    // up; what it serves is the same for everyone, so it reads none.
    let caller = if route.guard == crate::http::Guard::Runner {
        // Runner routes take a runner's credential and nothing else.
        let credential = extract::credential(&parts.headers, &query, false)?;
        auth::identify_runner(&db, credential).await?
    } else if S::GRANT.is_empty() {
        Caller::Anonymous
    } else {
        let allow_query = S::DIALECT == Dialect::Tracker;
        let credential = extract::credential(&parts.headers, &query, allow_query)?;
        auth::identify(&db, &app.tokens, credential, extract::api(S::DIALECT)).await?
    };
    if let Some(p) = caller.principal() {
        db.set_actor(crate::db::actor::Actor {
            id: p.user.id,
            name: p.user.name.clone(),
        });
    }
    let mut cx = Ctx {
        config: config.clone(),
        db,
        dialect: S::DIALECT,
        method: parts.method,
        path: parts.uri.path().to_owned(),
        params,
        query,
        headers: parts.headers,
        body,
        request_id: request_id.to_owned(),
        caller: Caller::Anonymous,
        tokens: app.tokens.clone(),
        sealer: app.sealer.clone(),
        limits: route.limits,
        archived: route.archived,
    };
    extract::check_guard(&caller, route.guard, cx.method.as_str(), S::DIALECT)?;
    cx.caller = caller;
    Ok(cx)
}

/// The route's own checks around its handler: `public-only` tokens, the
/// idempotency key, and the time a request may take.
async fn run_route<S: Service>(
    index: usize,
    route: &Route,
    cx: &Ctx,
    render: impl Fn(Error) -> Response,
) -> Response {
    let target = public_only::Target {
        route,
        params: &cx.params,
        body: &cx.body,
    };
    // Boxed, like the handler: these futures are large, and an unboxed
    // chain of them overflows a thread's stack in unoptimised builds.
    if let Err(e) = Box::pin(public_only::check(&cx.db, &cx.caller, &target)).await {
        return render(e);
    }
    let claim = match Box::pin(idempotency_claim(route, cx)).await {
        Ok(Some(idempotency::Start::Replay(res))) => return res,
        Ok(Some(idempotency::Start::Run(claim))) => Some(claim),
        Ok(None) => None,
        Err(e) => return render(e),
    };
    cx.db
        .set_deadline(std::time::Instant::now() + cx.config.request_timeout);
    let outcome = tokio::time::timeout(cx.config.request_timeout, S::call(index, cx)).await;
    let res = match outcome {
        Ok(Ok(res)) => res,
        Ok(Err(e)) => render(e),
        Err(_) if cx.db.writes_started() => render(Error::OutcomeUnknown(
            "the request ran out of time after it began writing".into(),
        )),
        Err(_) => render(Error::Unavailable("the request ran out of time".into())),
    };
    if let Some(claim) = claim {
        cx.db.mark_idempotent(None);
        Box::pin(idempotency::finish(&cx.db, claim, &res)).await;
    }
    res
}

/// Claims the request's `Idempotency-Key` on routes that honour one.
async fn idempotency_claim(route: &Route, cx: &Ctx) -> Result<Option<idempotency::Start>> {
    let Some(raw) = cx
        .headers
        .get("idempotency-key")
        .filter(|_| route.idempotent)
    else {
        return Ok(None);
    };
    let Some(me) = cx.caller.principal() else {
        return Ok(None);
    };
    let key = idempotency::parse_key(raw.as_bytes())?;
    // The query without credentials (they are not part of the request).
    let query: Vec<_> = cx
        .query
        .pairs()
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "token" | "access_token"))
        .collect();
    let target = format!("{}?{query:?}", cx.path);
    let fp = idempotency::fingerprint(cx.method.as_str(), &target, &cx.body);
    // Keys belong to the caller acting for one team: the same user's tokens
    // for two deploy teams do not replay each other's answers.
    let caller = match &me.via {
        auth::Via::Token { team, .. } => format!("{}:{}", me.user.id, crate::name::fold(team)),
        auth::Via::Password => me.user.id.to_string(),
    };
    let start = idempotency::start(&cx.db, &cx.config, &caller, key, &fp).await?;
    if let idempotency::Start::Run(claim) = &start {
        cx.db.mark_idempotent(Some(claim.marker()));
    }
    cx.db.forget_writes();
    Ok(Some(start))
}

/// The Lambda entry point of a function: JSON logs, configuration and the
/// DynamoDB client once per cold start, then one [`handle`] per event.
pub async fn run<S: Service>() -> std::result::Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let config = Config::from_env()?;
    // Lives as long as the process, like the Lambda execution environment.
    let app: &'static App = Box::leak(Box::new(App::new(config).await));
    let handler = lambda_http::service_fn(move |req: Request| async move {
        Ok::<_, std::convert::Infallible>(handle::<S>(app, req).await)
    });
    #[cfg(debug_assertions)]
    return lambda_http::runtime(handler)
        .layer(super::emulator::Layer)
        .run()
        .await;
    #[cfg(not(debug_assertions))]
    lambda_http::run(handler).await
}
