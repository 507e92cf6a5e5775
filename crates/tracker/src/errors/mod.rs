//! The areas' errors as the shared error, in Gitea's words; the HTTP
//! layer renders that in each API's dialect.

mod issues;
mod labels;
mod milestones;
mod repos;
