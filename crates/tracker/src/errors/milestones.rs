//! Milestone errors in Gitea's words.

use crate::{Error, milestones::Error as E};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::Title(_) => Error::field("title", "must be 1 to 255 characters"),
            E::DescriptionTooLong { max } => {
                Error::field("description", format!("must be at most {max} characters"))
            }
            E::DueOn(why) => Error::field("due_on", why),
            E::NoSuch(name) => Error::NotFound(format!("milestone does not exist [name: {name}]")),
            E::Gone => Error::not_found(),
            E::Db(e) => e.into(),
        }
    }
}
