//! What one request may read (checked in `request.rs`, refused with
//! `DbError::OverBudget`).

/// The most one request may read: a ceiling every route declares (its
/// `Limits`), checked before each read, so no request, whatever its input
/// or caller, costs more than this plus one call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Read calls (each a round trip).
    pub calls: u32,
    /// Read units consumed.
    pub read_units: f64,
}
