import WPCSecurityShim
import WPCrypto

/// The cryptography of SNMPv3's user-based security model as the agent serves it: HMAC with
/// the user's hash of the SHA family (``USMAuthenticationProtocol``: RFC 3414's HMAC-96-SHA-1
/// and RFC 7860's SHA-2 protocols) and AES-128 in CFB-128 mode for privacy
/// (`usmAesCfb128Protocol`, RFC 3826), through the system's libcrypto.
enum USMCrypto {
    /// Bytes of `msgPrivacyParameters` with AES (RFC 3826 §3.1.1.1: the salt).
    static let saltLength = 8
    /// RFC 3414 A.2: the password is repeated to this many bytes and hashed.
    static let passwordExpansion = 1_048_576

    /// The hash of `bytes` with `authentication`'s hash; `nil` without libcrypto.
    static func digest(_ authentication: USMAuthenticationProtocol, _ bytes: [UInt8]) -> [UInt8]? {
        Digest.hash(authentication.function, bytes)
    }

    /// HMAC of `data` with `authentication`'s hash and `key`; `nil` without libcrypto.
    static func hmac(_ authentication: USMAuthenticationProtocol, key: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        Digest.hmac(authentication.function, key: key, data)
    }

    /// The MAC of `message` (whose authentication parameters are zero bytes): the HMAC with the
    /// localized authentication key, cut to the protocol's MAC length (RFC 3414 §6.3.1,
    /// RFC 7860 §4.2.1).
    static func mac(_ authentication: USMAuthenticationProtocol, key: [UInt8], _ message: [UInt8]) -> [UInt8]? {
        hmac(authentication, key: key, message).map { Array($0.prefix(authentication.macLength)) }
    }

    /// AES-128-CFB of `input` with the first 16 bytes of `key` and `iv` (16 bytes).
    static func aes128CFB(encrypt: Bool, key: [UInt8], iv: [UInt8], _ input: [UInt8]) -> [UInt8]? {
        guard key.count >= 16, iv.count == 16 else { return nil }
        if input.isEmpty { return [] }
        var output = [UInt8](repeating: 0, count: input.count)
        let status = input.withUnsafeBytes { input in
            wps_aes128_cfb(encrypt ? 1 : 0, key, iv, input.baseAddress, input.count, &output)
        }
        return status == 0 ? output : nil
    }

    /// The user's key from a password (RFC 3414 A.2 with `authentication`'s hash): the password
    /// repeated to 1,048,576 bytes, hashed. `nil` for an empty password or without libcrypto.
    static func passwordToKey(_ password: [UInt8], _ authentication: USMAuthenticationProtocol) -> [UInt8]? {
        guard !password.isEmpty else { return nil }
        var expanded = [UInt8](repeating: 0, count: passwordExpansion)
        for index in expanded.indices { expanded[index] = password[index % password.count] }
        return digest(authentication, expanded)
    }

    /// The key localized to an engine (RFC 3414 §2.6): hash(key ‖ engineID ‖ key) with
    /// `authentication`'s hash.
    static func localize(_ key: [UInt8], engineID: [UInt8], _ authentication: USMAuthenticationProtocol) -> [UInt8]? {
        digest(authentication, key + engineID + key)
    }

    /// The AES IV (RFC 3826 §3.1.2.1): engine boots and time (4 bytes each, big-endian), then
    /// the 8-byte salt.
    static func iv(boots: Int32, time: Int32, salt: [UInt8]) -> [UInt8] {
        func bigEndian(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: UInt32(bitPattern: value).bigEndian) { Array($0) } }
        return bigEndian(boots) + bigEndian(time) + salt
    }
}
