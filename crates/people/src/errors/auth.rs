//! `auth::Error` in Gitea's (and Coolify's) words.

use crate::{auth::Error as E, error::Error};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::TokenRequired => Error::TokenRequired,
            E::BadCredentials => Error::BadCredentials,
            E::LoginProhibited => Error::Forbidden(
                "This account is prohibited from signing in, please contact your site administrator."
                    .into(),
            ),
            E::TooManyFailedLogins { retry_after } => Error::TooManyRequests {
                message: format!(
                    "too many failed sign-ins for this user name: retry in {retry_after} seconds, or sign in with a token"
                ),
                retry_after,
            },
            E::MissingTeamRole => Error::Forbidden("Missing required team role.".into()),
            E::StoredScopes(why) => Error::Forbidden(format!("checking scope failed: {why}")),
            E::MissingScope { required, held } => Error::Forbidden(format!(
                "token does not have at least one of required scope(s), required=[{required}], token scope={held}"
            )),
            E::MissingAbility(ability) => {
                Error::Forbidden(format!("Missing required permissions: {ability}"))
            }
            E::Accounts(e) => e.into(),
            E::Db(e) => e.into(),
        }
    }
}
