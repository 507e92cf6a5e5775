//! HTTP rendering of [`crate::error::Error`]: its status code and body in
//! each API's dialect, in exactly one place. The tracker speaks Gitea's
//! `{"message","url"}`, the deploy API Coolify's `{"message","errors"}`.
//! Each area's error enum converts into `Error` in a file of its own here
//! (`deploy.rs`, ...), which holds that area's messages and status choices.

mod deploy;
mod issues;

use lambda_http::http::{HeaderValue, StatusCode};
use serde_json::{Value, json};

use super::response::{self, Dialect, Response};
use crate::{Config, error::Error};

/// Seconds a client should wait before retrying a 503.
const RETRY_AFTER_SECS: &str = "2";

/// The shared error as each API answers it (the error type lives below
/// the HTTP layer, in `base`).
pub trait ToResponse {
    fn status(&self, dialect: Dialect) -> StatusCode;
    /// The response a client sees. Internal details stay in the log; the
    /// body names the request id so an operator can find them.
    fn into_response(self, dialect: Dialect, config: &Config, request_id: &str) -> Response;
}

impl ToResponse for Error {
    fn status(&self, dialect: Dialect) -> StatusCode {
        use Dialect::*;
        match (self, dialect) {
            (Error::BadRequest(_), _) => StatusCode::BAD_REQUEST,
            (Error::TokenRequired | Error::BadCredentials | Error::Unauthorized(_), _) => {
                StatusCode::UNAUTHORIZED
            }
            (Error::Forbidden(_) | Error::ForbiddenEmpty, _) => StatusCode::FORBIDDEN,
            (Error::NotFound(_), _) => StatusCode::NOT_FOUND,
            (Error::MethodNotAllowed(_), _) => StatusCode::METHOD_NOT_ALLOWED,
            (Error::Conflict(_) | Error::ConflictWith(_), _) => StatusCode::CONFLICT,
            (Error::PreconditionFailed(_), _) => StatusCode::PRECONDITION_FAILED,
            (Error::PayloadTooLarge(_), _) => StatusCode::PAYLOAD_TOO_LARGE,
            // Coolify answers every malformed request with 400.
            (Error::UnsupportedMediaType(_), Deploy) => StatusCode::BAD_REQUEST,
            (Error::UnsupportedMediaType(_), Tracker) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            (Error::Unprocessable(_) | Error::UnprocessableWith(_), Tracker) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            (Error::Unprocessable(_) | Error::UnprocessableWith(_), Deploy) => {
                StatusCode::BAD_REQUEST
            }
            (Error::Validation(_), Tracker) => StatusCode::UNPROCESSABLE_ENTITY,
            (Error::Validation(_), Deploy) => StatusCode::BAD_REQUEST,
            (Error::Locked(_), _) => StatusCode::LOCKED,
            (Error::TooManyRequests { .. }, _) => StatusCode::TOO_MANY_REQUESTS,
            (Error::Internal(_), _) => StatusCode::INTERNAL_SERVER_ERROR,
            (Error::Unavailable(_) | Error::OutcomeUnknown(_) | Error::NotYet { .. }, _) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }

    fn into_response(self, dialect: Dialect, config: &Config, request_id: &str) -> Response {
        let status = self.status(dialect);
        let wait = match self {
            Error::TooManyRequests { retry_after, .. } | Error::NotYet { retry_after, .. } => {
                Some(retry_after)
            }
            _ => None,
        };
        if matches!(self, Error::ForbiddenEmpty) {
            return response::empty(status);
        }
        let message = match &self {
            Error::Internal(_) => format!("internal error; request id {request_id}"),
            Error::Unavailable(_) => {
                format!("service busy, retry the request; request id {request_id}")
            }
            Error::OutcomeUnknown(_) => format!(
                "the database did not answer in time: the change may or may not have been made. \
                 Retry with the same Idempotency-Key to make it safely; request id {request_id}"
            ),
            Error::Validation(_) if dialect == Dialect::Deploy => "Validation failed.".into(),
            Error::Validation(fields) => fields
                .iter()
                .map(|(k, v)| format!("{k}: {}", v.join(" ")))
                .collect::<Vec<_>>()
                .join("; "),
            Error::TokenRequired | Error::BadCredentials | Error::Unauthorized(_)
                if dialect == Dialect::Deploy =>
            {
                "Unauthenticated.".into()
            }
            other => other.to_string(),
        };
        let body = match (dialect, self) {
            (_, Error::ConflictWith(body) | Error::UnprocessableWith(body)) => body,
            (Dialect::Tracker, _) => {
                let mut body = json!({"message": message, "url": config.url("api/swagger")});
                if status == StatusCode::NOT_FOUND {
                    body["errors"] = Value::Null;
                }
                body
            }
            (Dialect::Deploy, Error::Validation(fields)) => {
                json!({"message": message, "errors": fields})
            }
            (Dialect::Deploy, _) => json!({"message": message}),
        };
        let mut res = response::json(dialect, status, &body);
        let retry_after = match (status, wait) {
            (_, Some(secs)) => Some(HeaderValue::from(secs)),
            (StatusCode::SERVICE_UNAVAILABLE, None) => {
                Some(HeaderValue::from_static(RETRY_AFTER_SECS))
            }
            _ => None,
        };
        if let Some(v) = retry_after {
            res.headers_mut().insert("retry-after", v);
        }
        res
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::http::response::body_json;

    pub(super) fn cfg() -> Config {
        Config::from_lookup(|k| (k == "ROOT_URL").then(|| "http://h.test/".to_string())).unwrap()
    }

    #[test]
    fn tracker_bodies_are_giteas() {
        let r = Error::not_found().into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(r.status(), 404);
        assert_eq!(
            body_json(&r),
            json!({"message": "not found", "url": "http://h.test/api/swagger", "errors": null})
        );
        let r = Error::field("email", "is bad").into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(
            (r.status().as_u16(), body_json(&r)["message"].clone()),
            (422, json!("email: is bad"))
        );
        let r = Error::ForbiddenEmpty.into_response(Dialect::Tracker, &cfg(), "rid");
        assert_eq!(r.status(), 403);
        assert!(matches!(r.body(), lambda_http::Body::Empty));
    }

    #[test]
    fn deploy_bodies_are_coolifys() {
        let r = Error::field("name", "too long").into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 400);
        assert_eq!(
            body_json(&r),
            json!({"message": "Validation failed.", "errors": {"name": ["too long"]}})
        );
        let r = Error::BadCredentials.into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(
            (r.status().as_u16(), body_json(&r)),
            (401, json!({"message": "Unauthenticated."}))
        );
        let r =
            Error::UnsupportedMediaType("x".into()).into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 400);
    }

