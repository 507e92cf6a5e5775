//! Level 1 (docs/architecture.md): the table. Every DynamoDB call goes
//! through [`db::Db`], metered, bounded and checked against the caller's
//! grant; [`seal`] keeps secrets at rest; [`outbox`] is the event item a
//! write puts beside its change, for what the stream's images cannot say.

pub mod db;
pub mod outbox;
pub mod seal;
