//! The allow list (`HOOK_ALLOWED_HOSTS`): which targets this instance
//! calls. Its entries follow Gitea's `webhook.ALLOWED_HOST_LIST`.

use std::fmt;
use std::net::IpAddr;

use super::class::AddressClass;

/// Which targets may be called, parsed once from configuration.
///
/// Comma-separated entries, case-insensitive, blanks ignored:
/// - `external`: public addresses ([`AddressClass::External`]); the whole
///   list when the text is empty;
/// - `private`: RFC 1918, CGNAT 100.64.0.0/10 and unique-local fc00::/7;
/// - `loopback`: 127.0.0.0/8, ::1, `localhost`;
/// - `*`: anything, metadata services included;
/// - a CIDR (`10.0.0.0/8`, `fd00::/8`) or a bare address (one host);
/// - a host name pattern where `*` stands for any run of characters
///   (`*.example.com`, `hooks-*.corp`). A name it matches is called at
///   whatever address it resolves to, as Gitea does: the operator vouches
///   for that name's DNS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowList {
    anything: bool,
    classes: Vec<AddressClass>,
    networks: Vec<Network>,
    names: Vec<NamePattern>,
}

/// The entries that name a class of addresses.
const KEYWORDS: [(&str, AddressClass); 3] = [
    ("external", AddressClass::External),
    ("private", AddressClass::Private),
    ("loopback", AddressClass::Loopback),
];

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum AllowListError {
    #[error("{0:?} is not a valid CIDR (an address, '/', and a prefix length)")]
    Cidr(String),
    #[error(
        "{0:?} is neither external, private, loopback, *, a CIDR nor a host name pattern (letters, digits, '-', '.', '_' and '*')"
    )]
    Entry(String),
}

impl AllowList {
    pub fn parse(text: &str) -> Result<Self, AllowListError> {
        let mut list = Self::empty();
        let entries = text.split(',').map(str::trim).filter(|e| !e.is_empty());
        for entry in entries.map(str::to_ascii_lowercase) {
            if entry == "*" {
                list.anything = true;
            } else if let Some((_, class)) = KEYWORDS.iter().find(|(k, _)| *k == entry) {
                list.classes.push(*class);
            } else {
                match Network::parse(&entry) {
                    Some(Ok(net)) => list.networks.push(net),
                    Some(Err(())) => return Err(AllowListError::Cidr(entry)),
                    None => list.names.push(NamePattern::parse(&entry)?),
                }
            }
        }
        if list == Self::empty() {
            return Ok(Self::external());
        }
        Ok(list)
    }

    /// Public addresses only: the default.
    pub fn external() -> Self {
        Self {
            classes: vec![AddressClass::External],
            ..Self::empty()
        }
    }

    /// Allows nothing; no text parses to it (empty text means external).
    fn empty() -> Self {
        Self {
            anything: false,
            classes: Vec::new(),
            networks: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Whether `*` is on the list.
    pub fn allows_anything(&self) -> bool {
        self.anything
    }

    /// Whether an address may be called: `*`, its class, or a CIDR that
    /// holds it (for an IPv4-mapped address, also its IPv4 form).
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        self.anything
            || self.allows_class(AddressClass::of(ip))
            || self.networks.iter().any(|n| n.contains(ip))
    }

    /// Whether a class is allowed by keyword (or by `*`).
    pub fn allows_class(&self, class: AddressClass) -> bool {
        self.anything || self.classes.contains(&class)
    }

    /// Whether a host name pattern on the list matches `name` (lower-case,
    /// as the URL parser leaves it; a final dot is ignored).
    pub fn matches_name(&self, name: &str) -> bool {
        let name = name.strip_suffix('.').unwrap_or(name);
        self.names.iter().any(|p| p.matches(name))
    }
}

impl Default for AllowList {
    fn default() -> Self {
        Self::external()
    }
}

/// An address range from a CIDR or a bare address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Network {
    base: IpAddr,
    prefix: u8,
}

