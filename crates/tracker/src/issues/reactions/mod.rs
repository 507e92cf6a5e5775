//! Reactions on issues, pull requests and comments (Gitea's
//! `/issues/{index}/reactions` and `/issues/comments/{id}/reactions`).
//!
//! A reaction is stored under its repository, every reaction of an issue
//! (its comments' included) under one key prefix, so a deleted issue's or
//! comment's reactions go by one prefix query, off the request path, when
//! the stream consumer sees the issue or comment go ([`cleanup`]); a
//! deleted repository's go with its comments (`repos::store::remove_under`).
//! The
//! issue and comment items are left as they are: a target's count is an
//! item of its own, moved in the same transaction as the reaction.
//!
//! - model: [`model`] (the allowed contents as a type, targets, the record,
//!   who may react; pure, unit-tested);
//! - operations: [`ops`] (one per route);
//! - store: [`store`] (writes, the listing, clean-ups);
//! - views: [`views`] (Gitea's `Reaction`, `EditReactionOption`).

pub mod cleanup;
pub mod model;
pub mod ops;
pub mod store;
pub mod views;

pub use model::{Content, ReactionRecord, Target};