    #[test]
    fn internal_errors_show_only_the_request_id() {
        let r = Error::Internal("secret detail".into()).into_response(
            Dialect::Tracker,
            &cfg(),
            "req-9",
        );
        assert_eq!(r.status(), 500);
        let msg = body_json(&r)["message"].as_str().unwrap().to_string();
        assert!(msg.contains("req-9") && !msg.contains("secret"), "{msg}");
    }

    #[test]
    fn busy_answers_say_when_to_retry() {
        let r = Error::Unavailable("x".into()).into_response(Dialect::Deploy, &cfg(), "rid");
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()["retry-after"], "2");
        for dialect in [Dialect::Tracker, Dialect::Deploy] {
            let e: Error = crate::auth::Error::TooManyFailedLogins { retry_after: 42 }.into();
            let r = e.into_response(dialect, &cfg(), "rid");
            assert_eq!(r.status(), 429);
            assert_eq!(r.headers()["retry-after"], "42");
            let body = body_json(&r);
            assert!(
                body["message"].as_str().unwrap().contains("42 seconds"),
                "{body}"
            );
            assert_eq!(body.get("url").is_some(), dialect == Dialect::Tracker);
        }
        let r = Error::not_found().into_response(Dialect::Tracker, &cfg(), "rid");
        assert!(r.headers().get("retry-after").is_none());
    }
}

#[cfg(test)]
mod gitea_messages {
    //! The Gitea texts and statuses, which clients and the black-box tests
    //! read: one row per domain error.

    use crate::{
        accounts::Error as A, auth::Error as Au, error::Error, http::Dialect, repos::Error as R,
    };

    use super::ToResponse;

    fn seen(e: impl Into<Error>) -> (u16, String) {
        let e: Error = e.into();
        (e.status(Dialect::Tracker).as_u16(), e.to_string())
    }

