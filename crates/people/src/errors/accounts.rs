//! `accounts::Error` in Gitea's words.

use crate::{accounts::Error as E, error::Error};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::Invalid { field, message } => Error::field(&field, message),
            E::ReservedName(name) => {
                Error::Unprocessable(format!("name is reserved [name: {name}]"))
            }
            E::PasswordTooShort(min) => {
                Error::BadRequest(format!("password: must be at least {min} characters"))
            }
            E::NameTaken(name) => {
                Error::Unprocessable(format!("user already exists [name: {name}]"))
            }
            E::EmailTaken(email) => {
                Error::Unprocessable(format!("e-mail already in use [email: {email}]"))
            }
            // Gitea adds the organisation's internal id; the name is enough.
            E::TeamNameTaken { name, .. } => {
                Error::Unprocessable(format!("team already exists [name: {name}]"))
            }
            E::NoSuchUser(name) => Error::NotFound(format!("user does not exist [name: {name}]")),
            E::NoSuchOrg(name) => {
                Error::NotFound(format!("organization does not exist [name: {name}]"))
            }
            E::NoSuchTeam(id) => Error::NotFound(format!("team does not exist [id: {id}]")),
            E::NotTeamMember { user, team } => {
                Error::NotFound(format!("user {user} is not a member of team {team}"))
            }
            E::LastOwner => {
                Error::Unprocessable("cannot remove the last owner of an organization".into())
            }
            E::TokenNameTaken => {
                Error::BadRequest("access token name has been used already".into())
            }
            E::NoSuchToken(id) => {
                Error::NotFound(format!("access token does not exist [id: {id}]"))
            }
            E::BadScopes(why) => Error::BadRequest(why),
            E::NoScope => Error::BadRequest("access token must have a scope".into()),
            E::NotBlocked(name) => Error::BadRequest(format!("{name} is not blocked")),
            E::BlockSelf => Error::BadRequest("you cannot block yourself".into()),
            E::BlockMember { user, org } => {
                Error::BadRequest(format!("{user} is a member of {org} and cannot be blocked"))
            }
            E::SignInRequired => Error::TokenRequired,
            E::NotSiteAdmin => Error::Forbidden("user should be the site admin".into()),
            E::NotOrgOwner => Error::Forbidden("Must be an organization owner".into()),
            E::NotOrgMember => Error::Forbidden("Must be an organization member".into()),
            E::Restricted => {
                Error::Forbidden("restricted users cannot create organizations".into())
            }
            E::PasswordRequired => Error::Unauthorized(
                "basic authentication with the user's password is required to manage tokens".into(),
            ),
            E::NotTokenOwner => Error::Forbidden(
                "only the user themself or a site admin may manage these tokens".into(),
            ),
            E::Hashing(why) => Error::Internal(why),
            E::Db(e) => e.into(),
        }
    }
}
