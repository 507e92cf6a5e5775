//! Why a caller is refused, in domain terms; `crate::http::errors::auth`
//! gives each its status and Gitea (or Coolify) text.

use crate::{accounts, db::DbError};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No credentials where they are required.
    #[error("no credentials")]
    TokenRequired,
    /// Credentials that do not check out.
    #[error("bad credentials")]
    BadCredentials,
    #[error("the account may not sign in")]
    LoginProhibited,
    /// The user name has had too many failed passwords lately
    /// (`failed_logins`): no password is checked for it for `retry_after`
    /// seconds.
    #[error("too many failed sign-ins; retry in {retry_after} s")]
    TooManyFailedLogins { retry_after: u64 },
    /// A deploy token with more than `read` for an organisation in which
    /// its user is not an admin.
    #[error("missing team role")]
    MissingTeamRole,
    /// A stored token's scopes no longer parse.
    #[error("stored scopes do not parse: {0}")]
    StoredScopes(String),
    /// The token lacks the route's Gitea scope.
    #[error("missing scope {required}")]
    MissingScope { required: String, held: String },
    /// The token lacks the route's Coolify ability.
    #[error("missing ability {0}")]
    MissingAbility(&'static str),
    #[error(transparent)]
    Accounts(#[from] accounts::Error),
    #[error(transparent)]
    Db(#[from] DbError),
}
