//! Level 1 (docs/architecture.md): the table. Every DynamoDB call goes
//! through [`db::Db`], metered, bounded and checked against the caller's
//! grant; [`seal`] keeps secrets at rest.

pub mod db;
pub mod seal;
