//! What a host name alone gives away about where it leads, before any
//! lookup: names that always mean this machine or a metadata service, and
//! names the URL parser kept as names although they read as numbers.

use super::class::AddressClass;

/// Names every resolver answers with this machine (RFC 6761 reserves
/// `localhost` and everything under it; the rest are Debian's and Red
/// Hat's `/etc/hosts` entries).
const LOOPBACK: [&str; 4] = [
    "localhost",
    "localhost.localdomain",
    "ip6-localhost",
    "ip6-loopback",
];

/// Names of cloud instance-metadata services, which answer with the
/// running function's credentials. Their addresses are refused as well
/// ([`AddressClass::Metadata`]); refusing the names too means the message
/// says what was meant, and a resolver that maps them elsewhere changes
/// nothing.
const METADATA: [&str; 6] = [
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
];

/// The class a well-known name stands for, if it is one.
pub(super) fn class_of(name: &str) -> Option<AddressClass> {
    let name = name.strip_suffix('.').unwrap_or(name);
    if LOOPBACK.contains(&name) || name.ends_with(".localhost") {
        Some(AddressClass::Loopback)
    } else if METADATA.contains(&name) {
        Some(AddressClass::Metadata)
    } else {
        None
    }
}

/// Whether a name ends in a label that reads as a number (`1`, `0x7f`).
/// For http(s) the URL parser turns such hosts into IPv4 addresses or
/// refuses them, so none should reach here; if one does (another parser
/// version, another scheme's rules), resolvers differ on what it means
/// (`inet_aton` reads `0x7f.1` as 127.0.0.1), so it is refused rather
/// than guessed at. No top-level domain is numeric.
pub(super) fn looks_numeric(name: &str) -> bool {
    let name = name.strip_suffix('.').unwrap_or(name);
    let last = name.rsplit('.').next().unwrap_or(name);
    let hex = last.strip_prefix("0x").or_else(|| last.strip_prefix("0X"));
    match hex {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_names_have_classes() {
        let table = [
            ("localhost", Some(AddressClass::Loopback)),
            ("localhost.", Some(AddressClass::Loopback)),
            ("api.localhost", Some(AddressClass::Loopback)),
            ("localhost.localdomain", Some(AddressClass::Loopback)),
            ("ip6-localhost", Some(AddressClass::Loopback)),
            ("metadata", Some(AddressClass::Metadata)),
            ("metadata.google.internal", Some(AddressClass::Metadata)),
            ("metadata.google.internal.", Some(AddressClass::Metadata)),
            ("instance-data", Some(AddressClass::Metadata)),
            ("instance-data.ec2.internal", Some(AddressClass::Metadata)),
            ("localhost.example.com", None),
            ("mylocalhost", None),
            ("metadata.example.com", None),
            ("example.com", None),
        ];
        for (name, class) in table {
            assert_eq!(class_of(name), class, "{name}");
        }
    }

    #[test]
    fn numeric_looking_names_are_spotted() {
        let table = [
            ("2130706433", true),
            ("127.0.0.1", true),
            ("127.1.", true),
            ("0x7f", true),
            ("foo.0x", true),
            ("a.b.123", true),
            ("example.com", false),
            ("123.example", false),
            ("0x7f.com", false),
            ("0xg", false),
            ("1a", false),
        ];
        for (name, numeric) in table {
            assert_eq!(looks_numeric(name), numeric, "{name}");
        }
    }
}
