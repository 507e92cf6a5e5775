//! Requests this service makes to addresses its users name (webhook
//! targets): which targets are allowed, checked when a URL is given and
//! again, after DNS resolution, at the moment of connecting, so that a
//! name cannot be made to point somewhere private in between (SSRF).
//!
//! The interface, in the order a hook meets it:
//!
//! - [`AllowList::parse`] reads `HOOK_ALLOWED_HOSTS` (Gitea's
//!   `webhook.ALLOWED_HOST_LIST`: `external`, `private`, `loopback`, `*`,
//!   CIDRs, host name patterns with `*`); empty means
//!   [`AllowList::external`]. It lives in [`Config`](crate::Config).
//! - [`check_url`] runs when a hook is created or edited, without DNS:
//!   http or https only; no user name or password (refused, unlike Gitea:
//!   the URL is shown to hook readers and logged, the authorization header
//!   is not); a host; at most [`MAX_URL_LEN`] bytes; a literal address in
//!   any spelling is classified ([`AddressClass`]) and refused unless
//!   allowed, as are `localhost`, `*.localhost` and cloud metadata names
//!   (`metadata.google.internal`, `metadata`, `instance-data`, …). It
//!   yields a [`Target`]: the URL, its [`Host`] and its port.
//! - [`resolve_checked`] runs at delivery: it repeats those checks under
//!   the list then in force, resolves a name through a [`Resolve`]
//!   ([`SystemResolver`] in production, a table in tests), refuses the
//!   target if *any* address is not allowed, and returns the one
//!   `SocketAddr` the sender connects to, sending [`Target::host_str`] as
//!   `Host` and TLS server name. The sender must not resolve again: a
//!   second lookup is where DNS rebinding would get in.
//!
//! Decisions beyond Gitea's: shared CGNAT space (100.64.0.0/10) is
//! private, not external (cloud VPCs and Kubernetes use it); documentation
//! and benchmarking ranges, link-local, multicast, reserved and
//! unspecified addresses belong to no keyword (only `*` or a CIDR opens
//! them); metadata-service addresses and names are refused even under
//! `private`. IPv6 forms that carry an IPv4 address are judged by it. A
//! host name pattern vouches for the name at whatever address it resolves
//! to, as in Gitea. Every refusal is a [`TargetError`] whose message names
//! the target and the setting.

mod allow;
mod class;
mod names;
mod post;
mod resolve;
mod target;

pub use allow::{AllowList, AllowListError};
pub use class::AddressClass;
pub use post::{ANSWER_BYTES, Answer, PostError, post};
pub use resolve::{Resolve, SystemResolver, resolve_checked};
pub use target::{Host, MAX_URL_LEN, Target, TargetError, check_url};
