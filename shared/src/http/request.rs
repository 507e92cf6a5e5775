//! What a handler sees of a request: path parameters, query, headers, the
//! raw body with typed JSON decoding, the caller, and a per-request `Db`.

use std::sync::Arc;

use lambda_http::http::{HeaderMap, Method, StatusCode};
use serde::{Serialize, de::DeserializeOwned};

use super::Dialect;
use super::{Response, response};
use crate::{
    Config, Error, Result,
    auth::Caller,
    db::Db,
    telemetry::{COLD_START, RequestIds},
};

/// Decoded query string, in the order the client sent it.
#[derive(Clone, Debug, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(raw: Option<&str>) -> Self {
        Self(
            url::form_urlencoded::parse(raw.unwrap_or("").as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }
}

/// The request context handed to every handler.
pub struct Ctx {
    pub config: Arc<Config>,
    pub db: Db,
    pub dialect: Dialect,
    pub method: Method,
    /// The path as the client sent it (no query).
    pub path: String,
    pub params: Vec<(String, String)>,
    pub query: Query,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    pub request_id: String,
    pub caller: Caller,
    /// This instance's token cache: handlers that revoke a token or change
    /// a membership forget the user's entries.
    pub tokens: Arc<crate::auth::TokenCache>,
    /// Seals and opens secrets at rest (the deploy area's, through its
    /// `Team`).
    pub sealer: Arc<crate::seal::Sealer>,
    /// The route's size limits (lists build within them).
    pub limits: super::Limits,
    /// What the route may do on an archived repository.
    pub archived: super::Archived,
}

impl Ctx {
    /// The page the query asks for (`page`, `limit`), within the configured sizes.
    pub fn page(&self) -> crate::page::Page {
        page_of(&self.query, &self.config)
    }

    /// A path parameter; routes guarantee the name exists.
    pub fn param(&self, name: &str) -> &str {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    }

    /// A numeric path parameter (ids, issue numbers): 404 when it is not a
    /// number, as no such object can exist.
    pub fn id_param(&self, name: &str) -> Result<i64> {
        self.param(name).parse().map_err(|_| {
            Error::NotFound(format!(
                "{name} must be a number, got {:?}",
                self.param(name)
            ))
        })
    }

    /// Rejects bodies that say they are not JSON. A missing content type is
    /// taken as JSON, since many clients leave it out.
    fn check_json_content_type(&self) -> Result<()> {
        let Some(ct) = self.headers.get("content-type") else {
            return Ok(());
        };
        let ct = ct.to_str().unwrap_or("").to_ascii_lowercase();
        let mime = ct.split(';').next().unwrap_or("").trim();
        if mime == "application/json" || mime.ends_with("+json") || mime.is_empty() {
            Ok(())
        } else {
            Err(Error::UnsupportedMediaType(format!(
                "Content-Type must be application/json, got {mime:?}"
            )))
        }
    }

    /// Decodes the JSON body into `T`. Errors name the offending field and
    /// what was expected (`email: invalid type: integer, expected a string`).
    pub fn json<T: DeserializeOwned>(&self) -> Result<T> {
        let object = self.json_object()?;
        serde_path_to_error::deserialize(serde_json::Value::Object(object)).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            Error::Unprocessable(if path == "." {
                inner.to_string()
            } else {
                format!("{path}: {inner}")
            })
        })
    }

    /// The body as a JSON object (the deploy API checks its keys itself).
    pub fn json_object(&self) -> Result<serde_json::Map<String, serde_json::Value>> {
        self.check_json_content_type()?;
        if std::str::from_utf8(&self.body).is_err() {
            return Err(Error::BadRequest(
                "request body is not UTF-8: send a JSON object".into(),
            ));
        }
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::Unprocessable(
                "request body is required: send a JSON object".into(),
            ));
        }
        match serde_json::from_slice(&self.body) {
            Ok(serde_json::Value::Object(map)) => Ok(map),
            Ok(_) => Err(Error::Unprocessable(
                "request body must be a JSON object".into(),
            )),
            Err(e) => Err(Error::Unprocessable(format!("malformed JSON: {e}"))),
        }
    }

    /// The body as a JSON object, or `None` when there is none (routes
    /// whose body is optional).
    pub fn json_object_if_any(&self) -> Result<Option<serde_json::Map<String, serde_json::Value>>> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        self.json_object().map(Some)
    }

    /// A JSON response in this API's dialect.
    pub fn reply(&self, status: StatusCode, value: &impl Serialize) -> Result<Response> {
        Ok(response::json(self.dialect, status, value))
    }

    /// A list built within the route's limits ([`super::limits::ListFitter`]),
    /// with `X-Omitted-Fields` when something was left out.
    pub fn reply_list(&self, fitter: super::limits::ListFitter) -> Result<Response> {
        let (items, omitted) = fitter.finish();
        let mut res = response::json(self.dialect, StatusCode::OK, &items);
        if let Some(v) = omitted.and_then(|o| lambda_http::http::HeaderValue::from_str(&o).ok()) {
            res.headers_mut().insert("x-omitted-fields", v);
        }
        Ok(res)
    }

    /// 204 No Content.
    pub fn no_content(&self) -> Result<Response> {
        Ok(response::empty(StatusCode::NO_CONTENT))
    }

    /// The caller, who must be signed in (401 "token is required" otherwise).
    pub fn signed_in(&self) -> Result<&crate::auth::Principal> {
        self.caller.principal().ok_or(Error::TokenRequired)
    }
}

/// The configuration for `req`: its root URL from API Gateway's request
/// context (domain name and stage) when `ROOT_URL` is not set, never from
/// a header the client sends (see [`Config::for_request`]).
pub fn config_for(config: &Arc<Config>, req: &lambda_http::Request) -> Arc<Config> {
    use lambda_http::{RequestExt, request::RequestContext};
    match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => {
            config.for_request(c.domain_name.as_deref(), c.stage.as_deref())
        }
        _ => config.clone(),
    }
}

/// The ids `req` is known by in the logs (see [`RequestIds`]): Lambda's
/// from the invocation's context, API Gateway's from the event's request
/// context, the trace from the context (or, as the runtime also sets it,
/// `_X_AMZN_TRACE_ID`); and whether it is this instance's first request.
pub fn ids_of(req: &lambda_http::Request) -> RequestIds {
    use lambda_http::{RequestExt, request::RequestContext};
    let lambda = req.lambda_context_ref();
    let apigw = match req.request_context_ref() {
        Some(RequestContext::ApiGatewayV2(c)) => c.request_id.as_deref(),
        _ => None,
    };
    let trace = lambda
        .and_then(|c| c.xray_trace_id.clone())
        .or_else(|| std::env::var("_X_AMZN_TRACE_ID").ok());
    RequestIds::new(
        lambda.map(|c| c.request_id.as_str()),
        apigw,
        trace.as_deref(),
        COLD_START.take(),
    )
}

/// The page a request asks for. `page` below 1 or unparsable → 1; `limit`
/// 0, absent or unparsable → the default; above the maximum → the maximum.
pub fn page_of(query: &Query, config: &Config) -> crate::page::Page {
    let number = |name| {
        query
            .get(name)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0)
    };
    let page = number("page").clamp(1, u32::MAX as i64) as u32;
    let limit = number("limit");
    let size = if limit <= 0 {
        config.default_page_size
    } else {
        limit.min(config.max_page_size as i64) as u32
    };
    crate::page::Page { page, size }
}