impl Network {
    /// `None` when the entry is not meant as an address at all (so it is
    /// read as a name pattern); `Some(Err)` when it is, but is wrong.
    fn parse(entry: &str) -> Option<Result<Self, ()>> {
        let (addr, prefix) = match entry.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (entry, None),
        };
        let base: IpAddr = match addr.parse() {
            Ok(ip) => ip,
            Err(_) if prefix.is_some() => return Some(Err(())),
            Err(_) => return None,
        };
        let max = if base.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix.map(str::parse::<u8>) {
            None => max,
            Some(Ok(p)) if p <= max => p,
            Some(_) => return Some(Err(())),
        };
        Some(Ok(Self { base, prefix }))
    }

    fn contains(&self, ip: IpAddr) -> bool {
        // ::ffff:10.0.0.1 is 10.0.0.1 on the wire, so 10.0.0.0/8 holds it.
        let ip = match ip {
            IpAddr::V6(v6) if self.base.is_ipv4() => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => return false,
            },
            ip => ip,
        };
        match (self.base, ip) {
            (IpAddr::V4(base), IpAddr::V4(ip)) => {
                same_prefix(base.to_bits().into(), ip.to_bits().into(), 32, self.prefix)
            }
            (IpAddr::V6(base), IpAddr::V6(ip)) => {
                same_prefix(base.to_bits(), ip.to_bits(), 128, self.prefix)
            }
            _ => false,
        }
    }
}

/// Whether two addresses of `width` bits agree in their first `prefix` bits.
fn same_prefix(a: u128, b: u128, width: u8, prefix: u8) -> bool {
    let shift = width - prefix;
    shift >= 128 || (a >> shift) == (b >> shift)
}

/// A host name pattern; `*` matches any run of characters, dots included.
#[derive(Clone, Debug, PartialEq, Eq)]
struct NamePattern(String);

impl NamePattern {
    fn parse(entry: &str) -> Result<Self, AllowListError> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '*');
        if !entry.chars().all(allowed) || entry.trim_matches(['.', '*']).is_empty() {
            return Err(AllowListError::Entry(entry.to_owned()));
        }
        Ok(Self(entry.strip_suffix('.').unwrap_or(entry).to_owned()))
    }

    fn matches(&self, name: &str) -> bool {
        crate::text::star_match(&self.0, name)
    }
}

