import WPLogging

/// User and password from an `Authorization: Basic ...` header value.
struct BasicCredentials {
    var user: String
    var password: String

    /// Parses `Basic base64(user:password)`; nil for any other scheme or malformed input.
    init?(header: String) {
        let trimmed = header.drop { $0 == " " }
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "basic " else { return nil }
        let encoded = trimmed.dropFirst(6).drop { $0 == " " }
        guard let decoded = Self.decodeBase64(Substring(encoded)),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        user = String(decoding: decoded[..<colon], as: UTF8.self)
        password = String(decoding: decoded[(colon + 1)...], as: UTF8.self)
    }

    /// Standard base64 with optional padding; nil on any other character.
    static func decodeBase64(_ text: Substring) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard let value = Base64Alphabet.value(of: byte) else { return nil }
            guard padding == 0 else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        guard padding <= 2 else { return nil }
        return output
    }
}
