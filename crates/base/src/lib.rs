//! Level 0 (docs/architecture.md): plain values and rules that need no
//! table and no request: times and zones, names, text, the words of
//! search, paging.

pub mod name;
pub mod page;
pub mod text;
pub mod time;
pub mod words;
