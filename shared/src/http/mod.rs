//! HTTP plumbing shared by every function: the route table and dispatcher,
//! the request lifecycle (limits, idempotency), request parsing, response
//! builders and Gitea paging.

#[cfg(debug_assertions)]
mod emulator;
pub mod errors;
pub mod extract;
pub mod fallback;
pub mod idempotency;
pub mod limits;
pub mod paging;
pub mod public_only;
mod request;
pub mod response;
mod route;
mod router;
pub mod team;

pub use request::{Ctx, Query};
pub use response::{Dialect, Response};
pub use route::{Archived, Guard, Limits, Route, Sees, coolify_client};
pub use router::{App, BoxFuture, PathRouter, Service, handle, run};
pub use team::{deploy_team, runner_of};
