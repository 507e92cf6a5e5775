//! HTTP plumbing shared by every function: the route table and dispatcher,
//! request parsing, response builders and Gitea paging.

pub mod paging;
mod request;
pub mod response;
mod router;

pub use request::{Ctx, Query};
pub use response::Response;
pub use router::{App, BoxFuture, Guard, PathRouter, Route, Service, handle, run};
