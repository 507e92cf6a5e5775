//! What can go wrong with accounts, in domain terms. The HTTP layer
//! (`crate::http::errors::accounts`) turns each into Gitea's status and
//! message.

use crate::db::DbError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A field breaks its rule; `message` says which and how.
    #[error("{field}: {message}")]
    Invalid { field: String, message: String },
    /// A user or organisation name Gitea keeps for its own routes.
    #[error("name is reserved: {0}")]
    ReservedName(String),
    #[error("password shorter than {0} characters")]
    PasswordTooShort(usize),
    #[error("the name {0} is taken")]
    NameTaken(String),
    #[error("the e-mail address {0} is taken")]
    EmailTaken(String),
    #[error("organisation {org_id} already has a team {name}")]
    TeamNameTaken { org_id: i64, name: String },
    #[error("no user {0}")]
    NoSuchUser(String),
    #[error("no organisation {0}")]
    NoSuchOrg(String),
    #[error("no team {0}")]
    NoSuchTeam(i64),
    #[error("{user} is not a member of team {team}")]
    NotTeamMember { user: String, team: String },
    #[error("the Owners team keeps its last member")]
    LastOwner,
    #[error("token name already used")]
    TokenNameTaken,
    #[error("no token {0}")]
    NoSuchToken(String),
    #[error("invalid scopes: {0}")]
    BadScopes(String),
    #[error("a token needs a scope")]
    NoScope,
    #[error("{0} is not blocked")]
    NotBlocked(String),
    #[error("cannot block oneself")]
    BlockSelf,
    #[error("{user} is a member of {org}")]
    BlockMember { user: String, org: String },
    /// No credentials where the action needs a signed-in caller.
    #[error("not signed in")]
    SignInRequired,
    #[error("site admins only")]
    NotSiteAdmin,
    #[error("organisation owners only")]
    NotOrgOwner,
    #[error("organisation members only")]
    NotOrgMember,
    #[error("restricted users cannot create organisations")]
    Restricted,
    /// Tokens are managed with a password, never with a token.
    #[error("tokens are managed with a password")]
    PasswordRequired,
    #[error("only the user or a site admin manages these tokens")]
    NotTokenOwner,
    #[error("password hashing failed: {0}")]
    Hashing(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl Error {
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Error::Invalid {
            field: field.to_string(),
            message: message.into(),
        }
    }
}
