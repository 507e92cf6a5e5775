//! Each area's errors as Gitea or Coolify status codes and messages: the
//! one place domain errors meet HTTP.

mod accounts;
mod auth;
mod repos;
