//! Label errors in Gitea's words.

use crate::{
    Error,
    labels::{Error as E, LabelRef},
};

impl From<E> for Error {
    fn from(e: E) -> Self {
        match e {
            E::Name(raw) => {
                Error::field("name", format!("must be 1 to 50 characters (got {raw:?})"))
            }
            E::Color(raw) => Error::field(
                "color",
                format!("must be a hex colour like #ee0701 or #e01 (got {raw:?})"),
            ),
            E::DescriptionTooLong { max } => {
                Error::field("description", format!("must be at most {max} characters"))
            }
            E::NoSuch(id) => Error::NotFound(format!("label does not exist [id: {id}]")),
            E::Unknown(wanted) => Error::Unprocessable(format!(
                "label does not exist [{}]",
                match wanted {
                    LabelRef::Id(id) => format!("id: {id}"),
                    LabelRef::Name(n) => format!("name: {n}"),
                }
            )),
            E::Gone => Error::not_found(),
            E::Db(e) => e.into(),
        }
    }
}
