//! Requests this service makes to addresses its users name (webhook
//! targets): which targets are allowed, checked when a URL is given and
//! again, after DNS resolution, at the moment of connecting, so that a
//! name cannot be made to point somewhere private in between (SSRF).
