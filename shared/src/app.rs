//! What lives for the whole process of a function, built once at cold
//! start: configuration, the DynamoDB client, and what tokens resolved to
//! lately. The HTTP router and the stream consumer both run on it.

use std::sync::Arc;

use crate::{
    Config,
    auth::TokenCache,
    db::{self, Db},
};

/// What lives for the whole process: configuration, the DynamoDB client
/// and what tokens resolved to lately.
#[derive(Clone)]
pub struct App {
    pub config: Arc<Config>,
    pub db: Db,
    pub tokens: Arc<TokenCache>,
}

impl App {
    pub async fn new(config: Config) -> Self {
        let clients = db::connect(&config).await;
        let sealer = crate::seal::Sealer::from_config(&config, clients.sdk.as_ref());
        let db = Db::new(clients, config.table_name.clone())
            .with_transaction_limit(config.transaction_limit)
            .with_sealer(sealer);
        Self {
            tokens: Arc::new(TokenCache::new(config.token_cache_ttl)),
            config: Arc::new(config),
            db,
        }
    }
}
