//! Webhooks, as Gitea serves them: the hooks of repositories,
//! organisations, users and the site (what they are, who manages them),
//! and what is delivered to them when the tracker changes.
//!
//! Delivery follows docs/webhooks.md: the table's stream is the outbox
//! (every change that notifies carries its actor and, through the stream's
//! old image, the values before it), the one stream consumer fans each
//! change out into delivery items with a due time, and a sender delivers
//! them over [`outbound`](crate::outbound), which refuses targets a
//! stranger should not reach.
