//! What kind of address an IP is, as far as calling it goes. Every address
//! falls in exactly one class; the allow list says which classes it calls.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The class of an address (or of a well-known host name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressClass {
    /// Globally routable: what the `external` entry allows.
    External,
    /// RFC 1918, shared CGNAT space (100.64.0.0/10), unique-local fc00::/7
    /// and the deprecated site-local fec0::/10: the `private` entry.
    Private,
    /// 127.0.0.0/8, ::1 and the names `localhost` and `*.localhost`: the
    /// `loopback` entry.
    Loopback,
    /// The addresses and names of cloud instance-metadata services, which
    /// hand out the function's own credentials. No keyword allows them,
    /// not even `private`: only `*`, or a CIDR or name pattern that covers
    /// them.
    Metadata,
    /// 169.254.0.0/16 and fe80::/10 (the link, not a network).
    LinkLocal,
    /// 0.0.0.0/8 and `::`; Linux connects 0.0.0.0 to the machine itself.
    Unspecified,
    /// Multicast (224.0.0.0/4, ff00::/8) and the broadcast address.
    Multicast,
    /// Ranges set aside for documentation and benchmarks (192.0.2.0/24,
    /// 198.51.100.0/24, 203.0.113.0/24, 198.18.0.0/15, 2001:db8::/32,
    /// 3fff::/20, 2001:2::/48): nobody serves a webhook there.
    Documentation,
    /// Everything else that is not ordinary unicast: 240.0.0.0/4, IETF
    /// protocol assignments, Teredo, discard-only, IPv6 outside 2000::/3.
    Reserved,
}

impl AddressClass {
    /// The class of one address. An IPv6 address that carries an IPv4 one
    /// (mapped, compatible, NAT64 64:ff9b::/96, 6to4 2002::/16) is the
    /// class of the IPv4 address, since that is the host it ends up at.
    pub fn of(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(v4) => of_v4(v4),
            IpAddr::V6(v6) => of_v6(v6),
        }
    }
}

impl fmt::Display for AddressClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::External => "a public address",
            Self::Private => "a private address",
            Self::Loopback => "a loopback address",
            Self::Metadata => "a cloud instance-metadata service",
            Self::LinkLocal => "a link-local address",
            Self::Unspecified => "an unspecified address",
            Self::Multicast => "a multicast or broadcast address",
            Self::Documentation => "a documentation or benchmarking address",
            Self::Reserved => "a reserved address",
        })
    }
}

/// Metadata services that sit at addresses the other classes would let
/// through under `private` (Alibaba's in CGNAT space, AWS's IPv6 one in
/// fc00::/7); the link-local ones are listed so the message names them.
const METADATA: [IpAddr; 8] = [
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 254)), // AWS, GCP, Azure, OpenStack
    IpAddr::V4(Ipv4Addr::new(169, 254, 169, 253)), // AWS's DNS resolver
    IpAddr::V4(Ipv4Addr::new(169, 254, 170, 2)),   // ECS task credentials
    IpAddr::V4(Ipv4Addr::new(169, 254, 170, 23)),  // EKS Pod Identity
    IpAddr::V4(Ipv4Addr::new(100, 100, 100, 200)), // Alibaba Cloud
    IpAddr::V4(Ipv4Addr::new(192, 0, 0, 192)),     // Oracle Cloud
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254)), // AWS IMDS over IPv6
    IpAddr::V6(Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23)), // EKS Pod Identity
];

fn of_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, _] = ip.octets();
    if METADATA.contains(&IpAddr::V4(ip)) {
        AddressClass::Metadata
    } else if a == 0 {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if ip.is_private() || (a == 100 && (b & 0xc0) == 64) {
        AddressClass::Private
    } else if ip.is_link_local() {
        AddressClass::LinkLocal
    } else if ip.is_multicast() || ip.is_broadcast() {
        AddressClass::Multicast
    } else if ip.is_documentation() || (a == 198 && (b & 0xfe) == 18) {
        AddressClass::Documentation
    } else if a >= 240 || (a, b, c) == (192, 0, 0) || (a, b, c) == (192, 88, 99) {
        // 240/4 (future use), IETF protocol assignments, the retired 6to4
        // relay anycast prefix.
        AddressClass::Reserved
    } else {
        AddressClass::External
    }
}

