//! The areas' errors as the shared error, in Gitea's (and Coolify's)
//! words; the HTTP layer renders that in each API's dialect.

mod accounts;
mod auth;
