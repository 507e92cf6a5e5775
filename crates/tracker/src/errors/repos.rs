//! `repos::Error` in Gitea's words.

use crate::{error::Error, repos::Error as E};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::NotFound { owner, name } => Error::NotFound(format!(
                "repository does not exist [owner: {owner}, name: {name}]"
            )),
            E::Gone => Error::not_found(),
            E::ReservedName(name) => {
                Error::Unprocessable(format!("repository name is reserved [name: {name}]"))
            }
            E::Exists(full_name) => Error::Conflict(format!(
                "The repository with the same name already exists. [{full_name}]"
            )),
            E::NameTaken(name) => {
                Error::Unprocessable(format!("repository already exists [name: {name}]"))
            }
            E::NotWriter => {
                Error::Forbidden("user should have a permission to write to a repo".into())
            }
            E::NotAdmin => Error::Forbidden(
                "user should be an owner or a collaborator with admin write of a repository".into(),
            ),
            E::NotOwner => Error::Forbidden("user should be the owner of the repository".into()),
            E::MayNotCreate => Error::Forbidden(
                "Given user is not allowed to create repository in organization.".into(),
            ),
            E::NoSuchCollaborator(name) => {
                Error::Unprocessable(format!("user does not exist [name: {name}]"))
            }
            E::OwnerAsCollaborator => {
                Error::Unprocessable("the owner of a repository cannot be its collaborator".into())
            }
            E::Blocked(name) => {
                Error::Forbidden(format!("{name} is blocked by the repository owner"))
            }
            E::ForeignTeam { team, org } => {
                Error::NotFound(format!("team {team} does not belong to {org}"))
            }
            E::ListTooBroad(why) | E::BadListParam(why) => Error::Unprocessable(why),
            E::Topics(body) => Error::UnprocessableWith(body),
            E::NoSuchTopic(topic) => {
                Error::NotFound(format!("topic does not exist [name: {topic}]"))
            }
            E::Accounts(e) => e.into(),
            E::Db(e) => e.into(),
        }
    }
}
