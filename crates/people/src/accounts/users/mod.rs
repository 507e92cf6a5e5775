//! Users and organisations share one record type and one namespace (as in
//! Gitea): `OWNER#<lower-case name>`, with an e-mail guard item per address.
//!
//! [`model`]: records and pure rules; [`store`]: items and transactions.
//! Who may see whom, as a caller: [`super::lookup`].

pub mod model;
pub mod store;

pub use model::*;
pub use store::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::Error;

    #[test]
    fn passwords_are_optional_but_not_short() {
        assert_eq!(parse_password(None).unwrap(), None);
        assert_eq!(parse_password(Some(String::new())).unwrap(), None);
        assert_eq!(
            parse_password(Some("12345678".into())).unwrap().as_deref(),
            Some("12345678")
        );
        assert!(matches!(
            parse_password(Some("1234567".into())),
            Err(Error::PasswordTooShort(8))
        ));
    }

    #[test]
    fn names_fold_to_lower_case() {
        assert_eq!(
            UserRecord {
                name: "MiXed".into(),
                ..UserRecord::ghost()
            }
            .lower_name(),
            "mixed"
        );
    }
}
