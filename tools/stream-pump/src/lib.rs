//! `stream-pump`: the local stand-in for Lambda's DynamoDB event source
//! mapping, for `make dev` and `make test` (scripts/dev.sh, scripts/test.sh).
//! It polls DynamoDB Local's stream of the table and invokes the `stream`
//! function under `cargo lambda watch` with the very events Lambda would
//! send, honouring its partial batch responses, retry bound and ordering
//! ([`mapping`] holds the settings it shares with template.yaml). A small
//! status API on loopback ([`status`]) tells scripts and tests when every
//! change made so far has been handled (`GET /settle`). It also stands in
//! for the function's schedule ([`schedule`]).
//!
//! Not a Lambda function, and none of them depends on it: its crates (the
//! DynamoDB Streams SDK, hyper's server) stay out of their binaries.

pub mod checkpoint;
pub mod event;
pub mod invoke;
pub mod mapping;
pub mod pump;
pub mod schedule;
pub mod shard;
pub mod status;
