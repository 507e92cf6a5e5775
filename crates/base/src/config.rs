//! Process configuration, read once from the environment at cold start.

use std::time::Duration;

use url::Url;

use crate::outbound::AllowList;
use crate::time::Zone;

/// The stream consumer's DynamoDB timeouts, at least ([`Config::background`]):
/// a call ends well within the 10 s a batch leaves before its deadline.
pub const BACKGROUND_ATTEMPT: Duration = Duration::from_secs(4);
pub const BACKGROUND_OPERATION: Duration = Duration::from_secs(8);

/// Settings shared by every function. Built once per process.
#[derive(Clone, Debug)]
pub struct Config {
    /// The one DynamoDB table (`TABLE_NAME`).
    pub table_name: String,
    /// DynamoDB endpoint override for DynamoDB Local (`DYNAMODB_ENDPOINT`).
    pub dynamodb_endpoint: Option<String>,
    /// Public root URL of the service, always ending in `/` (`ROOT_URL`).
    /// Links, `url` fields and `Link` headers are built from it.
    pub root_url: Url,
    /// Whether `ROOT_URL` was set; if not, each request's API Gateway
    /// domain decides ([`Config::for_request`]), so a fresh deployment
    /// links to itself.
    pub root_url_fixed: bool,
    /// Time zone responses render times in (`DISPLAY_TIME_ZONE`, default UTC).
    pub display_tz: Zone,
    /// Tracker page size when `limit` is absent or 0 (`DEFAULT_PAGE_SIZE`).
    pub default_page_size: u32,
    /// Largest tracker page (`MAX_PAGE_SIZE`).
    pub max_page_size: u32,
    /// Largest accepted request body in bytes (`MAX_BODY_BYTES`).
    pub max_body_bytes: usize,
    /// Items one DynamoDB transaction may hold (`DYNAMODB_TRANSACTION_LIMIT`):
    /// 100 on AWS and in DynamoDB Local 3.
    pub transaction_limit: usize,
    /// Domain of the placeholder e-mail shown instead of hidden addresses
    /// (`NO_REPLY_ADDRESS`, default `noreply.<root host>`).
    pub no_reply_address: String,
    /// DynamoDB timeouts: opening a connection, one attempt of a call, and
    /// a whole call with its retries (`DB_CONNECT_TIMEOUT_MS`,
    /// `DB_ATTEMPT_TIMEOUT_MS`, `DB_OPERATION_TIMEOUT_MS`). A stalled
    /// database turns into a 503 within the last.
    pub db_connect_timeout: Duration,
    pub db_attempt_timeout: Duration,
    pub db_operation_timeout: Duration,
    /// The most a request may take before it answers 503
    /// (`REQUEST_TIMEOUT_MS`), under API Gateway's 30 s.
    pub request_timeout: Duration,
    /// How long a running deployment may go without its runner's
    /// heartbeat before it is failed (`RUNNER_SILENCE_SECONDS`, default
    /// 90: three missed heartbeats). Tests shorten it.
    pub runner_silence: Duration,
    /// The deploy instance's own domain (`INSTANCE_DOMAIN`; `none` turns
    /// the check off). Applications may not claim it unless forced. When
    /// unset, the API's own origin is used.
    pub instance_domain: InstanceDomain,
    /// How long an instance trusts what a token resolved to
    /// (`TOKEN_CACHE_TTL_SECONDS`, 0 to 30, default 10; 0 turns it off).
    pub token_cache_ttl: Duration,
    /// CloudWatch namespace of the request line's metrics
    /// (`METRICS_NAMESPACE`, default `ServerlessForge`; the template sets
    /// the stack name).
    pub metrics_namespace: Namespace,
    /// Dimensions of those metrics (`METRICS_DIMENSIONS`: `function`, the
    /// default; `route`; or `none` for no custom metrics).
    pub metrics_dimensions: Dimensions,
    /// Which webhook targets this instance calls (`HOOK_ALLOWED_HOSTS`,
    /// default `external`); see [`crate::outbound`].
    pub hook_allowed_hosts: AllowList,
    /// The waits before each retry of a failed webhook delivery
    /// (`HOOK_RETRY_SECONDS`, comma-separated; default 10, 60, 300, 900,
    /// 2700: six attempts over more than an hour). Tests shorten it.
    pub hook_retries: Vec<Duration>,
    /// The master key of secrets at rest ([`crate::seal`]):
    /// `SECRETS_KMS_KEY_ID` on AWS, `SECRETS_KEY_FILE` locally.
    pub secrets_key: Option<SecretsKey>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretsKey {
    /// A KMS key's id, alias or ARN.
    Kms(String),
    /// A file holding 64 hex digits.
    File(String),
}

/// Most retries a schedule may hold.
pub const MAX_HOOK_RETRIES: usize = 10;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceDomain {
    /// The origin of `ROOT_URL` (or of the request's API Gateway domain).
    ApiOrigin,
    Fixed(String),
    Off,
}

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {name}: {problem}")]
pub struct ConfigError {
    pub name: &'static str,
    pub problem: String,
}

impl Config {
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }

    /// The stream consumer's: a slow answer is not a failed change. A
    /// request must answer within seconds, a batch has minutes, and
    /// parking a change that timed out costs a transaction, which under
    /// load adds to what slowed the table. Attempts of at least
    /// [`BACKGROUND_ATTEMPT`], calls of at least [`BACKGROUND_OPERATION`].
    pub fn background(mut self) -> Self {
        self.db_attempt_timeout = self.db_attempt_timeout.max(BACKGROUND_ATTEMPT);
        self.db_operation_timeout = self.db_operation_timeout.max(BACKGROUND_OPERATION);
        self
    }

    /// Builds the configuration from any key lookup (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let root_url_fixed = get("ROOT_URL").is_some();
        let mut root = get("ROOT_URL").unwrap_or_else(|| "http://localhost:9000/".into());
        if !root.ends_with('/') {
            root.push('/');
        }
        let root_url = Url::parse(&root).map_err(|e| ConfigError {
            name: "ROOT_URL",
            problem: e.to_string(),
        })?;
        let display_tz = match get("DISPLAY_TIME_ZONE") {
            None => Zone::UTC,
            Some(name) => Zone::named(&name).ok_or_else(|| ConfigError {
                name: "DISPLAY_TIME_ZONE",
                problem: format!("unknown time zone {name:?}"),
            })?,
        };
        let metrics_namespace = match get("METRICS_NAMESPACE") {
            None => Namespace::default(),
            Some(v) => Namespace::parse(&v).map_err(|problem| ConfigError {
                name: "METRICS_NAMESPACE",
                problem,
            })?,
        };
        let metrics_dimensions = match get("METRICS_DIMENSIONS") {
            None => Dimensions::default(),
            Some(v) => Dimensions::parse(&v).ok_or_else(|| ConfigError {
                name: "METRICS_DIMENSIONS",
                problem: format!("{v:?} is not one of function, route, none"),
            })?,
        };
        let hook_allowed_hosts = match get("HOOK_ALLOWED_HOSTS") {
            None => AllowList::external(),
            Some(v) => AllowList::parse(&v).map_err(|e| ConfigError {
                name: "HOOK_ALLOWED_HOSTS",
                problem: e.to_string(),
            })?,
        };
        let hook_retries = retries(get("HOOK_RETRY_SECONDS").as_deref())?;
        let no_reply_address = get("NO_REPLY_ADDRESS")
            .unwrap_or_else(|| format!("noreply.{}", root_url.host_str().unwrap_or("localhost")));
        Ok(Self {
            table_name: get("TABLE_NAME").unwrap_or_else(|| "serverless-forge".into()),
            dynamodb_endpoint: get("DYNAMODB_ENDPOINT"),
            root_url,
            root_url_fixed,
            display_tz,
            default_page_size: number(&get, "DEFAULT_PAGE_SIZE", 30)?,
            max_page_size: number(&get, "MAX_PAGE_SIZE", 50)?,
            max_body_bytes: number(&get, "MAX_BODY_BYTES", 1 << 20)?,
            transaction_limit: number(&get, "DYNAMODB_TRANSACTION_LIMIT", 100)?,
            no_reply_address,
            db_connect_timeout: millis(&get, "DB_CONNECT_TIMEOUT_MS", 1_000)?,
            db_attempt_timeout: millis(&get, "DB_ATTEMPT_TIMEOUT_MS", 2_000)?,
            db_operation_timeout: millis(&get, "DB_OPERATION_TIMEOUT_MS", 3_500)?,
            request_timeout: millis(&get, "REQUEST_TIMEOUT_MS", 25_000)?,
            runner_silence: Duration::from_secs(number(&get, "RUNNER_SILENCE_SECONDS", 90u64)?),
            instance_domain: match get("INSTANCE_DOMAIN").as_deref() {
                None => InstanceDomain::ApiOrigin,
                Some("none") => InstanceDomain::Off,
                Some(d) => InstanceDomain::Fixed(d.to_string()),
            },
            token_cache_ttl: match number(&get, "TOKEN_CACHE_TTL_SECONDS", 10u64)? {
                s @ 0..=30 => Duration::from_secs(s),
                s => {
                    return Err(ConfigError {
                        name: "TOKEN_CACHE_TTL_SECONDS",
                        problem: format!("{s} is over 30 seconds"),
                    });
                }
            },
            metrics_namespace,
            metrics_dimensions,
            hook_allowed_hosts,
            hook_retries,
            secrets_key: match (get("SECRETS_KMS_KEY_ID"), get("SECRETS_KEY_FILE")) {
                (Some(id), None) => Some(SecretsKey::Kms(id)),
                (None, Some(path)) => Some(SecretsKey::File(path)),
                (None, None) => None,
                (Some(_), Some(_)) => {
                    return Err(ConfigError {
                        name: "SECRETS_KMS_KEY_ID",
                        problem: "set it or SECRETS_KEY_FILE, not both".into(),
                    });
                }
            },
        })
    }

    /// The configuration for one request. The root URL follows one rule:
    /// `ROOT_URL` when set; else the domain and stage API Gateway says the
    /// request came through (its request context, which no client can
    /// set); else the default. Never a header: `Host` and
    /// `X-Forwarded-Proto` are the client's to forge, and links, `url`
    /// fields and the instance domain would follow them.
    pub fn for_request(
        self: &std::sync::Arc<Self>,
        domain: Option<&str>,
        stage: Option<&str>,
    ) -> std::sync::Arc<Self> {
        let derived = domain
            .filter(|d| !self.root_url_fixed && !d.is_empty())
            .and_then(|d| {
                // `$default` is served at the root; a named stage under it.
                let stage = stage
                    .filter(|s| !s.is_empty() && *s != "$default")
                    .map(|s| format!("{s}/"))
                    .unwrap_or_default();
                Url::parse(&format!("https://{d}/{stage}")).ok()
            });
        match derived {
            Some(root_url) => std::sync::Arc::new(Self {
                root_url,
                ..(**self).clone()
            }),
            None => self.clone(),
        }
    }

    /// The instance domain as a URL string, if the check is on.
    pub fn instance_domain(&self) -> Option<String> {
        match &self.instance_domain {
            InstanceDomain::ApiOrigin => Some(self.root_url.origin().ascii_serialization()),
            InstanceDomain::Fixed(d) => Some(d.clone()),
            InstanceDomain::Off => None,
        }
    }

    /// `ROOT_URL` joined with a relative path such as `api/swagger`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.root_url, path.trim_start_matches('/'))
    }
}

