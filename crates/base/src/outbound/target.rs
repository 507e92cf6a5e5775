//! A webhook URL checked without DNS: [`check_url`] and its [`Target`].

use std::net::IpAddr;

use url::Url;

use super::allow::AllowList;
use super::class::AddressClass;
use super::names;

/// The longest URL accepted, in bytes (Gitea's column holds more; nothing
/// legitimate needs it, and every delivery logs the URL).
pub const MAX_URL_LEN: usize = 2048;

/// A URL's host, as the URL parser read it (IPv4 in any spelling —
/// `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1` — is an address here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// A lower-case ASCII (punycode) name, to be resolved at delivery.
    Name(String),
    /// A literal address: no lookup is ever made.
    Ip(IpAddr),
}

/// A webhook URL that passed every check that needs no DNS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    url: Url,
    host: Host,
    port: u16,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("the URL is {0} bytes long; at most {MAX_URL_LEN} are accepted")]
    TooLong(usize),
    #[error("the URL is not valid: {0}")]
    Malformed(String),
    #[error("the URL's scheme is {0}:, but webhooks only call http and https URLs")]
    Scheme(String),
    #[error(
        "the URL carries a user name or password; send credentials in the webhook's authorization header instead"
    )]
    Credentials,
    #[error("the URL names no host")]
    NoHost,
    #[error("the host {0} reads as a number but is not a valid IP address")]
    NumericName(String),
    #[error(
        "the target {host} is {class}, which this instance does not call (see HOOK_ALLOWED_HOSTS)"
    )]
    Refused { host: String, class: AddressClass },
    #[error(
        "the target {host} resolves to {addr}, {class}, which this instance does not call (see HOOK_ALLOWED_HOSTS)"
    )]
    RefusedAddress {
        host: String,
        addr: IpAddr,
        class: AddressClass,
    },
    #[error("the host {host} could not be resolved: {reason}")]
    Unresolved { host: String, reason: String },
    #[error("the host {0} resolves to no address")]
    NoAddress(String),
}

/// What is left to check once the name passed: its addresses, or nothing
/// when the allow list vouches for the name itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Remaining {
    Nothing,
    EveryAddress,
}

