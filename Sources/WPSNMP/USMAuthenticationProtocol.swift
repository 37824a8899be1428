import WPCrypto

/// An SNMPv3 user's authentication protocol: HMAC with one of the SHA family, the MAC cut to
/// the protocol's length. The same hash turns the user's passwords into keys and localizes
/// them (RFC 3414 A.2, §2.6), for privacy too.
///
/// HMAC-96-MD5 and DES privacy are not offered: both are deprecated, and DES is not in
/// OpenSSL 3's default provider (docs/snmp.md).
package enum USMAuthenticationProtocol: Sendable, CaseIterable, CustomStringConvertible {
    /// HMAC-96-SHA-1 (`usmHMACSHAAuthProtocol`, RFC 3414 §7): a 12-byte MAC.
    case sha1
    /// HMAC-128-SHA-224 (`usmHMAC128SHA224AuthProtocol`, RFC 7860): a 16-byte MAC.
    case sha224
    /// HMAC-192-SHA-256 (`usmHMAC192SHA256AuthProtocol`, RFC 7860): a 24-byte MAC. The default.
    case sha256
    /// HMAC-256-SHA-384 (`usmHMAC256SHA384AuthProtocol`, RFC 7860): a 32-byte MAC.
    case sha384
    /// HMAC-384-SHA-512 (`usmHMAC384SHA512AuthProtocol`, RFC 7860): a 48-byte MAC.
    case sha512

    /// Bytes of `msgAuthenticationParameters`: the MAC's length.
    package var macLength: Int {
        switch self {
        case .sha1: 12
        case .sha224: 16
        case .sha256: 24
        case .sha384: 32
        case .sha512: 48
        }
    }

    /// Bytes of the hash, so of the user's keys.
    package var keyLength: Int { function.length }

    /// The protocol's identity under `snmpAuthProtocols` (`1.3.6.1.6.3.10.1.1`).
    package var oid: OID {
        switch self {
        case .sha1: "1.3.6.1.6.3.10.1.1.3"
        case .sha224: "1.3.6.1.6.3.10.1.1.4"
        case .sha256: "1.3.6.1.6.3.10.1.1.5"
        case .sha384: "1.3.6.1.6.3.10.1.1.6"
        case .sha512: "1.3.6.1.6.3.10.1.1.7"
        }
    }

    /// The hash function (libcrypto's, through WPCrypto).
    var function: Digest.Function {
        switch self {
        case .sha1: .sha1
        case .sha224: .sha224
        case .sha256: .sha256
        case .sha384: .sha384
        case .sha512: .sha512
        }
    }

    /// net-snmp's name (`-a SHA-256`): `SHA`, `SHA-224`, `SHA-256`, `SHA-384`, `SHA-512`.
    package var description: String {
        switch self {
        case .sha1: "SHA"
        case .sha224: "SHA-224"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }
}
