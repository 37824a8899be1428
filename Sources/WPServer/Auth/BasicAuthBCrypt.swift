import WPCSecurityShim

/// bcrypt through libcrypt's `crypt_r`.
public enum BCrypt {
    /// The most password bytes bcrypt reads; a longer password is refused, never cut (as
    /// Go's and Python's bcrypt refuse to hash one).
    public static let maxPasswordBytes = 72

    static let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// The cost of a bcrypt hash (`$2b$10$` + 53 characters), nil when `hash` is not one.
    public static func cost(of hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
              [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
              bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
              let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...31).contains(cost),
              bytes[7...].allSatisfy(alphabet.contains) else { return nil }
        return cost
    }

    /// Hashes `password` with a bcrypt setting (`$2b$10$` + 22 salt characters) or verifies
    /// against a full hash (the result equals it when the password matches); nil on failure.
    ///
    /// A password holding a NUL byte gives nil: `crypt_r` reads a C string and would check
    /// only the part before the NUL, so `right\0anything` would pass for `right`. So does a
    /// password longer than ``maxPasswordBytes``: bcrypt reads only that many bytes, so
    /// anything after them would pass.
    public static func hash(password: String, setting: String) -> String? {
        guard !password.utf8.contains(0), !setting.utf8.contains(0), password.utf8.count <= maxPasswordBytes else { return nil }
        var output = [CChar](repeating: 0, count: 128)
        defer { for index in output.indices { output[index] = 0 } }
        guard wps_crypt(password, setting, &output, output.count) == 0 else { return nil }
        return TLSContextStore.string(output)
    }

    /// A fresh `$2b$` setting with a random salt.
    public static func setting(cost: Int, using generator: inout some RandomNumberGenerator) -> String {
        let salt = (0..<22).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
        let costText = cost < 10 ? "0\(cost)" : "\(cost)"
        return "$2b$\(costText)$" + String(decoding: salt, as: UTF8.self)
    }

    /// Compares two strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
