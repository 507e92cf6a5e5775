//! What lives for the whole process of a function, built once at cold
//! start: configuration, the DynamoDB client, and what tokens resolved to
//! lately. The HTTP router and the stream consumer both run on it.

use std::sync::Arc;

use crate::{
    Config,
    auth::TokenCache,
    db::{self, Db},
    seal::Sealer,
};

/// What lives for the whole process: configuration, the DynamoDB client,
/// what tokens resolved to lately, and the sealer of secrets at rest.
#[derive(Clone)]
pub struct App {
    pub config: Arc<Config>,
    pub db: Db,
    pub tokens: Arc<TokenCache>,
    pub sealer: Arc<Sealer>,
}

impl App {
    pub async fn new(config: Config) -> Self {
        let clients = db::connect(&config).await;
        let sealer = Arc::new(Sealer::from_config(&config, clients.sdk.as_ref()));
        let db = Db::new(clients, config.table_name.clone())
            .with_transaction_limit(config.transaction_limit);
        Self {
            sealer,
            tokens: Arc::new(TokenCache::new(config.token_cache_ttl)),
            config: Arc::new(config),
            db,
        }
    }
}