/// Checks a webhook URL against the allow list without touching DNS.
/// Credentials in the URL are refused: Gitea lets them through, but the
/// URL is shown to everyone who may read the hook and is written in
/// delivery logs, while the hook's authorization header is kept secret.
pub fn check_url(text: &str, allow: &AllowList) -> Result<Target, TargetError> {
    if text.len() > MAX_URL_LEN {
        return Err(TargetError::TooLong(text.len()));
    }
    let url = Url::parse(text).map_err(|e| match e {
        url::ParseError::EmptyHost => TargetError::NoHost,
        e => TargetError::Malformed(e.to_string()),
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(TargetError::Scheme(url.scheme().to_owned()));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(TargetError::Credentials);
    }
    let host = match url.host() {
        None => return Err(TargetError::NoHost),
        Some(url::Host::Domain(name)) => Host::Name(name.to_owned()),
        Some(url::Host::Ipv4(ip)) => Host::Ip(ip.into()),
        Some(url::Host::Ipv6(ip)) => Host::Ip(ip.into()),
    };
    let port = url.port_or_known_default().ok_or(TargetError::NoHost)?;
    let target = Target { url, host, port };
    target.check_host(allow)?;
    Ok(target)
}

impl Target {
    pub fn url(&self) -> &Url {
        &self.url
    }

    pub fn host(&self) -> &Host {
        &self.host
    }

    /// The URL's port, or 80/443 by scheme.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The host as the URL writes it (IPv6 in brackets): the `Host` header
    /// and the TLS server name the sender uses.
    pub fn host_str(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    /// The checks on the host alone; [`resolve_checked`](super::resolve_checked)
    /// repeats them, since the allow list may have changed since the hook
    /// was saved.
    pub(super) fn check_host(&self, allow: &AllowList) -> Result<Remaining, TargetError> {
        let refuse = |class| TargetError::Refused {
            host: self.host_str().to_owned(),
            class,
        };
        match &self.host {
            Host::Ip(ip) if allow.allows_ip(*ip) => Ok(Remaining::Nothing),
            Host::Ip(ip) => Err(refuse(AddressClass::of(*ip))),
            Host::Name(name) if names::looks_numeric(name) => {
                Err(TargetError::NumericName(name.clone()))
            }
            Host::Name(name) if allow.allows_anything() || allow.matches_name(name) => {
                Ok(Remaining::Nothing)
            }
            Host::Name(name) => match names::class_of(name) {
                Some(class) if !allow.allows_class(class) => Err(refuse(class)),
                _ => Ok(Remaining::EveryAddress),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AddressClass::*;
    use super::*;

    fn refused(host: &str, class: AddressClass) -> Result<Host, TargetError> {
        Err(TargetError::Refused {
            host: host.into(),
            class,
        })
    }

    fn ip(text: &str) -> Result<Host, TargetError> {
        Ok(Host::Ip(text.parse().unwrap()))
    }

    fn name(text: &str) -> Result<Host, TargetError> {
        Ok(Host::Name(text.into()))
    }

    /// The SSRF table under the default list (`external`): each URL, and
    /// the host it yields or why it is refused.
    #[test]
    fn the_default_list_calls_only_public_targets() {
        let table: Vec<(&str, Result<Host, TargetError>)> = vec![
            ("https://hooks.example.com/x", name("hooks.example.com")),
            ("http://HOOKS.Example.COM.", name("hooks.example.com.")),
            ("https://bücher.example/", name("xn--bcher-kva.example")),
            ("http://8.8.8.8/", ip("8.8.8.8")),
            ("http://[2606:4700::1111]/", ip("2606:4700::1111")),
            // IPv4 in every spelling the URL parser reads as an address.
            ("http://127.0.0.1/", refused("127.0.0.1", Loopback)),
            ("http://2130706433/", refused("127.0.0.1", Loopback)),
            ("http://0177.0.0.1/", refused("127.0.0.1", Loopback)),
            ("http://0x7f.1/", refused("127.0.0.1", Loopback)),
            ("http://0x7F000001/", refused("127.0.0.1", Loopback)),
            ("http://127.1/", refused("127.0.0.1", Loopback)),
            ("http://127.0.1/", refused("127.0.0.1", Loopback)),
            ("http://127.0.0.1./", refused("127.0.0.1", Loopback)),
            ("http://０x7f.1/", refused("127.0.0.1", Loopback)),
            ("http://１２７.０.０.１/", refused("127.0.0.1", Loopback)),
            ("http://%31%32%37.0.0.1/", refused("127.0.0.1", Loopback)),
            ("http://017700000001/", refused("127.0.0.1", Loopback)),
            ("http://0/", refused("0.0.0.0", Unspecified)),
            ("http://0x/", refused("0.0.0.0", Unspecified)),
            // Only DNS knows where these lead: judged at delivery.
            ("http://127.0.0.1.nip.io/", name("127.0.0.1.nip.io")),
            ("http://0x7f.0.0.1a/", name("0x7f.0.0.1a")),
            ("http://0.0.0.0:8080/", refused("0.0.0.0", Unspecified)),
            ("http://10.0.0.1/", refused("10.0.0.1", Private)),
            ("http://167772161/", refused("10.0.0.1", Private)),
            ("http://172.16.0.1/", refused("172.16.0.1", Private)),
            ("http://192.168.0.1/", refused("192.168.0.1", Private)),
            ("http://0xc0.0xa8.1/", refused("192.168.0.1", Private)),
            ("http://100.64.0.1/", refused("100.64.0.1", Private)),
            (
                "http://169.254.169.254/latest/",
                refused("169.254.169.254", Metadata),
            ),
            ("http://2852039166/", refused("169.254.169.254", Metadata)),
            ("http://169.254.1.1/", refused("169.254.1.1", LinkLocal)),
            ("http://224.0.0.1/", refused("224.0.0.1", Multicast)),
            (
                "http://255.255.255.255/",
                refused("255.255.255.255", Multicast),
            ),
            ("http://240.0.0.1/", refused("240.0.0.1", Reserved)),
            ("http://192.0.2.1/", refused("192.0.2.1", Documentation)),
            (
                "http://198.51.100.1/",
                refused("198.51.100.1", Documentation),
            ),
            ("http://203.0.113.1/", refused("203.0.113.1", Documentation)),
            ("http://198.18.0.1/", refused("198.18.0.1", Documentation)),
            // IPv6, with IPv4 inside it.
            ("http://[::1]/", refused("[::1]", Loopback)),
            ("http://[0:0:0:0:0:0:0:1]/", refused("[::1]", Loopback)),
            ("http://[::]/", refused("[::]", Unspecified)),
            (
                "http://[::ffff:127.0.0.1]/",
                refused("[::ffff:7f00:1]", Loopback),
            ),
            (
                "http://[::ffff:7f00:1]/",
                refused("[::ffff:7f00:1]", Loopback),
            ),
            (
                "http://[::ffff:10.0.0.1]/",
                refused("[::ffff:a00:1]", Private),
            ),
            ("http://[::127.0.0.1]/", refused("[::7f00:1]", Loopback)),
            (
                "http://[::ffff:169.254.169.254]/",
                refused("[::ffff:a9fe:a9fe]", Metadata),
            ),
            (
                "http://[64:ff9b::127.0.0.1]/",
                refused("[64:ff9b::7f00:1]", Loopback),
            ),
            (
                "http://[2002:7f00:1::]/",
                refused("[2002:7f00:1::]", Loopback),
            ),
            (
                "http://[2002:a00:1::1]/",
                refused("[2002:a00:1::1]", Private),
            ),
            ("http://[fc00::1]/", refused("[fc00::1]", Private)),
            (
                "http://[fd00:ec2::254]/",
                refused("[fd00:ec2::254]", Metadata),
            ),
            ("http://[fe80::1]/", refused("[fe80::1]", LinkLocal)),
            ("http://[ff02::1]/", refused("[ff02::1]", Multicast)),
            (
                "http://[2001:db8::1]/",
                refused("[2001:db8::1]", Documentation),
            ),
            // Zone ids: the URL standard has no syntax for them.
            (
                "http://[fe80::1%25eth0]/",
                Err(TargetError::Malformed("invalid IPv6 address".into())),
            ),
            // Names that mean this machine or a metadata service.
            ("http://localhost/", refused("localhost", Loopback)),
            ("http://LOCALHOST:9000/", refused("localhost", Loopback)),
            ("http://localhost./", refused("localhost.", Loopback)),
            ("http://api.localhost/", refused("api.localhost", Loopback)),
            (
                "http://localhost.localdomain/",
                refused("localhost.localdomain", Loopback),
            ),
            ("http://metadata/", refused("metadata", Metadata)),
            (
                "http://metadata.google.internal/",
                refused("metadata.google.internal", Metadata),
            ),
            ("http://instance-data/", refused("instance-data", Metadata)),
            // Schemes.
            ("ftp://example.com/", Err(TargetError::Scheme("ftp".into()))),
            (
                "file:///etc/passwd",
                Err(TargetError::Scheme("file".into())),
            ),
            (
                "gopher://example.com:70/",
                Err(TargetError::Scheme("gopher".into())),
            ),
            (
                "javascript:alert(1)",
                Err(TargetError::Scheme("javascript".into())),
            ),
            (
                "data:text/plain,hi",
                Err(TargetError::Scheme("data".into())),
            ),
            ("ws://example.com/", Err(TargetError::Scheme("ws".into()))),
            // Credentials, missing hosts, junk.
            (
                "https://user:secret@example.com/",
                Err(TargetError::Credentials),
            ),
            ("https://user@example.com/", Err(TargetError::Credentials)),
            (
                "https://:secret@example.com/",
                Err(TargetError::Credentials),
            ),
            ("http://", Err(TargetError::NoHost)),
            ("http:///", Err(TargetError::NoHost)),
            ("http://:80/", Err(TargetError::NoHost)),
            (
                "example.com/hook",
                Err(TargetError::Malformed("relative URL without a base".into())),
            ),
            (
                "",
                Err(TargetError::Malformed("relative URL without a base".into())),
            ),
            (
                "http://1.2.3.4.5/",
                Err(TargetError::Malformed("invalid IPv4 address".into())),
            ),
            (
                "http://256.0.0.1/",
                Err(TargetError::Malformed("invalid IPv4 address".into())),
            ),
            (
                "http://08.0.0.1/",
                Err(TargetError::Malformed("invalid IPv4 address".into())),
            ),
            (
                "http://example.com:99999/",
                Err(TargetError::Malformed("invalid port number".into())),
            ),
        ];
        let allow = AllowList::external();
        for (url, expected) in &table {
            let got = check_url(url, &allow).map(|t| t.host().clone());
            assert_eq!(&got, expected, "{url}");
        }
    }

    #[test]
    fn ports_default_by_scheme_and_the_url_is_kept() {
        let allow = AllowList::external();
        let table = [
            ("http://example.com/a?b=c", 80, "example.com"),
            ("https://example.com/", 443, "example.com"),
            ("HTTPS://example.com:8443/", 8443, "example.com"),
            ("http://example.com:443/", 443, "example.com"),
            ("http://[2606:4700::1111]:81/", 81, "[2606:4700::1111]"),
        ];
        for (url, port, host) in table {
            let target = check_url(url, &allow).unwrap();
            assert_eq!((target.port(), target.host_str()), (port, host), "{url}");
        }
        let target = check_url(" https://example.com/hook?x=1 ", &allow).unwrap();
        assert_eq!(target.url().as_str(), "https://example.com/hook?x=1");
    }

    #[test]
    fn overlong_urls_are_refused_by_length() {
        let allow = AllowList::external();
        let base = "https://example.com/";
        let fits = format!("{base}{}", "a".repeat(MAX_URL_LEN - base.len()));
        assert!(check_url(&fits, &allow).is_ok());
        let over = format!("{fits}a");
        assert_eq!(
            check_url(&over, &allow),
            Err(TargetError::TooLong(MAX_URL_LEN + 1))
        );
    }

    #[test]
    fn the_allow_list_opens_what_it_names() {
        // (list, url, allowed)
        let table = [
            ("loopback", "http://127.0.0.1:9000/", true),
            ("loopback", "http://[::1]/", true),
            ("loopback", "http://localhost:9000/", true),
            ("loopback", "http://a.localhost/", true),
            ("loopback", "http://10.0.0.1/", false),
            ("loopback", "http://8.8.8.8/", false),
            ("loopback", "http://metadata.google.internal/", false),
            ("private", "http://10.0.0.1/", true),
            ("private", "http://100.64.1.1/", true),
            ("private", "http://[fd12::1]/", true),
            ("private", "http://169.254.169.254/", false),
            ("private", "http://100.100.100.200/", false),
            ("private", "http://[fd00:ec2::254]/", false),
            ("private", "http://localhost/", false),
            ("10.0.0.0/8", "http://10.9.8.7/", true),
            ("10.0.0.0/8", "http://[::ffff:10.9.8.7]/", true),
            ("10.0.0.0/8", "http://11.0.0.1/", false),
            ("*.corp.example", "http://ci.corp.example/", true),
            ("*.corp.example", "http://10.0.0.1/", false),
            (
                "metadata.google.internal",
                "http://metadata.google.internal/",
                true,
            ),
            ("*", "http://169.254.169.254/", true),
            ("*", "http://localhost/", true),
            ("*", "http://metadata/", true),
            ("*", "ftp://example.com/", false),
            ("*", "http://u:p@example.com/", false),
            ("loopback", "http://example.com/", true),
            ("loopback,external", "http://127.0.0.1/", true),
        ];
        for (list, url, allowed) in table {
            let allow = AllowList::parse(list).unwrap();
            assert_eq!(check_url(url, &allow).is_ok(), allowed, "{list} {url}");
        }
    }

    #[test]
    fn messages_name_the_target_and_the_setting() {
        let allow = AllowList::external();
        let table = [
            (
                "http://10.0.0.1/",
                "the target 10.0.0.1 is a private address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
            ),
            (
                "http://metadata.google.internal/",
                "the target metadata.google.internal is a cloud instance-metadata service, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
            ),
            (
                "file:///etc/passwd",
                "the URL's scheme is file:, but webhooks only call http and https URLs",
            ),
            (
                "https://u:p@example.com/",
                "the URL carries a user name or password; send credentials in the webhook's authorization header instead",
            ),
        ];
        for (url, message) in table {
            assert_eq!(check_url(url, &allow).unwrap_err().to_string(), message);
        }
    }
}