fn number<T: std::str::FromStr>(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: T,
) -> Result<T, ConfigError> {
    match get(name) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| ConfigError {
            name,
            problem: format!("{v:?} is not a positive number"),
        }),
    }
}

/// A retry schedule: at most [`MAX_HOOK_RETRIES`] waits of 0.1 s to a
/// day, in seconds (fractions allowed).
fn retries(raw: Option<&str>) -> Result<Vec<Duration>, ConfigError> {
    let raw = raw
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or("10,60,300,900,2700");
    let bad = |problem: String| ConfigError {
        name: "HOOK_RETRY_SECONDS",
        problem,
    };
    let waits = raw
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .map(|w| match w.parse::<f64>() {
            Ok(s) if (0.1..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
            _ => Err(bad(format!("{w:?} is not a wait of 0.1 to 86400 seconds"))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if waits.len() > MAX_HOOK_RETRIES {
        return Err(bad(format!("at most {MAX_HOOK_RETRIES} retries")));
    }
    Ok(waits)
}

fn millis(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: u64,
) -> Result<Duration, ConfigError> {
    number(get, name, default).map(Duration::from_millis)
}

// The metrics' settings (`telemetry::emf` writes them).

/// Which dimensions the metrics get (`METRICS_DIMENSIONS`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dimensions {
    /// Per function: `[["Function"]]`.
    #[default]
    Function,
    /// Per function and route: `[["Function", "Route"]]`.
    Route,
    /// No `_aws` object, so no custom metrics; the line keeps its numbers
    /// for Logs Insights.
    None,
}

impl Dimensions {
    /// For lines that have no route (the stream consumer's): per function
    /// whatever the setting, or none.
    pub fn without_route(self) -> Self {
        match self {
            Self::None => Self::None,
            Self::Function | Self::Route => Self::Function,
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "function" => Some(Self::Function),
            "route" => Some(Self::Route),
            "none" => Some(Self::None),
            _ => None,
        }
    }
}

/// The CloudWatch namespace of the metrics (`METRICS_NAMESPACE`): printable
/// ASCII, 1 to 255 characters, not under AWS's own `AWS/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace(String);

impl Namespace {
    pub fn parse(value: &str) -> Result<Self, String> {
        if value.trim().is_empty() || value.len() > 255 {
            return Err(format!("{value:?} must have 1 to 255 characters"));
        }
        if !value.bytes().all(|b| b.is_ascii() && !b.is_ascii_control()) {
            return Err(format!("{value:?} must be printable ASCII"));
        }
        if value.starts_with("AWS/") {
            return Err(format!("{value:?} is under AWS/, which is AWS's own"));
        }
        Ok(Self(value.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Namespace {
    fn default() -> Self {
        Self("ServerlessForge".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consumer_waits_longer_for_the_table_than_a_request() {
        let lookup = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let c = Config::from_lookup(lookup(&[])).unwrap().background();
        assert_eq!(
            (c.db_attempt_timeout, c.db_operation_timeout),
            (BACKGROUND_ATTEMPT, BACKGROUND_OPERATION)
        );
        let longer = &[("DB_OPERATION_TIMEOUT_MS", "9000")];
        let c = Config::from_lookup(lookup(longer)).unwrap().background();
        assert_eq!(
            c.db_operation_timeout,
            Duration::from_secs(9),
            "a longer one set stays"
        );
    }
    use std::collections::HashMap;

    fn from(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn defaults_are_gitea_like() {
        let c = from(&[]).unwrap();
        assert_eq!(c.root_url.as_str(), "http://localhost:9000/");
        assert_eq!((c.default_page_size, c.max_page_size), (30, 50));
        assert_eq!(c.display_tz, Zone::UTC);
        assert_eq!(c.no_reply_address, "noreply.localhost");
        assert_eq!(c.url("/api/swagger"), "http://localhost:9000/api/swagger");
    }

    #[test]
    fn the_token_cache_lives_at_most_30_seconds() {
        assert_eq!(from(&[]).unwrap().token_cache_ttl, Duration::from_secs(10));
        let off = from(&[("TOKEN_CACHE_TTL_SECONDS", "0")]).unwrap();
        assert!(off.token_cache_ttl.is_zero());
        let long = from(&[("TOKEN_CACHE_TTL_SECONDS", "31")]).unwrap_err();
        assert_eq!(long.name, "TOKEN_CACHE_TTL_SECONDS");
    }

    #[test]
    fn root_url_follows_api_gateway_unless_configured() {
        let open = std::sync::Arc::new(from(&[]).unwrap());
        let api = "abc.execute-api.us-east-1.amazonaws.com";
        let r = open.for_request(Some(api), Some("$default"));
        assert_eq!(r.root_url.as_str(), format!("https://{api}/"));
        let r = open.for_request(Some(api), Some("prod"));
        assert_eq!(r.root_url.as_str(), format!("https://{api}/prod/"));
        assert_eq!(
            open.for_request(None, None).root_url.as_str(),
            "http://localhost:9000/"
        );
        let fixed = std::sync::Arc::new(from(&[("ROOT_URL", "https://forge.example/")]).unwrap());
        assert_eq!(
            fixed
                .for_request(Some("evil.example"), None)
                .root_url
                .as_str(),
            "https://forge.example/"
        );
    }

    #[test]
    fn root_url_gets_a_trailing_slash_and_bad_values_are_named() {
        let c = from(&[
            ("ROOT_URL", "https://x.example/base"),
            ("DISPLAY_TIME_ZONE", "Asia/Shanghai"),
        ])
        .unwrap();
        assert_eq!(c.root_url.as_str(), "https://x.example/base/");
        assert_eq!(
            c.display_tz,
            crate::time::Zone::named("Asia/Shanghai").unwrap()
        );
        let e = from(&[("MAX_PAGE_SIZE", "many")]).unwrap_err();
        assert_eq!(e.name, "MAX_PAGE_SIZE");
        let e = from(&[("DISPLAY_TIME_ZONE", "Mars/Base")]).unwrap_err();
        assert_eq!(e.name, "DISPLAY_TIME_ZONE");
    }

    #[test]
    fn metrics_go_to_a_namespace_per_function_unless_configured() {
        let c = from(&[]).unwrap();
        assert_eq!(c.metrics_namespace.as_str(), "ServerlessForge");
        assert_eq!(c.metrics_dimensions, Dimensions::Function);
        let c = from(&[
            ("METRICS_NAMESPACE", "forge-prod"),
            ("METRICS_DIMENSIONS", "route"),
        ])
        .unwrap();
        assert_eq!(c.metrics_namespace.as_str(), "forge-prod");
        assert_eq!(c.metrics_dimensions, Dimensions::Route);
        let off = from(&[("METRICS_DIMENSIONS", "none")]).unwrap();
        assert_eq!(off.metrics_dimensions, Dimensions::None);
        for (name, value) in [
            ("METRICS_DIMENSIONS", "status"),
            ("METRICS_DIMENSIONS", "Function"),
            ("METRICS_NAMESPACE", "AWS/Lambda"),
            ("METRICS_NAMESPACE", "line\nbreak"),
        ] {
            let e = from(&[(name, value)]).unwrap_err();
            assert_eq!(e.name, name, "{value:?}");
            assert!(e.to_string().contains(&format!("{value:?}")), "{e}");
        }
    }

    #[test]
    fn webhook_retries_default_to_over_an_hour_and_are_bounded() {
        let c = from(&[]).unwrap();
        assert_eq!(c.hook_retries.len(), 5);
        assert!(c.hook_retries.iter().sum::<Duration>() > Duration::from_secs(3600));
        let c = from(&[("HOOK_RETRY_SECONDS", "0.5, 1")]).unwrap();
        assert_eq!(
            c.hook_retries,
            [Duration::from_millis(500), Duration::from_secs(1)]
        );
        assert_eq!(
            from(&[("HOOK_RETRY_SECONDS", "")])
                .unwrap()
                .hook_retries
                .len(),
            5
        );
        for bad in ["0", "x", "90000", "1,1,1,1,1,1,1,1,1,1,1"] {
            let e = from(&[("HOOK_RETRY_SECONDS", bad)]).unwrap_err();
            assert_eq!(e.name, "HOOK_RETRY_SECONDS", "{bad}");
        }
    }

    #[test]
    fn webhooks_call_public_addresses_unless_configured() {
        assert_eq!(from(&[]).unwrap().hook_allowed_hosts, AllowList::external());
        let c = from(&[("HOOK_ALLOWED_HOSTS", "loopback, 10.0.0.0/8")]).unwrap();
        assert_eq!(c.hook_allowed_hosts.to_string(), "loopback,10.0.0.0/8");
        let e = from(&[("HOOK_ALLOWED_HOSTS", "10.0.0.0/99")]).unwrap_err();
        assert_eq!(e.name, "HOOK_ALLOWED_HOSTS");
        assert!(e.to_string().contains("\"10.0.0.0/99\""), "{e}");
    }
}