    #[test]
    fn gitea_statuses_and_messages() {
        type Row<'a> = ((u16, String), (u16, &'a str));
        let rows: Vec<Row> = vec![
            (
                seen(A::ReservedName("api".into())),
                (422, "name is reserved [name: api]"),
            ),
            (
                seen(A::NameTaken("Carol".into())),
                (422, "user already exists [name: Carol]"),
            ),
            (
                seen(A::EmailTaken("c@x.io".into())),
                (422, "e-mail already in use [email: c@x.io]"),
            ),
            (
                seen(A::TeamNameTaken {
                    org_id: 3,
                    name: "devs".into(),
                }),
                (422, "team already exists [name: devs]"),
            ),
            (
                seen(A::PasswordTooShort(8)),
                (400, "password: must be at least 8 characters"),
            ),
            (
                seen(A::NoSuchUser("x".into())),
                (404, "user does not exist [name: x]"),
            ),
            (
                seen(A::NoSuchOrg("x".into())),
                (404, "organization does not exist [name: x]"),
            ),
            (seen(A::NoSuchTeam(5)), (404, "team does not exist [id: 5]")),
            (
                seen(A::NotTeamMember {
                    user: "u".into(),
                    team: "t".into(),
                }),
                (404, "user u is not a member of team t"),
            ),
            (
                seen(A::LastOwner),
                (422, "cannot remove the last owner of an organization"),
            ),
            (
                seen(A::TokenNameTaken),
                (400, "access token name has been used already"),
            ),
            (
                seen(A::NoSuchToken("7".into())),
                (404, "access token does not exist [id: 7]"),
            ),
            (seen(A::NoScope), (400, "access token must have a scope")),
            (
                seen(A::NotBlocked("bob".into())),
                (400, "bob is not blocked"),
            ),
            (seen(A::BlockSelf), (400, "you cannot block yourself")),
            (
                seen(A::BlockMember {
                    user: "u".into(),
                    org: "o".into(),
                }),
                (400, "u is a member of o and cannot be blocked"),
            ),
            (seen(A::SignInRequired), (401, "token is required")),
            (
                seen(A::NotSiteAdmin),
                (403, "user should be the site admin"),
            ),
            (seen(A::NotOrgOwner), (403, "Must be an organization owner")),
            (
                seen(A::NotOrgMember),
                (403, "Must be an organization member"),
            ),
            (
                seen(A::Restricted),
                (403, "restricted users cannot create organizations"),
            ),
            (
                seen(A::PasswordRequired),
                (
                    401,
                    "basic authentication with the user's password is required to manage tokens",
                ),
            ),
            (
                seen(A::NotTokenOwner),
                (
                    403,
                    "only the user themself or a site admin may manage these tokens",
                ),
            ),
            (
                seen(R::NotFound {
                    owner: "o".into(),
                    name: "r".into(),
                }),
                (404, "repository does not exist [owner: o, name: r]"),
            ),
            (seen(R::Gone), (404, "not found")),
            (
                seen(R::ReservedName("x.git".into())),
                (422, "repository name is reserved [name: x.git]"),
            ),
            (
                seen(R::Exists("o/r".into())),
                (
                    409,
                    "The repository with the same name already exists. [o/r]",
                ),
            ),
            (
                seen(R::NameTaken("r".into())),
                (422, "repository already exists [name: r]"),
            ),
            (
                seen(R::NotWriter),
                (403, "user should have a permission to write to a repo"),
            ),
            (
                seen(R::NotAdmin),
                (
                    403,
                    "user should be an owner or a collaborator with admin write of a repository",
                ),
            ),
            (
                seen(R::NotOwner),
                (403, "user should be the owner of the repository"),
            ),
            (
                seen(R::MayNotCreate),
                (
                    403,
                    "Given user is not allowed to create repository in organization.",
                ),
            ),
            (
                seen(R::NoSuchCollaborator("x".into())),
                (422, "user does not exist [name: x]"),
            ),
            (
                seen(R::OwnerAsCollaborator),
                (422, "the owner of a repository cannot be its collaborator"),
            ),
            (
                seen(R::Blocked("b".into())),
                (403, "b is blocked by the repository owner"),
            ),
            (
                seen(R::ForeignTeam {
                    team: 4,
                    org: "o".into(),
                }),
                (404, "team 4 does not belong to o"),
            ),
            (
                seen(R::Accounts(A::NotOrgOwner)),
                (403, "Must be an organization owner"),
            ),
            (seen(Au::TokenRequired), (401, "token is required")),
            (
                seen(Au::BadCredentials),
                (401, "invalid username, password or token"),
            ),
            (
                seen(Au::LoginProhibited),
                (
                    403,
                    "This account is prohibited from signing in, please contact your site administrator.",
                ),
            ),
            (
                seen(Au::TooManyFailedLogins { retry_after: 7 }),
                (
                    429,
                    "too many failed sign-ins for this user name: retry in 7 seconds, or sign in with a token",
                ),
            ),
            (
                seen(Au::MissingTeamRole),
                (403, "Missing required team role."),
            ),
            (
                seen(Au::StoredScopes("x".into())),
                (403, "checking scope failed: x"),
            ),
            (
                seen(Au::MissingAbility("write")),
                (403, "Missing required permissions: write"),
            ),
        ];
        for (got, (status, message)) in rows {
            assert_eq!(got, (status, message.to_string()), "row {message:?}");
        }
    }

    #[test]
    fn invalid_fields_are_validation_errors() {
        let e: Error = A::invalid("email", "is bad").into();
        assert!(matches!(&e, Error::Validation(f) if f["email"] == ["is bad"]));
    }
}