impl fmt::Display for AllowList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut entries: Vec<String> = Vec::new();
        if self.anything {
            entries.push("*".into());
        }
        let keyword = |class| KEYWORDS.iter().find(|(_, c)| *c == class).map(|(k, _)| *k);
        entries.extend(
            self.classes
                .iter()
                .filter_map(|c| keyword(*c))
                .map(String::from),
        );
        for net in &self.networks {
            entries.push(format!("{}/{}", net.base, net.prefix));
        }
        entries.extend(self.names.iter().map(|n| n.0.clone()));
        f.write_str(&entries.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn empty_text_means_external() {
        for text in ["", " ", ",", " , "] {
            assert_eq!(AllowList::parse(text).unwrap(), AllowList::external());
        }
        assert_eq!(AllowList::default(), AllowList::external());
    }

    #[test]
    fn entries_parse_and_print_back() {
        let list =
            AllowList::parse(" External, PRIVATE ,loopback,10.0.0.1/8,::1,*.Example.com").unwrap();
        assert_eq!(
            list.to_string(),
            "external,private,loopback,10.0.0.1/8,::1/128,*.example.com"
        );
        assert!(!list.allows_anything());
        assert!(AllowList::parse("*").unwrap().allows_anything());
    }

    #[test]
    fn bad_entries_are_named() {
        let table = [
            ("10.0.0.0/33", AllowListError::Cidr("10.0.0.0/33".into())),
            ("fd00::/129", AllowListError::Cidr("fd00::/129".into())),
            ("10.0.0/8", AllowListError::Cidr("10.0.0/8".into())),
            ("10.0.0.0/x", AllowListError::Cidr("10.0.0.0/x".into())),
            (
                "external,exa mple.com",
                AllowListError::Entry("exa mple.com".into()),
            ),
            ("ho$t", AllowListError::Entry("ho$t".into())),
            ("*.", AllowListError::Entry("*.".into())),
            ("**", AllowListError::Entry("**".into())),
        ];
        for (text, error) in table {
            assert_eq!(AllowList::parse(text).unwrap_err(), error, "{text}");
        }
        let message = AllowList::parse("a/b").unwrap_err().to_string();
        assert!(message.contains("\"a/b\""), "{message}");
    }

    #[test]
    fn addresses_are_allowed_by_class_or_cidr() {
        // (list, address, allowed)
        let table = [
            ("external", "8.8.8.8", true),
            ("external", "10.0.0.1", false),
            ("external", "127.0.0.1", false),
            ("external", "100.64.0.1", false),
            ("loopback", "127.0.0.1", true),
            ("loopback", "127.1.2.3", true),
            ("loopback", "::1", true),
            ("loopback", "::ffff:127.0.0.1", true),
            ("loopback", "10.0.0.1", false),
            ("loopback", "8.8.8.8", false),
            ("loopback", "0.0.0.0", false),
            ("private", "10.0.0.1", true),
            ("private", "172.16.5.4", true),
            ("private", "192.168.0.1", true),
            ("private", "100.64.0.1", true),
            ("private", "fd00::1", true),
            ("private", "127.0.0.1", false),
            ("private", "169.254.169.254", false),
            ("private", "100.100.100.200", false),
            ("private", "fd00:ec2::254", false),
            ("private", "8.8.8.8", false),
            ("10.0.0.0/8", "10.200.0.1", true),
            ("10.0.0.0/8", "::ffff:10.200.0.1", true),
            ("10.0.0.0/8", "11.0.0.1", false),
            ("10.0.0.0/8", "::1", false),
            ("192.168.1.0/24", "192.168.1.77", true),
            ("192.168.1.0/24", "192.168.2.1", false),
            ("0.0.0.0/0", "169.254.169.254", true),
            ("fd00::/8", "fd12::1", true),
            ("fd00::/8", "fc00::1", false),
            ("::/0", "::1", true),
            ("::/0", "10.0.0.1", false),
            ("169.254.169.254", "169.254.169.254", true),
            ("169.254.169.254", "169.254.169.253", false),
            ("*", "169.254.169.254", true),
            ("*", "0.0.0.0", true),
            ("*.example.com", "127.0.0.1", false),
        ];
        for (list, addr, allowed) in table {
            let list = AllowList::parse(list).unwrap();
            assert_eq!(list.allows_ip(ip(addr)), allowed, "{list} {addr}");
        }
    }

    #[test]
    fn name_patterns_match_with_wildcards() {
        // (pattern, name, matches)
        let table = [
            ("*.example.com", "hooks.example.com", true),
            ("*.example.com", "a.b.example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "evilexample.com", false),
            ("*.example.com", "hooks.example.com.", true),
            ("*.example.com", "hooks.example.com.evil", false),
            ("example.com", "example.com", true),
            ("example.com", "www.example.com", false),
            ("hooks-*.corp", "hooks-1.corp", true),
            ("hooks-*.corp", "hooks-.corp", true),
            ("hooks-*.corp", "web-1.corp", false),
            ("*ci*", "my-ci-server", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXcYb", false),
            ("intranet", "intranet", true),
        ];
        for (pattern, name, matches) in table {
            let list = AllowList::parse(pattern).unwrap();
            assert_eq!(list.matches_name(name), matches, "{pattern} {name}");
        }
        assert!(!AllowList::external().matches_name("example.com"));
    }
}
