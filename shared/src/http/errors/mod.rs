//! Each area's errors as Gitea or Coolify status codes and messages: the
//! one place domain errors meet HTTP.

mod accounts;
mod auth;
mod issues;
mod labels;
mod milestones;
mod repos;

#[cfg(test)]
mod tests {
    //! The Gitea texts and statuses, which clients and the black-box tests
    //! read: one row per domain error.

    use crate::{
        accounts::Error as A,
        auth::Error as Au,
        error::{Dialect, Error},
        repos::Error as R,
    };

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
