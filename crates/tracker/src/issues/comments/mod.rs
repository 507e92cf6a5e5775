//! Plain comments on issues and pull requests (Gitea's issue comments).
//!
//! A comment is stored under its repository by a global id, so
//! `/issues/comments/{id}` is one read; it is indexed under its issue
//! (`gsi1`) and under its repository and kind (`gsi2`), oldest first.
//! Every create and delete moves the issue's `comments` and the
//! repository's count in the same transaction, so both are exact at all
//! times and the unfiltered listings take `X-Total-Count` from them.
//! Deleting an issue or a repository removes its comments afterwards
//! (they are unreachable from the moment the parent is gone).
//!
//! - model: [`model`] (the record, who may comment, change or lock, which
//!   mentions are recorded; pure, unit-tested);
//! - operations: [`ops`] (one per route);
//! - store: [`store`] (writes), [`listing`] (reads);
//! - views: [`views`] (Gitea's `Comment`, request bodies).

pub mod listing;
pub mod model;
pub mod ops;
pub mod store;
pub mod views;

pub use model::CommentRecord;
