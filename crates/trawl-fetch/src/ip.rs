//! Classification of IP addresses: which ones a fetch may never reach.
//!
//! Written by hand because std's `is_global` is still unstable and the guard must also see
//! through IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public, or `None` when it is a global unicast address.
pub fn non_public_reason(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_reason(v4),
        IpAddr::V6(v6) => v6_reason(v6),
    }
}

fn in_v4(ip: Ipv4Addr, net: [u8; 4], prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - prefix)
    };
    (u32::from(ip) & mask) == (u32::from(Ipv4Addr::from(net)) & mask)
}

fn v4_reason(ip: Ipv4Addr) -> Option<&'static str> {
    const TABLE: &[([u8; 4], u32, &str)] = &[
        ([0, 0, 0, 0], 8, "unspecified/\"this network\" (0.0.0.0/8)"),
        ([10, 0, 0, 0], 8, "private (10.0.0.0/8)"),
        ([100, 64, 0, 0], 10, "carrier-grade NAT (100.64.0.0/10)"),
        ([127, 0, 0, 0], 8, "loopback (127.0.0.0/8)"),
        ([169, 254, 0, 0], 16, "link-local (169.254.0.0/16)"),
        ([172, 16, 0, 0], 12, "private (172.16.0.0/12)"),
        (
            [192, 0, 0, 0],
            24,
            "IETF protocol assignments (192.0.0.0/24)",
        ),
        ([192, 0, 2, 0], 24, "documentation (192.0.2.0/24)"),
        ([192, 88, 99, 0], 24, "6to4 relay anycast (192.88.99.0/24)"),
        ([192, 168, 0, 0], 16, "private (192.168.0.0/16)"),
        ([198, 18, 0, 0], 15, "benchmarking (198.18.0.0/15)"),
        ([198, 51, 100, 0], 24, "documentation (198.51.100.0/24)"),
        ([203, 0, 113, 0], 24, "documentation (203.0.113.0/24)"),
        ([224, 0, 0, 0], 4, "multicast (224.0.0.0/4)"),
        ([255, 255, 255, 255], 32, "broadcast (255.255.255.255)"),
        ([240, 0, 0, 0], 4, "reserved (240.0.0.0/4)"),
    ];
    TABLE
        .iter()
        .find(|(net, prefix, _)| in_v4(ip, *net, *prefix))
        .map(|(_, _, why)| *why)
}

fn in_v6(ip: Ipv6Addr, net: u128, prefix: u32) -> bool {
    let mask = if prefix == 0 {
        0
    } else {
        u128::MAX << (128 - prefix)
    };
    (u128::from(ip) & mask) == (net & mask)
}

fn v6_reason(ip: Ipv6Addr) -> Option<&'static str> {
    let bits = u128::from(ip);
    if ip.is_unspecified() {
        return Some("unspecified (::)");
    }
    if ip.is_loopback() {
        return Some("loopback (::1)");
    }
    // Forms that carry an IPv4 address: judge the embedded address.
    if in_v6(ip, 0xffff_0000_0000, 96) {
        let v4 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
        return v4_reason(v4).map(|_| "IPv4-mapped form of a non-public IPv4 address");
    }
    if in_v6(ip, 0, 96) {
        return Some("IPv4-compatible form (::/96, deprecated)");
    }
    if in_v6(ip, 0x0064_ff9b << 96, 96) {
        let v4 = Ipv4Addr::from((bits & 0xffff_ffff) as u32);
        return v4_reason(v4).map(|_| "NAT64 form of a non-public IPv4 address");
    }
    if in_v6(ip, 0x2002 << 112, 16) {
        let v4 = Ipv4Addr::from(((bits >> 80) & 0xffff_ffff) as u32);
        return v4_reason(v4).map(|_| "6to4 form of a non-public IPv4 address");
    }
    const TABLE: &[(u128, u32, &str)] = &[
        (
            0x0064_ff9b_0001 << 80,
            48,
            "local-use NAT64 (64:ff9b:1::/48)",
        ),
        (0x0100 << 112, 64, "discard-only (100::/64)"),
        (0x2001_0db8 << 96, 32, "documentation (2001:db8::/32)"),
        (
            0x2001 << 112,
            23,
            "IETF protocol assignments incl. Teredo (2001::/23)",
        ),
        (0x3fff << 112, 20, "documentation (3fff::/20)"),
        (0x5f00 << 112, 16, "segment routing (5f00::/16)"),
        (0xfc00 << 112, 7, "unique-local (fc00::/7)"),
        (0xfe80 << 112, 10, "link-local (fe80::/10)"),
        (0xfec0 << 112, 10, "site-local (fec0::/10, deprecated)"),
        (0xff00 << 112, 8, "multicast (ff00::/8)"),
    ];
    if let Some((_, _, why)) = TABLE.iter().find(|(n, p, _)| in_v6(ip, *n, *p)) {
        return Some(why);
    }
    if !in_v6(ip, 0x2000 << 112, 3) {
        return Some("reserved (outside global unicast 2000::/3)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(s: &str) -> Option<&'static str> {
        non_public_reason(s.parse().unwrap())
    }

    #[test]
    fn refuses_every_special_range() {
        for s in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "10.255.255.255",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.255.0.9",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.88.99.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.251",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "::8.8.8.8",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::7f00:1",
            "64:ff9b:1::1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::",
            "2002:c0a8:0101::1",
            "100::1",
            "2001:db8::1",
            "2001::1",
            "3fff::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "4000::1",
        ] {
            assert!(reason(s).is_some(), "{s} should be refused");
        }
    }

    #[test]
    fn admits_public_addresses() {
        for s in [
            "8.8.8.8",
            "1.1.1.1",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001::200e",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            assert_eq!(reason(s), None, "{s} should be public");
        }
    }
}
