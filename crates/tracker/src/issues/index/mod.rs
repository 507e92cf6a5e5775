//! Search's index of issues: what lets a search or a listing read one page
//! of what it shows, whatever the number of repositories or issues, and
//! whatever its filters.
//!
//! The table's stream consumer keeps it ([`consumer`]): every change to an
//! issue, comment, repository, owner, label or milestone becomes a change
//! of the affected issues' documents ([`doc`]), and a document's listings
//! ([`lists`]) and counts ([`counts`]) follow from it ([`apply`]). It
//! trails writes by the stream's delay (well under a second locally).
//! Large changes (a repository made private, a label renamed) run as jobs
//! carried by the stream a page at a time ([`jobs`]).
//!
//! Readers ([`find`]) pick, among the listings each filter names, the
//! sparsest, and check candidates against the caller's sources
//! ([`audience`]) and the documents ([`query`]); [`walk`] merges listings
//! in order, and [`cursor`] remembers where a page ended.

pub mod apply;
pub mod audience;
pub mod class;
pub mod consumer;
pub mod context;
pub mod counts;
pub mod cursor;
pub mod doc;
pub mod find;
pub mod jobs;
pub mod lists;
pub mod overlay;
pub mod pending;
pub mod purge;
pub mod query;
pub mod refile;
pub mod stubs;
pub mod walk;

pub use consumer::Indexer;
pub use lists::Relation;