fn of_v6(ip: Ipv6Addr) -> AddressClass {
    let s = ip.segments();
    if METADATA.contains(&IpAddr::V6(ip)) {
        AddressClass::Metadata
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if let Some(v4) = embedded_v4(ip) {
        of_v4(v4)
    } else if ip.is_multicast() {
        AddressClass::Multicast
    } else if ip.is_unicast_link_local() {
        AddressClass::LinkLocal
    } else if ip.is_unique_local() || (s[0] & 0xffc0) == 0xfec0 {
        AddressClass::Private
    } else if (s[0], s[1]) == (0x2001, 0xdb8)
        || (s[0] & 0xfff0) == 0x3ff0
        || (s[0], s[1], s[2]) == (0x2001, 2, 0)
    {
        AddressClass::Documentation
    } else if (s[0] & 0xe000) != 0x2000
        || (s[0] == 0x2001 && s[1] < 0x200)
        || (s[0], s[1], s[2], s[3]) == (0x100, 0, 0, 0)
        || s[0] == 0x5f00
    {
        // Only 2000::/3 is handed out as global unicast. Inside it:
        // 2001::/23 (protocol assignments, Teredo with its obfuscated
        // IPv4) and 5f00::/16 (segment routing). 100::/64 (discard-only)
        // lies outside it and is named for the reader.
        AddressClass::Reserved
    } else {
        AddressClass::External
    }
}

/// The IPv4 address an IPv6 one stands for, if it is one of the forms that
/// reach an IPv4 host: mapped ::ffff:a.b.c.d, the deprecated compatible
/// ::a.b.c.d, NAT64's well-known 64:ff9b::/96 and 6to4's 2002:AABB:CCDD::/48.
/// `::` and `::1` are not compatible addresses; the caller tests them first.
pub(super) fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let last = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0, 0, _, _] => Some(last),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(last),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::AddressClass::{self, *};
    use std::net::IpAddr;

    #[test]
    fn every_range_has_its_class() {
        let table: &[(&str, AddressClass)] = &[
            ("8.8.8.8", External),
            ("1.1.1.1", External),
            ("100.63.255.255", External),
            ("100.128.0.0", External),
            ("172.32.0.1", External),
            ("198.20.0.1", External),
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("127.0.0.1", Loopback),
            ("127.255.255.254", Loopback),
            ("10.0.0.1", Private),
            ("172.16.0.1", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("100.64.0.1", Private),
            ("100.127.255.255", Private),
            ("169.254.0.1", LinkLocal),
            ("169.254.169.254", Metadata),
            ("169.254.170.2", Metadata),
            ("100.100.100.200", Metadata),
            ("192.0.0.192", Metadata),
            ("224.0.0.1", Multicast),
            ("239.255.255.250", Multicast),
            ("255.255.255.255", Multicast),
            ("240.0.0.1", Reserved),
            ("192.0.0.8", Reserved),
            ("192.88.99.1", Reserved),
            ("192.0.2.1", Documentation),
            ("198.51.100.7", Documentation),
            ("203.0.113.9", Documentation),
            ("198.18.0.1", Documentation),
            ("198.19.255.255", Documentation),
            ("2606:4700:4700::1111", External),
            ("2a00:1450:4001:80b::200e", External),
            ("::", Unspecified),
            ("::1", Loopback),
            ("fc00::1", Private),
            ("fd12:3456::1", Private),
            ("fec0::1", Private),
            ("fd00:ec2::254", Metadata),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("ff02::1", Multicast),
            ("2001:db8::1", Documentation),
            ("3fff::1", Documentation),
            ("2001:2::1", Documentation),
            ("2001::1", Reserved),
            ("2001:0:4136:e378:8000:63bf:3fff:fdd2", Reserved), // Teredo
            ("100::1", Reserved),
            ("4000::1", Reserved),
            ("::ffff:127.0.0.1", Loopback),
            ("::ffff:10.1.2.3", Private),
            ("::ffff:169.254.169.254", Metadata),
            ("::ffff:8.8.8.8", External),
            ("::127.0.0.1", Loopback),
            ("::10.0.0.1", Private),
            ("::8.8.8.8", External),
            ("64:ff9b::7f00:1", Loopback),
            ("64:ff9b::a9fe:a9fe", Metadata),
            ("64:ff9b::808:808", External),
            ("2002:7f00:1::", Loopback),
            ("2002:c0a8:101::1", Private),
            ("2002:808:808::1", External),
        ];
        for (text, class) in table {
            let ip: IpAddr = text.parse().unwrap();
            assert_eq!(AddressClass::of(ip), *class, "{text}");
        }
    }

    #[test]
    fn classes_read_as_phrases() {
        assert_eq!(Private.to_string(), "a private address");
        assert_eq!(Metadata.to_string(), "a cloud instance-metadata service");
    }
}
