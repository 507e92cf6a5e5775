//! Reading credentials off a request, in Gitea's order: `?token=` /
//! `?access_token=` first (tracker only), then the `Authorization` header:
//! `token X`, `Bearer X` (scheme case-insensitive), or Basic.

use base64::{Engine, engine::general_purpose::STANDARD};
use lambda_http::http::HeaderMap;

use super::{Error, Result};
use crate::http::Query;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    /// A bare token secret.
    Token(String),
    /// Basic with a real password field: the password is tried as a token
    /// first, then as the user's password.
    TokenOrPassword { user: String, password: String },
}

pub fn extract(
    headers: &HeaderMap,
    query: &Query,
    allow_query: bool,
) -> Result<Option<Credential>> {
    let from_query = query.get("token").or_else(|| query.get("access_token"));
    if let Some(t) = from_query.filter(|t| allow_query && !t.is_empty()) {
        return Ok(Some(Credential::Token(t.to_string())));
    }
    let Some(value) = headers.get("authorization") else {
        return Ok(None);
    };
    let value = value.to_str().map_err(|_| Error::BadCredentials)?;
    let fields: Vec<&str> = value.split_whitespace().collect();
    let [scheme, secret] = fields.as_slice() else {
        return Err(Error::BadCredentials);
    };
    match scheme.to_ascii_lowercase().as_str() {
        "token" | "bearer" => Ok(Some(Credential::Token(secret.to_string()))),
        "basic" => {
            let decoded = STANDARD.decode(secret).map_err(|_| Error::BadCredentials)?;
            let decoded = String::from_utf8(decoded).map_err(|_| Error::BadCredentials)?;
            let (user, password) = decoded.split_once(':').ok_or(Error::BadCredentials)?;
            if password.is_empty() || password == "x-oauth-basic" {
                Ok(Some(Credential::Token(user.to_string())))
            } else {
                Ok(Some(Credential::TokenOrPassword {
                    user: user.into(),
                    password: password.into(),
                }))
            }
        }
        _ => Err(Error::BadCredentials),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_auth(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("authorization", value.parse().unwrap());
        h
    }

    fn tok(s: &str) -> Option<Credential> {
        Some(Credential::Token(s.into()))
    }

    #[test]
    fn every_form() {
        let none = Query::default();
        let cases: &[(&str, Option<Credential>)] = &[
            ("token abc", tok("abc")),
            ("Bearer abc", tok("abc")),
            ("bEaReR abc", tok("abc")),
            (&format!("Basic {}", STANDARD.encode("abc:")), tok("abc")),
            (
                &format!("Basic {}", STANDARD.encode("abc:x-oauth-basic")),
                tok("abc"),
            ),
            (
                &format!("Basic {}", STANDARD.encode("alice:pw")),
                Some(Credential::TokenOrPassword {
                    user: "alice".into(),
                    password: "pw".into(),
                }),
            ),
        ];
        for (header, want) in cases {
            assert_eq!(
                &extract(&with_auth(header), &none, true).unwrap(),
                want,
                "header {header:?}"
            );
        }
        for bad in [
            "token",
            "token a b",
            "Digest abc",
            "Basic !!!",
            &format!("Basic {}", STANDARD.encode("nocolon")),
        ] {
            assert!(
                extract(&with_auth(bad), &none, true).is_err(),
                "header {bad:?} must be refused"
            );
        }
    }

    #[test]
    fn query_token_wins_on_the_tracker_only() {
        let q = Query::parse(Some("access_token=q1"));
        let h = with_auth("token h1");
        assert_eq!(extract(&h, &q, true).unwrap(), tok("q1"));
        assert_eq!(extract(&h, &q, false).unwrap(), tok("h1"));
        assert_eq!(
            extract(&HeaderMap::new(), &Query::default(), true).unwrap(),
            None
        );
    }
}
