import WPCSecurityShim

/// Hashes and HMACs of the SHA family through the system's libcrypto (loaded at run time): the
/// one Swift face of `wps_digest` and `wps_hmac` for SNMPv3's user security, the web
/// configuration's password cache and the notifications' signatures.
///
/// ```swift
/// let signature = Digest.hmac(.sha256, key: Array("secret".utf8), Array("message".utf8))
/// ```
package enum Digest {
    /// A hash function of the SHA family, by the name libcrypto knows it.
    package enum Function: String, Sendable, CaseIterable {
        case sha1 = "SHA1", sha224 = "SHA224", sha256 = "SHA256", sha384 = "SHA384", sha512 = "SHA512"

        /// The digest's length in bytes.
        package var length: Int {
            switch self {
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }
    }

    /// The hash of `bytes`; `nil` without libcrypto.
    package static func hash(_ function: Function, _ bytes: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: function.length)
        let written = bytes.withUnsafeBytes { input in
            wps_digest(function.rawValue, input.baseAddress, input.count, &output, output.count)
        }
        return written == output.count ? output : nil
    }

    /// The HMAC of `data` with `key` (up to 1,024 bytes); `nil` without libcrypto or with a
    /// longer key.
    package static func hmac(_ function: Function, key: [UInt8], _ data: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: function.length)
        let written = key.withUnsafeBytes { key in
            data.withUnsafeBytes { data in
                wps_hmac(function.rawValue, key.baseAddress, key.count, data.baseAddress, data.count, &output, output.count)
            }
        }
        return written == output.count ? output : nil
    }
}
