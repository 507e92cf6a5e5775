//! Hook errors: 422 for a body that asks for what is not served (Gitea's
//! words where it has them), 404 for a hook the path's owner lacks.

use crate::{Error, hooks::Error as E};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::NoSuch(_) | E::NoSuchDelivery(_) => Error::not_found(),
            E::Db(e) => e.into(),
            other => Error::Unprocessable(other.to_string()),
        }
    }
}
