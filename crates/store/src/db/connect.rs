//! The process's DynamoDB clients, with the timeouts and retry rules that
//! bound how long a stalled database can hold a request.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_smithy_runtime_api::client::{
    connector_metadata::ConnectorMetadata,
    http::{HttpClient, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector},
    runtime_components::RuntimeComponents,
};

use base::Config;

/// Builds the DynamoDB clients of the process: one that retries (reads and
/// transactions, which carry an idempotency token) and one that does not
/// (single writes). With `DYNAMODB_ENDPOINT` set (DynamoDB Local) it falls
/// back to dummy credentials and a region, so local runs need no AWS set-up.
pub async fn connect(config: &Config) -> Clients {
    use aws_config::{retry::RetryConfig, timeout::TimeoutConfig};
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(config.db_connect_timeout)
        .operation_attempt_timeout(config.db_attempt_timeout)
        .operation_timeout(config.db_operation_timeout)
        .build();
    use aws_smithy_http_client::{
        Builder,
        tls::{Provider, rustls_provider::CryptoMode},
    };
    let https = LazyRoots(
        Builder::new()
            .tls_provider(Provider::Rustls(CryptoMode::Ring))
            .build_https(),
    );
    let mut loader = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .http_client(https)
        .timeout_config(timeouts)
        // Short backoffs: the whole call must end within the operation
        // timeout (the SDK's default first backoff is a second).
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(3)
                .with_initial_backoff(Duration::from_millis(25))
                .with_max_backoff(Duration::from_millis(500)),
        );
    // The function's name in every call's user agent (`app/<name>`), as
    // AWS recommends: CloudTrail and the local fault test's proxy
    // (scripts/ddb-fault-proxy.py) tell the callers apart by it.
    if let Some(name) = std::env::var("AWS_LAMBDA_FUNCTION_NAME")
        .ok()
        .and_then(|n| aws_config::AppName::new(n).ok())
    {
        loader = loader.app_name(name);
    }
    if let Some(endpoint) = &config.dynamodb_endpoint {
        loader = loader.endpoint_url(endpoint);
        if std::env::var_os("AWS_REGION").is_none()
            && std::env::var_os("AWS_DEFAULT_REGION").is_none()
        {
            loader = loader.region(aws_config::Region::new("us-east-1"));
        }
        if std::env::var_os("AWS_ACCESS_KEY_ID").is_none() {
            loader = loader.credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                "local", "local", None, None, "local",
            ));
        }
    }
    let shared = loader.load().await;
    let once = aws_sdk_dynamodb::config::Builder::from(&shared)
        .retry_config(RetryConfig::disabled())
        .build();
    Clients {
        retrying: Client::new(&shared),
        once: Client::from_conf(once),
        sdk: Some(shared),
    }
}

/// The SDK's HTTPS client without its eager start. The SDK reads and parses
/// the system's root certificates as soon as a client is built: over half
/// of a cold start's init, before Lambda hands over the first event. Through
/// this wrapper they are read when the first request opens a connection,
/// which needs them anyway. Everything else is the wrapped client's.
#[derive(Debug)]
struct LazyRoots(SharedHttpClient);

impl HttpClient for LazyRoots {
    fn http_connector(
        &self,
        settings: &HttpConnectorSettings,
        components: &RuntimeComponents,
    ) -> SharedHttpConnector {
        self.0.http_connector(settings, components)
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.0.connector_metadata()
    }
}

/// The process's clients (see [`connect`]).
#[derive(Clone, Debug)]
pub struct Clients {
    pub retrying: Client,
    pub once: Client,
    /// The loaded AWS configuration, for the process's other clients (KMS).
    pub sdk: Option<aws_config::SdkConfig>,
}
